import Foundation

/// When a frame was captured: the clock the debounce window is measured on.
///
/// For files, a timestamp the capture tool wrote into the frame's name wins over the file's
/// modification time (copying photos between disks resets mtimes, names survive). For a
/// watched directory the time the frame landed is used instead (see `WatchSession`).
public struct CaptureTime: Sendable, Hashable {
    public enum Origin: String, Sendable, Hashable {
        /// A date and time parsed from the file name.
        case fileName
        /// The file's modification time.
        case modificationTime
        /// The moment inotify reported the frame (watched directory).
        case landed
    }

    public var date: Date
    public var origin: Origin

    public init(date: Date, origin: Origin) {
        self.date = date
        self.origin = origin
    }

    /// The capture time of a file: its name's timestamp if it has one, else `modified`.
    public static func of(fileNamed name: String, modified: Date, timeZone: TimeZone = .current) -> CaptureTime {
        if let date = FrameNameTimestamp.parse(name, timeZone: timeZone) {
            return CaptureTime(date: date, origin: .fileName)
        }
        return CaptureTime(date: modified, origin: .modificationTime)
    }
}

/// Timestamps that capture tools write into frame names. Recognised forms (local time unless
/// the value is an epoch):
/// - `frame-20261122-101530.250.jpg`, `20261122_101530`, `IMG_20261122_101530.jpg`,
///   `PXL_20261122_101530123.jpg` (Android/Pixel: milliseconds glued on),
///   `VID_…`, `Screenshot_…` — 8 date digits, a `-`/`_`/`T` separator, 6 time digits,
///   optional `.fff` or 3 glued millisecond digits;
/// - `2026-11-22_10-15-30.jpg`, `2026-11-22 10.15.30.jpg`, `2026-11-22T10:15:30.250.jpg`
///   (ISO-like with any of `-_ T` between date and time and `-` `.` `:` inside the time);
/// - epoch milliseconds (13 digits, e.g. `1795342530250.jpg`) and epoch seconds
///   (10 digits, optional `.fff`) — only when the value falls between 2001 and now.
/// A plain frame counter such as ffmpeg's `%06d` (`000123.jpg`) is not a timestamp.
public enum FrameNameTimestamp {
    public static func parse(_ fileName: String, timeZone: TimeZone = .current) -> Date? {
        let stem = (fileName as NSString).deletingPathExtension
        if let match = stem.firstMatch(of: compact) {
            return date(year: match.1, month: match.2, day: match.3, hour: match.4, minute: match.5,
                        second: match.6, fraction: match.7 ?? match.8, timeZone: timeZone)
        }
        if let match = stem.firstMatch(of: separated) {
            return date(year: match.1, month: match.2, day: match.3, hour: match.4, minute: match.5,
                        second: match.6, fraction: match.7, timeZone: timeZone)
        }
        if let match = stem.wholeMatch(of: epoch) ?? stem.firstMatch(of: epochInName) {
            return epochDate(digits: match.1, fraction: match.2)
        }
        return nil
    }

    // Digits not glued to other digits on either side, so a longer counter never matches
    // (Swift Regex has no lookbehind: the leading non-digit is matched, not captured).
    nonisolated(unsafe) private static let compact =
        /(?:^|\D)(\d{4})(\d{2})(\d{2})[-_T](\d{2})(\d{2})(\d{2})(?:\.(\d{1,6})|(\d{3}))?(?!\d)/
    nonisolated(unsafe) private static let separated =
        /(?:^|\D)(\d{4})-(\d{2})-(\d{2})[-_ T](\d{2})[-.:](\d{2})[-.:](\d{2})(?:[.,](\d{1,6}))?(?!\d)/
    nonisolated(unsafe) private static let epoch = /(\d{10}|\d{13})(?:\.(\d{1,6}))?/
    nonisolated(unsafe) private static let epochInName = /(?:^|[^\d.])(\d{13}|\d{10})(?:\.(\d{1,6}))?(?![\d])/

    private static func date(
        year: Substring, month: Substring, day: Substring, hour: Substring, minute: Substring,
        second: Substring, fraction: Substring?, timeZone: TimeZone
    ) -> Date? {
        guard let y = Int(year), let mo = Int(month), let d = Int(day), let h = Int(hour),
              let mi = Int(minute), let s = Int(second),
              (1990...2099).contains(y), (1...12).contains(mo), (1...31).contains(d),
              (0...23).contains(h), (0...59).contains(mi), (0...60).contains(s)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let components = DateComponents(year: y, month: mo, day: d, hour: h, minute: mi, second: s)
        // Reject 2026-02-31 and friends instead of letting Calendar roll them over.
        guard components.isValidDate(in: calendar), let whole = calendar.date(from: components) else { return nil }
        return whole.addingTimeInterval(fractionSeconds(fraction))
    }

    private static func epochDate(digits: Substring, fraction: Substring?) -> Date? {
        guard let value = Double(digits) else { return nil }
        let seconds = digits.count == 13 ? value / 1000 : value + fractionSeconds(fraction)
        // A 13-digit product code in a name ("4006381333931.jpg") reads as a date in 2096:
        // only instants up to now (plus a day of clock skew) are capture times.
        let earliest = 978_307_200.0  // 2001-01-01
        let latest = Date().timeIntervalSince1970 + 86_400
        guard seconds >= earliest, seconds < latest else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    private static func fractionSeconds(_ digits: Substring?) -> TimeInterval {
        guard let digits, let value = Double("0." + digits) else { return 0 }
        return value
    }
}
