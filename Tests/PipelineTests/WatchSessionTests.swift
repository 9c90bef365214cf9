import BarcodeReading
import BookCodes
import BookLookup
import Catalogue
import Foundation
import Pipeline
import TestSupport
import Testing

/// `WatchSession` with a fake decoder on a real inotify watch: `--consume` takes a frame
/// away only once its outcome is settled, and what the session has to say besides events
/// reaches the output as `SessionNote` values (it writes nothing to stderr itself). The test
/// stops the watch once both frames' events are out (`WatchStop`), not after an idle time
/// that a loaded machine could outlast; the idle exit is only a safety net against a hang.
@Suite struct WatchSessionTests {
    @Test func consumeRemovesSettledFramesAndNotesTheKeptOnes() async throws {
        try await withTemporaryDirectory { folder in
            let catalogue = try Catalogue(path: folder.appendingPathComponent("library.sqlite").path)
            let frames = folder.appendingPathComponent("frames")
            try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
            let isbn = try cachedBook(5, in: catalogue)
            let stop = WatchStop()
            let output = StoppingOutput(afterEvents: 2, stop: stop)
            let pipeline = SessionPipeline.offline(catalogue, output: output)
            let watch = WatchSession(options: .init(directory: frames, cleanup: .delete, idleExit: 120, workers: 1, keepAll: true))
            let good = frames.appendingPathComponent("good.jpg"), bad = frames.appendingPathComponent("bad.jpg")
            let summary = try await watch.run(pipeline: pipeline, output: output, interrupt: nil, stop: stop, makeDecoder: {
                FakeFrameDecoder(outcomes: ["good.jpg": .read([bookCode(isbn)]), "bad.jpg": .unreadable(reason: "not a JPEG")])
            }, ready: {
                try? Data("x".utf8).write(to: good)
                try? Data("x".utf8).write(to: bad)
            })
            #expect(output.kinds == [.added, .unreadable])
            #expect(summary.totals.added == 1)
            #expect(!FileManager.default.fileExists(atPath: good.path), "added: safe in the library, so consumed")
            #expect(FileManager.default.fileExists(atPath: bad.path), "unreadable: not settled, so kept")
            #expect(output.notes.first == .watching(directory: frames.path))
            #expect(output.notes.contains(.keptFrame(file: bad.path, outcomes: [.unreadable])))
        }
    }
}

/// Collects what the session reports and stops the watch once `afterEvents` events are
/// out (the frame being processed still finishes: its clean-up and notes follow).
final class StoppingOutput: EventOutput {
    private let collected = CollectingOutput()
    private let afterEvents: Int
    private let stop: WatchStop
    init(afterEvents: Int, stop: WatchStop) {
        self.afterEvents = afterEvents
        self.stop = stop
    }
    var kinds: [ScanEvent.Kind] { collected.kinds }
    var events: [ScanEvent] { collected.events }
    var notes: [SessionNote] { collected.notes }
    func started(totalFrames: Int?) { collected.started(totalFrames: totalFrames) }
    func emit(_ event: ScanEvent, record: SessionRecord) {
        collected.emit(event, record: record)
        if collected.events.count == afterEvents { stop.stop() }
    }
    func frameFinished(record: SessionRecord) { collected.frameFinished(record: record) }
    func note(_ note: SessionNote) { collected.note(note) }
    func finished(_ summary: SessionSummary) { collected.finished(summary) }
}

/// A frame decoder that returns a fixed outcome per file name without reading the file.
final class FakeFrameDecoder: FrameDecoder {
    let outcomes: [String: DecodedFrame.Outcome]
    init(outcomes: [String: DecodedFrame.Outcome]) { self.outcomes = outcomes }
    func decode(_ frame: Frame) -> DecodedFrame.Outcome { outcomes[frame.url.lastPathComponent] ?? .read([]) }
}
