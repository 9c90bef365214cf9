import Foundation

/// A publish date at the precision the source gave: year, year-month or full date, read
/// from what sources and import files write: "2021-07", "2023-05-16", "2023-05-16T00:00:00Z",
/// "1996", "July 16, 2019", "Sep 2004", "1 March 2004", "c1995", "[1995?]". Stored as "YYYY",
/// "YYYY-MM" or "YYYY-MM-DD" (`text`). The one rule for dates: sources normalise with it and
/// the best-data merge compares with it.
public struct PublishDate: Hashable, Sendable {
    public let year: Int
    public let month: Int?
    public let day: Int?

    public init(year: Int, month: Int?, day: Int?) {
        self.year = year
        self.month = month
        self.day = month == nil ? nil : day
    }

    public init?(parsing raw: String?) {
        guard let raw = raw?.trimmingCharacters(in: .whitespacesAndNewlines), !raw.isEmpty else { return nil }
        if let iso = Self.isoPrefix(raw) {
            self = iso
            return
        }
        let words = raw.lowercased().split { !$0.isLetter && !$0.isNumber }
        guard let year = words.lazy.compactMap(Self.yearValue).first else { return nil }
        guard let monthWord = words.first(where: { word in word.count >= 3 && Self.months.contains { word.hasPrefix($0) } }) else {
            self.init(year: year, month: nil, day: nil)
            return
        }
        let month = Self.months.firstIndex { monthWord.hasPrefix($0) }! + 1
        let day = words.compactMap { Int($0) }.first { (1...31).contains($0) && $0 != year }
        self.init(year: year, month: month, day: day)
    }

    /// "YYYY", "YYYY-MM" or "YYYY-MM-DD" of `raw`, or nil when it holds no plausible date.
    public static func normalize(_ raw: String?) -> String? { PublishDate(parsing: raw)?.text }

    public var text: String {
        var text = String(format: "%04d", year)
        if let month { text += String(format: "-%02d", month) }
        if month != nil, let day { text += String(format: "-%02d", day) }
        return text
    }

    /// Compares at the precision both dates share; when they agree that far, the more
    /// precise date counts as earlier (it says more and contradicts nothing).
    public static func isEarlier(_ candidate: PublishDate, than current: PublishDate?) -> Bool {
        guard let current else { return true }
        if candidate.year != current.year { return candidate.year < current.year }
        switch (candidate.month, current.month) {
        case let (c?, e?) where c != e: return c < e
        case (nil, _): return false
        case (_?, nil): return true
        default: break
        }
        switch (candidate.day, current.day) {
        case let (c?, e?): return c < e
        case (_?, nil): return true
        default: return false
        }
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// "YYYY", "YYYY-MM", "YYYY-MM-DD" (optionally followed by a time) with valid ranges.
    private static func isoPrefix(_ raw: String) -> PublishDate? {
        let parts = raw.prefix(10).split(separator: "-", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), parts[0].count == 4, let year = Int(parts[0]), year >= 1000 else { return nil }
        guard raw.count == 4 || raw.count == 7 || raw.count == 10 || raw.dropFirst(10).first == "T" else { return nil }
        var month: Int?, day: Int?
        if parts.count >= 2 {
            guard parts[1].count == 2, let value = Int(parts[1]), (1...12).contains(value) else { return nil }
            month = value
        }
        if parts.count == 3 {
            guard parts[2].count == 2, let value = Int(parts[2]), (1...31).contains(value) else { return nil }
            day = value
        }
        return PublishDate(year: year, month: month, day: day)
    }

    private static func yearValue(_ word: Substring) -> Int? {
        let digits = word.drop { !$0.isNumber }  // "c1995" -> "1995"
        guard digits.count == 4, let year = Int(digits), (1000...2999).contains(year) else { return nil }
        return year
    }
}
