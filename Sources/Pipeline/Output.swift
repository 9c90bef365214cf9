import BookCodes
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Stage "output": where events go. One output per session, called from the session's task
/// in capture order.
public protocol EventOutput: AnyObject {
    /// `totalFrames` is known for `scan`, nil for `watch`.
    func started(totalFrames: Int?)
    func emit(_ event: ScanEvent, record: SessionRecord)
    /// After every frame (progress bar, live panel).
    func frameFinished(record: SessionRecord)
    func finished(_ summary: SessionSummary)
}

/// A file descriptor written with write(2), so lines reach a pipe at once (no stdio buffer).
public struct OutputStream: Sendable {
    public let descriptor: Int32
    public init(descriptor: Int32) { self.descriptor = descriptor }

    public static let standardOutput = OutputStream(descriptor: STDOUT_FILENO)
    public static let standardError = OutputStream(descriptor: STDERR_FILENO)

    public var isTerminal: Bool { isatty(descriptor) == 1 }

    /// Whether escape sequences (colour, cursor moves) may go to this stream: only to a
    /// terminal, never with `NO_COLOR` set (https://no-color.org) or `TERM=dumb` (or no TERM
    /// at all), which cannot draw them. The one rule for the CLI and the interrupt handler.
    public func allowsEscapes(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        Self.allowsEscapes(isTerminal: isTerminal, environment: environment)
    }

    public static func allowsEscapes(isTerminal: Bool, environment: [String: String]) -> Bool {
        guard isTerminal else { return false }
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        guard let term = environment["TERM"], !term.isEmpty, term != "dumb" else { return false }
        return true
    }

    public func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return  // a closed pipe: nothing sensible left to do with output
            }
            offset += written
        }
        bytes.removeAll()
    }
}

/// `--json`: one JSON object per event, then a `summary` object.
public final class JSONLinesOutput: EventOutput {
    private let stream: OutputStream

    public init(stream: OutputStream = .standardOutput) { self.stream = stream }

    public func started(totalFrames: Int?) {}

    public func emit(_ event: ScanEvent, record: SessionRecord) {
        stream.write(Self.line(for: event).text + "\n")
    }

    public func frameFinished(record: SessionRecord) {}

    public func finished(_ summary: SessionSummary) {
        stream.write(summary.jsonLine.text + "\n")
    }

    /// docs/CLI.md's `"schema"` version.
    public static let schema = 1

    /// `schema`, `event`, `file`, `captureTime` always; the rest only when known.
    public static func line(for event: ScanEvent) -> JSONLine {
        var line = JSONLine()
        line.set("schema", .int(schema))
        line.set("event", event.kind.rawValue)
        line.set("file", event.file)
        line.set("captureTime", event.captureTime.iso8601WithMilliseconds)
        line.setIfPresent("isbn13", event.isbn13)
        line.setIfPresent("title", event.title)
        if let addOn = event.addOn {
            // An object, as in `decode --json`: text, symbology, price (or null).
            var object = JSONLine()
            object.set("text", addOn.text)
            object.set("symbology", addOn.symbology.rawValue)
            object.set("price", addOn.price?.description)
            line.set("addon", .object(object))
        }
        line.setIfPresent("symbology", event.symbology)
        line.setIfPresent("code", event.code)
        line.setIfPresent("source", event.source)
        line.setIfPresent("reason", event.reason)
        line.setIfPresent("owned", event.owned)
        line.setIfPresent("limit", event.limit)
        return line
    }
}

/// Terminal and log output: one toast line per event on stdout; on a terminal a progress bar
/// (scan, on stderr) or the recently-scanned panel (watch, on stdout) redrawn in place.
public final class HumanOutput: EventOutput {
    public enum Live: Sendable { case none, progressBar, panel(title: String) }
    /// `quiet`: only problems (not found, unreadable, rejected, failed, library full) and
    /// the summary; `verbose`: also repeats, frames without a code and dropped frames.
    public enum Detail: Sendable { case quiet, normal, verbose }
    /// Colours a toast line by its kind; the executable supplies one only for a terminal
    /// that wants colour (this module prints no escape codes of its own choosing).
    public typealias Colour = @Sendable (_ line: String, _ kind: ScanEvent.Kind) -> String

    private let out: OutputStream
    private let err: OutputStream
    private let live: Live
    private let detail: Detail
    private let colour: Colour
    private var totalFrames: Int?
    private let startedAt = Date()
    private var drawnLines = 0
    private var lastDraw = Date.distantPast

    /// `live` is what to redraw in place; pass `.none` when the stream is not a terminal.
    public init(live: Live, out: OutputStream = .standardOutput, err: OutputStream = .standardError,
                detail: Detail = .normal, colour: @escaping Colour = { line, _ in line }) {
        self.live = detail == .quiet ? .none : live
        self.out = out
        self.err = err
        self.detail = detail
        self.colour = colour
    }

    public func started(totalFrames: Int?) {
        self.totalFrames = totalFrames
        draw(record: SessionRecord(), force: true)
    }

    public func emit(_ event: ScanEvent, record: SessionRecord) {
        if event.kind == .unreadable {
            // A per-file error: on standard error, starting with the path, naming it once
            // (docs/CLI.md: fatal errors start `rapidscan: `, per-file ones with the file).
            clearLive()
            let reason = event.reason ?? "could not be read"
            err.write((reason.hasPrefix(event.file) ? reason : "\(event.file): \(reason)") + "\n")
            draw(record: record, force: true)
            return
        }
        guard Self.isShown(event.kind, detail: detail) else { return }
        clearLive()
        let toast = event.toast
        let subtitle = toast.subtitle.isEmpty ? "" : " — \(toast.subtitle)"
        let symbol = Self.symbol(for: event.kind)
        out.write(colour("\(symbol) \(toast.title)\(subtitle)  [\(event.file)]", event.kind) + "\n")
        draw(record: record, force: true)
    }

    /// Repeats, empty and dropped frames are counted in the summary, not toasted one by one
    /// (unless verbose); quiet shows only what went wrong.
    static func isShown(_ kind: ScanEvent.Kind, detail: Detail) -> Bool {
        switch detail {
        case .verbose: true
        case .normal: ![.debounced, .noCode, .dropped].contains(kind)
        case .quiet: [.notFound, .libraryFull, .rejected, .unreadable, .failed].contains(kind)
        }
    }

    public func frameFinished(record: SessionRecord) {
        draw(record: record, force: false)
    }

    public func finished(_ summary: SessionSummary) {
        clearLive()
        out.write(summary.humanLines.joined(separator: "\n") + "\n")
    }

    static func symbol(for kind: ScanEvent.Kind) -> String {
        switch kind {
        case .added: "✓"
        case .alreadyOwned: "="
        case .queued: "…"
        case .nonBook, .debounced, .noCode, .dropped: "·"
        default: "✗"
        }
    }

    private var liveStream: OutputStream {
        if case .progressBar = live { return err }
        return out
    }

    private func clearLive() {
        guard drawnLines > 0 else { return }
        // Back to the first drawn line, then clear to the end of the screen.
        liveStream.write(drawnLines > 1 ? "\u{1B}[\(drawnLines - 1)F\r\u{1B}[J" : "\r\u{1B}[J")
        drawnLines = 0
    }

    private func draw(record: SessionRecord, force: Bool) {
        let now = Date()
        // A redraw per frame at 30 fps would flicker and cost more than the decode.
        guard force || now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        let lines: [String]
        switch live {
        case .none: return
        case .progressBar:
            lines = [ProgressBar.render(done: record.totals.frames, total: totalFrames,
                                        elapsed: now.timeIntervalSince(startedAt), lookingUp: record.lookupsInFlight)]
        case .panel(let title):
            lines = RecentPanel.render(record: record, title: title)
        }
        clearLive()
        // The last line has no newline so the cursor stays on the panel.
        liveStream.write(lines.joined(separator: "\n"))
        drawnLines = lines.count
        lastDraw = now
    }
}

/// `[##########----------]  120/200 frames  35.2/s  ETA 0:02`
public enum ProgressBar {
    /// `lookingUp`: books waiting for a source; while the network is slow no frame
    /// finishes, and the line says what the run is waiting for instead of standing at 0.0/s.
    public static func render(done: Int, total: Int?, elapsed: TimeInterval, lookingUp: Int = 0, width: Int = 30) -> String {
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let waiting = lookingUp > 0 ? "  \(lookingUp) looking up" : ""
        let rateText = String(format: "%.1f/s", rate) + waiting
        guard let total, total > 0 else { return "\(done) frames  \(rateText)" }
        let fraction = min(1, Double(done) / Double(total))
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let eta = rate > 0 ? clock(Double(total - done) / rate) : "--:--"
        return "[\(bar)] \(done)/\(total) frames  \(rateText)  ETA \(eta)"
    }

    /// 75 → "1:15", 3725 → "1:02:05".
    public static func clock(_ seconds: TimeInterval) -> String {
        let s = max(0, Int(seconds.rounded()))
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
                         : String(format: "%d:%02d", s / 60, s % 60)
    }
}

/// The RapidScan "Recently Scanned" list as terminal lines: a header with the badge and
/// totals, then up to ten scans, newest first.
public enum RecentPanel {
    public static func render(record: SessionRecord, title: String) -> [String] {
        let t = record.totals
        var lines = ["\(title) — \(record.badge) added · \(t.frames) frames · \(t.codes) codes · \(t.debounced) repeats · \(t.rejected) rejected · \(t.dropped) dropped"]
        if record.recent.isEmpty { lines.append("  (no books yet: slide one under the camera)") }
        for scan in record.recent {
            let state = scan.state.label.padding(toLength: 16, withPad: " ", startingAt: 0)
            let name = scan.title.map { String($0.prefix(48)) } ?? ""
            lines.append("  \(state) \(scan.isbn13)  \(name)")
        }
        return lines
    }
}
