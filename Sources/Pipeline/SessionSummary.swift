import Foundation

/// The end of a session: totals, unreadable files, how long it took and whether it was cut short.
public struct SessionSummary: Sendable {
    public var totals: SessionRecord.Totals
    public var unreadableFiles: [(file: String, reason: String)]
    public var elapsed: TimeInterval
    public var interrupted: Bool

    public init(record: SessionRecord, elapsed: TimeInterval, interrupted: Bool) {
        totals = record.totals
        unreadableFiles = record.unreadableFiles
        self.elapsed = elapsed
        self.interrupted = interrupted
    }

    public var framesPerSecond: Double { elapsed > 0 ? Double(totals.frames) / elapsed : 0 }

    /// `{"event":"summary",…}`: the last line of `--json` output.
    public var jsonLine: JSONLine {
        var line = JSONLine()
        line.set("schema", .int(JSONLinesOutput.schema))
        line.set("event", "summary")
        let t = totals
        let counts: [(String, Int)] = [
            ("frames", t.frames), ("codes", t.codes), ("added", t.added), ("alreadyOwned", t.alreadyOwned),
            ("notFound", t.notFound), ("libraryFull", t.libraryFull), ("queued", t.queued),
            ("nonBook", t.nonBook), ("rejected", t.rejected), ("debounced", t.debounced),
            ("unreadable", t.unreadable), ("noCode", t.noCode), ("dropped", t.dropped),
            ("failed", t.failed), ("alreadyProcessed", t.alreadyProcessed),
        ]
        for (key, value) in counts { line.set(key, .int(value)) }
        line.set("elapsedSeconds", .double(elapsed))
        line.set("interrupted", .bool(interrupted))
        line.set("unreadableFiles", .array(unreadableFiles.map { entry in
            var object = JSONLine()
            object.set("file", entry.file)
            object.set("reason", entry.reason)
            return .object(object)
        }))
        return line
    }

    /// The human summary printed at the end of `scan` and `watch`.
    public var humanLines: [String] {
        let t = totals
        var lines: [String] = []
        let rate = String(format: "%.1f", framesPerSecond)
        let time = String(format: "%.1f", elapsed)
        lines.append("\(interrupted ? "Interrupted after" : "Scanned") \(t.frames) frame\(t.frames == 1 ? "" : "s") in \(time) s (\(rate)/s), \(t.codes) code\(t.codes == 1 ? "" : "s") read")
        lines.append("  Added to Library:   \(t.added)")
        lines.append("  Already in Library: \(t.alreadyOwned)")
        lines.append("  Book Not Found:     \(t.notFound)")
        if t.libraryFull > 0 { lines.append("  Library Full:       \(t.libraryFull) (not added; `rapidscan account --pro` lifts the 50-book limit)") }
        if t.queued > 0 { lines.append("  Queued:             \(t.queued) (run `rapidscan pending retry` when the lookup service answers)") }
        if t.failed > 0 { lines.append("  Failed:             \(t.failed)") }
        var other: [String] = []
        if t.nonBook > 0 { other.append("\(t.nonBook) non-book code\(t.nonBook == 1 ? "" : "s")") }
        if t.rejected > 0 { other.append("\(t.rejected) rejected check digit\(t.rejected == 1 ? "" : "s")") }
        if t.debounced > 0 { other.append("\(t.debounced) repeat\(t.debounced == 1 ? "" : "s") skipped") }
        if t.noCode > 0 { other.append("\(t.noCode) frame\(t.noCode == 1 ? "" : "s") without a barcode") }
        if t.dropped > 0 { other.append("\(t.dropped) stale frame\(t.dropped == 1 ? "" : "s") dropped") }
        if !other.isEmpty { lines.append("  " + other.joined(separator: ", ")) }
        if t.alreadyProcessed > 0 {
            lines.append("  Skipped \(t.alreadyProcessed) file\(t.alreadyProcessed == 1 ? "" : "s") processed by an earlier run (--rescan reads them again)")
        }
        // Each was reported on standard error as it came; the paths are not printed twice.
        if t.unreadable > 0 { lines.append("  Unreadable:         \(t.unreadable) (reported on standard error)") }
        if interrupted { lines.append("Run the same command again to continue where this one stopped.") }
        return lines
    }
}
