import BookCodes
import Foundation
import Pipeline

/// `scan --json`, `watch --json`: one JSON object per event, then a `summary` object, on
/// standard output; notes (warnings, "Watching …") on standard error as in human mode.
final class JSONLinesOutput: EventOutput {
    private let stream: StandardStream
    private let notes: SessionNotes

    init(stream: StandardStream = .standardOutput, quiet: Bool = false) {
        self.stream = stream
        notes = SessionNotes(quiet: quiet)
    }

    func started(totalFrames: Int?) {}

    func emit(_ event: ScanEvent, record: SessionRecord) {
        stream.write(Self.line(for: event).text + "\n")
    }

    func frameFinished(record: SessionRecord) {}

    func note(_ note: SessionNote) { notes.write(note) }

    func finished(_ summary: SessionSummary) {
        stream.write(Self.line(for: summary).text + "\n")
    }

    /// `schema`, `event`, `file`, `captureTime` always; the rest only when the outcome has them.
    static func line(for event: ScanEvent) -> JSONLine {
        var line = JSONLine()
        line.set("schema", .int(JSONSchema.version))
        line.set("event", event.kind.rawValue)
        line.set("file", event.file)
        line.set("captureTime", event.captureTime.iso8601WithMilliseconds)
        let book = event.book
        line.setIfPresent("isbn13", book?.isbn13.digits)
        line.setIfPresent("title", book?.title)
        if let addOn = book?.addOn {
            // An object, as in `decode --json`: text, symbology, price (or null).
            var object = JSONLine()
            object.set("text", addOn.text)
            object.set("symbology", addOn.symbology.rawValue)
            object.set("price", addOn.price?.description)
            line.set("addon", .object(object))
        }
        line.setIfPresent("symbology", event.printedCode?.symbology.rawValue ?? (book?.isPrinted == true ? Symbology.printed.rawValue : nil))
        line.setIfPresent("code", event.printedCode?.text)
        if case let .queued(_, provenance, _) = event.outcome { line.set("source", provenance.name) }
        line.setIfPresent("reason", event.reason)
        if case let .libraryFull(_, owned, limit) = event.outcome {
            line.set("owned", .int(owned))
            line.set("limit", .int(limit))
        }
        return line
    }

    /// `{"event":"summary",…}`: the last line of `--json` output.
    static func line(for summary: SessionSummary) -> JSONLine {
        var line = JSONLine()
        line.set("schema", .int(JSONSchema.version))
        line.set("event", "summary")
        let t = summary.totals
        let counts: [(String, Int)] = [
            ("frames", t.frames), ("codes", t.codes), ("added", t.added), ("alreadyOwned", t.alreadyOwned),
            ("notFound", t.notFound), ("libraryFull", t.libraryFull), ("queued", t.queued),
            ("nonBook", t.nonBook), ("rejected", t.rejected), ("ambiguous", t.ambiguous),
            ("unconfirmed", t.unconfirmed), ("contradicted", t.contradicted), ("debounced", t.debounced),
            ("unreadable", t.unreadable), ("noCode", t.noCode), ("unreadCode", t.unreadCode), ("dropped", t.dropped),
            ("failed", t.failed), ("held", t.held), ("alreadyProcessed", t.alreadyProcessed),
        ]
        for (key, value) in counts { line.set(key, .int(value)) }
        line.set("elapsedSeconds", .double(summary.elapsed))
        line.set("interrupted", .bool(summary.interrupted))
        line.set("unreadableFiles", .array(summary.unreadableFiles.map { entry in
            var object = JSONLine()
            object.set("file", entry.file)
            object.set("reason", entry.reason)
            return .object(object)
        }))
        line.set("unreadCodeFiles", .array(summary.unreadCodeFiles.map { .string($0) }))
        line.setIfPresent("station", summary.station)
        return line
    }
}
