import BookCodes
import BookLookup
import BookMetadata
import Foundation
import Intake
import Pipeline

/// Terminal and log output of `scan` and `watch`: one toast line per event on stdout; on a
/// terminal a progress bar (scan, on stderr) or the recently-scanned panel (watch, on
/// stdout) redrawn in place; notes and per-file errors on stderr.
final class HumanOutput: EventOutput {
    enum Live: Sendable { case none, progressBar, panel(title: String) }
    /// `quiet`: only problems (not found, unreadable, rejected, failed, library full) and
    /// the summary; `verbose`: also repeats, frames without a code and dropped frames.
    enum Detail: Sendable { case quiet, normal, verbose }
    /// Colours a toast line by its kind (`Terminal.toastColour`: only for a terminal that wants colour).
    typealias Colour = @Sendable (_ line: String, _ kind: ScanEvent.Kind) -> String

    private let out: StandardStream
    private let err: StandardStream
    private let live: Live
    private let detail: Detail
    private let colour: Colour
    private let notes: SessionNotes
    private var totalFrames: Int?
    private let startedAt = Date()
    private var drawnLines = 0
    private var lastDraw = Date.distantPast
    /// What the live display last showed, drawn again after a note printed above it.
    private var lastRecord = SessionRecord()
    /// `watch` retries its queue itself this often (seconds); nil: `pending retry` does.
    private let retryEvery: Int?
    /// Why books are queued is said once per source, not on every queued toast.
    private var queuedReasonsSaid: Set<LookupProvenance> = []

    /// `live` is what to redraw in place; pass `.none` when the stream is not a terminal.
    init(live: Live, out: StandardStream = .standardOutput, err: StandardStream = .standardError,
         detail: Detail = .normal, colour: @escaping Colour = { line, _ in line }, retryEvery: Int? = nil) {
        self.live = detail == .quiet ? .none : live
        self.retryEvery = retryEvery
        self.out = out
        self.err = err
        self.detail = detail
        self.colour = colour
        notes = SessionNotes(stream: err, quiet: detail == .quiet)
    }

    func started(totalFrames: Int?) {
        self.totalFrames = totalFrames
        draw(record: SessionRecord(), force: true)
    }

    func emit(_ event: ScanEvent, record: SessionRecord) {
        if case .unreadable(let reason) = event.outcome {
            // A per-file error: on standard error, starting with the path, naming it once
            // (docs/CLI.md: fatal errors start `rapidscan: `, per-file ones with the file).
            clearLive()
            // The path shown escaped: a name may hold ESC or a newline (OutsideText.shown).
            let file = OutsideText.shown(event.file)
            let shownReason = file == event.file ? reason : reason.replacingOccurrences(of: event.file, with: file)
            err.write((shownReason.hasPrefix(file) ? shownReason : "\(file): \(shownReason)") + "\n")
            draw(record: record, force: true)
            return
        }
        guard Self.isShown(event.kind, detail: detail) else { return }
        clearLive()
        if case let .queued(_, provenance, reason) = event.outcome, queuedReasonsSaid.insert(provenance).inserted {
            err.write(IntakeWording.queuedNote(provenance, reason: reason, retryEvery: retryEvery) + "\n")
        }
        let toast = event.toast
        let subtitle = toast.subtitle.isEmpty ? "" : " — \(toast.subtitle)"
        let symbol = Self.symbol(for: event.kind)
        out.write(colour("\(symbol) \(toast.title)\(subtitle)  [\(OutsideText.shown(event.file))]", event.kind) + "\n")
        draw(record: record, force: true)
    }

    /// A note is printed above the live panel (or bar), which is then drawn again below it:
    /// written into the panel, the next redraw would erase it.
    func note(_ note: SessionNote) {
        guard drawnLines > 0 else { return notes.write(note) }
        clearLive()
        notes.write(note)
        redrawLast()
    }

    /// Repeats, empty and dropped frames are counted in the summary, not toasted one by one
    /// (unless verbose); quiet shows only what went wrong.
    static func isShown(_ kind: ScanEvent.Kind, detail: Detail) -> Bool {
        switch detail {
        case .verbose: true
        // A barcode that could not be read is listed in the summary (webcam frames show many
        // while a book slides in), and toasted one by one only when verbose.
        case .normal: ![.debounced, .noCode, .unreadCode, .dropped].contains(kind)
        case .quiet: [.notFound, .libraryFull, .rejected, .unreadable, .failed].contains(kind)
        }
    }

    func frameFinished(record: SessionRecord) {
        draw(record: record, force: false)
    }

    func finished(_ summary: SessionSummary) {
        clearLive()
        out.write(summary.humanLines.joined(separator: "\n") + "\n")
    }

    static func symbol(for kind: ScanEvent.Kind) -> String {
        switch kind {
        case .added: "✓"
        case .alreadyOwned: "="
        case .queued, .held: "…"
        case .nonBook, .debounced, .noCode, .dropped: "·"
        default: "✗"
        }
    }

    private var liveStream: StandardStream {
        if case .progressBar = live { return err }
        return out
    }

    private func clearLive() {
        guard drawnLines > 0 else { return }
        // Back to the first drawn line, then clear to the end of the screen.
        liveStream.write(drawnLines > 1 ? "\u{1B}[\(drawnLines - 1)F\r\u{1B}[J" : "\r\u{1B}[J")
        drawnLines = 0
    }

    private func redrawLast() { draw(record: lastRecord, force: true) }

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
        lastRecord = record
        // A line wider than the terminal wraps onto a second row the cursor-up count misses,
        // leaving old copies of the header behind: each is cut to the width.
        let width = Terminal.columns(of: liveStream.descriptor)
        let fitted = lines.map { $0.count < width ? $0 : String($0.prefix(max(1, width - 2))) + "…" }
        // The last line has no newline so the cursor stays on the panel.
        liveStream.write(fitted.joined(separator: "\n"))
        drawnLines = lines.count
        lastDraw = now
    }
}

/// A session's notes in words, on standard error (both output modes).
struct SessionNotes {
    var stream: StandardStream = .standardError
    /// `--quiet`: no "Watching …" notice (warnings still go out).
    var quiet: Bool

    func write(_ note: SessionNote) {
        if let text = Self.text(for: note, quiet: quiet) { stream.write(text + "\n") }
    }

    static func text(for note: SessionNote, quiet: Bool) -> String? {
        let shown: (String) -> String = OutsideText.shown
        return switch note {
        case .watching(let directory):
            quiet ? nil : "Watching \(shown(directory)) for frames (Ctrl-C to stop)"
        case .watchOverflowed:
            "rapidscan: warning: inotify queue overflowed; some frames were not seen"
        case .directoryGone(let directory):
            "rapidscan: \(shown(directory)) was removed or moved; stopping"
        case let .keptFrame(file, outcomes):
            "rapidscan: kept \(shown(file)): \(Set(outcomes.map(\.rawValue)).sorted().joined(separator: ", ")) (not settled in the library)"
        case let .cannotMove(file, directory, reason):
            "rapidscan: cannot move \(shown(file)) to \(shown(directory)): \(reason)"
        case let .resumeStateUnreadable(file, reason):
            "warning: \(shown(file)): cannot read whether it was already scanned (\(reason)); scanning it again"
        case let .notMarkedProcessed(file, reason):
            "warning: \(shown(file)): its books are stored but the file could not be marked scanned (\(reason)); a later scan reads it again"
        case let .queueRetryFailed(reason):
            "rapidscan: warning: could not retry the queued lookups (\(reason)); `rapidscan pending retry` tries them later"
        case let .serverLost(reason, file):
            "rapidscan: \(reason); stopped at \(shown(file)): it and the files after it are not marked scanned, so the same command "
                + "run again once the server answers reads them and adds their books (none twice)"
        case let .notMarkedAfterInterrupt(file):
            "\(shown(file)): interrupted before its books were looked up (queued); the same command reads it again and adds them"
        }
    }
}

extension ScanEvent {
    /// " (from the printed ISBN)" for a book read from its printed ISBN: no bars vouch for it.
    static func printedNote(_ book: ScannedBook) -> String { book.isPrinted ? " (\(IntakeWording.printedISBN))" : "" }

    /// The toast a person sees: the seed's titles and subtitles.
    var toast: (title: String, subtitle: String) {
        let isbn = book.map { " (ISBN \(IntakeWording.shown($0.isbn13)))" } ?? ""
        let printed = printedCode.map { "\($0.symbology.rawValue) \($0.text)" } ?? ""
        switch outcome {
        // Book outcomes: the intake's one wording table (the same titles and hints in every command).
        case .added(let book): return (IntakeWording.title(.added), (book.title ?? "ISBN \(IntakeWording.shown(book.isbn13))") + Self.printedNote(book))
        case .alreadyOwned(let book):
            return (IntakeWording.title(.alreadyOwned), (book.title ?? "ISBN \(IntakeWording.shown(book.isbn13))") + Self.printedNote(book))
        case .notFound(let book):
            // The code was read and confirmed: scanning it again cannot help; adding it by hand can.
            return (IntakeWording.title(.notFound), "no source knows ISBN \(IntakeWording.shown(book.isbn13)); \(IntakeWording.addByHand(book.isbn13).text)")
        case let .libraryFull(book, owned, limit):
            return (IntakeWording.title(.libraryFull), "\(owned)/\(limit) books: \(IntakeWording.upgrade.text) (ISBN \(IntakeWording.shown(book.isbn13)) not added)")
        case let .queued(_, provenance, _):
            // Why and how it is retried are said once, in the note before the first queued toast.
            let waiting = provenance == .offline ? "offline" : "waiting for \(provenance.displayName)"
            return (IntakeWording.title(.queued), waiting + isbn)
        case .nonBook: return ("Not a Book", "\(printed) is a product code, not looked up")
        case let .rejected(_, _, reason): return ("Rejected", "\(printed): \(reason)")
        case .debounced: return ("Repeat Skipped", "\(book.map { "ISBN \(IntakeWording.shown($0.isbn13))" } ?? printed) seen moments ago")
        case .unreadable(let reason): return ("Unreadable", reason)
        case .noCode: return ("No Barcode", "")
        case .unreadCode: return (IntakeWording.unreadCodeTitle, "a barcode is there but could not be read")
        case .dropped: return ("Dropped", "newer frames were waiting")
        case let .failed(book, reason): return ("Failed", "\(book.title ?? "ISBN \(IntakeWording.shown(book.isbn13))"): \(reason)")
        case let .held(book, reason):
            return ("Held", "ISBN \(IntakeWording.shown(book.isbn13)) kept in this station's journal, added when the library answers (\(reason))")
        }
    }
}

extension SessionSummary {
    /// Files named in the re-shoot list of the human summary (a webcam session can hold many).
    static let unreadCodeFilesShown = 20

    /// The human summary printed at the end of `scan` and `watch`.
    var humanLines: [String] {
        let t = totals
        var lines: [String] = []
        let rate = String(format: "%.1f", framesPerSecond)
        let time = String(format: "%.1f", elapsed)
        lines.append("\(interrupted ? "Interrupted after" : "Scanned") \(t.frames) frame\(t.frames == 1 ? "" : "s") in \(time) s (\(rate)/s), \(t.codes) code\(t.codes == 1 ? "" : "s") read")
        lines.append("  Added to Library:   \(t.added)")
        lines.append("  Already in Library: \(t.alreadyOwned)")
        lines.append("  Book Not Found:     \(t.notFound)")
        if t.libraryFull > 0 { lines.append("  Library Full:       \(t.libraryFull) (not added; \(IntakeWording.upgrade.text))") }
        if t.queued > 0 { lines.append("  Queued:             \(t.queued) (\(IntakeWording.retryPending.text))") }
        if t.failed > 0 { lines.append("  Failed:             \(t.failed)") }
        if t.held > 0 { lines.append("  Held:               \(t.held) (in this station's journal: the next `rapidscan watch` on this library adds them)") }
        var other: [String] = []
        if t.nonBook > 0 { other.append("\(t.nonBook) non-book code\(t.nonBook == 1 ? "" : "s")") }
        if t.rejected > 0 { other.append("\(t.rejected) code\(t.rejected == 1 ? "" : "s") rejected") }
        if t.ambiguous > 0 { other.append("\(t.ambiguous) ambiguous, not reported") }
        if t.unconfirmed > 0 { other.append("\(t.unconfirmed) unconfirmed, not reported") }
        if t.contradicted > 0 { other.append("\(t.contradicted) contradicted by the pixels, not reported") }
        if t.debounced > 0 { other.append("\(t.debounced) repeat\(t.debounced == 1 ? "" : "s") skipped") }
        if t.noCode > 0 { other.append("\(t.noCode) frame\(t.noCode == 1 ? "" : "s") without a barcode") }
        if t.dropped > 0 { other.append("\(t.dropped) stale frame\(t.dropped == 1 ? "" : "s") dropped") }
        if !other.isEmpty { lines.append("  " + other.joined(separator: ", ")) }
        if t.unreadCode > 0 {
            // The files to take again, and only those: a barcode was seen there and not read.
            lines.append("  \(IntakeWording.unreadCodeTitle): \(t.unreadCode)")
            let shownFiles = unreadCodeFiles.prefix(Self.unreadCodeFilesShown)
            lines += shownFiles.map { "    \(OutsideText.shown($0))" }
            if unreadCodeFiles.count > shownFiles.count {
                lines.append("    … and \(unreadCodeFiles.count - shownFiles.count) more (`--json` lists them all)")
            }
        }
        if t.alreadyProcessed > 0 {
            lines.append("  Skipped \(t.alreadyProcessed) file\(t.alreadyProcessed == 1 ? "" : "s") processed by an earlier run (--rescan reads them again)")
        }
        // Each was reported on standard error as it came; the paths are not printed twice.
        if t.unreadable > 0 { lines.append("  Unreadable:         \(t.unreadable) (reported on standard error)") }
        if let station { lines.append("  Station:            \(OutsideText.shown(station))") }
        if interrupted { lines.append("Run the same command again to continue where this one stopped.") }
        return lines
    }
}

/// `[##########----------]  120/200 frames  35.2/s  ETA 0:02`
enum ProgressBar {
    /// `lookingUp`: books waiting for a source; while the network is slow no frame
    /// finishes, and the line says what the run is waiting for instead of standing at 0.0/s.
    static func render(done: Int, total: Int?, elapsed: TimeInterval, lookingUp: Int = 0, width: Int = 30, unit: String = "frames") -> String {
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let waiting = lookingUp > 0 ? "  \(lookingUp) looking up" : ""
        let rateText = String(format: "%.1f/s", rate) + waiting
        guard let total, total > 0 else { return "\(done) \(unit)  \(rateText)" }
        let fraction = min(1, Double(done) / Double(total))
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let eta = rate > 0 ? clock(Double(total - done) / rate) : "--:--"
        return "[\(bar)] \(done)/\(total) \(unit)  \(rateText)  ETA \(eta)"
    }

    /// 75 → "1:15", 3725 → "1:02:05".
    static func clock(_ seconds: TimeInterval) -> String {
        let s = max(0, Int(seconds.rounded()))
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
                         : String(format: "%d:%02d", s / 60, s % 60)
    }
}

/// The RapidScan "Recently Scanned" list as terminal lines: a header with the badge and
/// totals, then up to ten scans, newest first.
enum RecentPanel {
    static func render(record: SessionRecord, title: String) -> [String] {
        let t = record.totals
        var lines = ["\(title) — \(record.badge) added · \(t.frames) frames · \(t.codes) codes · \(t.debounced) repeats · \(t.rejected) rejected · \(t.dropped) dropped"]
        if record.recent.isEmpty { lines.append("  (no books yet: slide one under the camera)") }
        for scan in record.recent {
            let state = scan.state.label.padding(toLength: 16, withPad: " ", startingAt: 0)
            let name = scan.title.map { String($0.prefix(48)) } ?? ""
            lines.append("  \(state) \(IntakeWording.shown(scan.isbn13))  \(name)")
        }
        return lines
    }
}
