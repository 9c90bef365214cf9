import BarcodeReading
import BookCodes
import BookLookup
import Catalogue
import Foundation
import Pipeline
import TestSupport
import Testing

/// `ScanSession` with a fake decoder (no zbar): files in capture order through the stages,
/// and the resume rule — a file is marked processed only after its outcomes are committed,
/// and only when every outcome is settled.
@Suite struct ScanSessionTests {
    @Test func framesAreAppliedInCaptureOrderAndMarkedOnlyWhenSettled() async throws {
        try await withTemporaryDirectory { directory in
            let catalogue = try Catalogue(path: directory.appendingPathComponent("library.sqlite").path)
            let photos = directory.appendingPathComponent("photos")
            try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
            let owned = try cachedBook(1, in: catalogue)
            let unknown = generatedISBN(2, prefix: "978")  // offline: queued (settled)
            // Names carry the capture time; listed out of order on purpose.
            let names = ["IMG_20261122_101532.jpg", "IMG_20261122_101530.jpg", "IMG_20261122_101531.jpg"]
            for name in names { try Data("x".utf8).write(to: photos.appendingPathComponent(name)) }
            let decoder = FakeDecoder(outcomes: [
                "IMG_20261122_101530.jpg": .read([bookCode(owned)]),
                "IMG_20261122_101531.jpg": .unreadable(reason: "not a JPEG"),
                "IMG_20261122_101532.jpg": .read([bookCode(unknown)]),
            ])
            let output = CollectingOutput()
            let pipeline = SessionPipeline.offline(catalogue, output: output)
            let session = ScanSession(options: .init(paths: [photos]), catalogue: catalogue, decoder: decoder)
            let summary = await session.run(pipeline: pipeline, output: output, interrupt: nil)

            #expect(output.events.map { URL(fileURLWithPath: $0.file).lastPathComponent } == names.sorted())
            #expect(output.kinds == [.added, .unreadable, .queued])
            #expect(summary.totals.frames == 2 && summary.totals.unreadable == 1)
            let frames = try names.sorted().map { try Frame.file(at: photos.appendingPathComponent($0)) }
            let marked = try frames.map { try catalogue.isProcessed(path: $0.resumeKey, size: $0.size, modified: $0.modified) }
            #expect(marked == [true, false, true], "the unreadable file is read again by the next run")

            // The next run skips what was settled and reads the rest again.
            let again = CollectingOutput()
            let next = SessionPipeline.offline(catalogue, output: again)
            let resumed = await ScanSession(options: .init(paths: [photos]), catalogue: catalogue, decoder: decoder)
                .run(pipeline: next, output: again, interrupt: nil)
            #expect(resumed.totals.alreadyProcessed == 2)
            #expect(again.kinds == [.unreadable])
        }
    }

    /// Places the reader would not report (two different valid codes at one place, a code
    /// read once too weakly, a code whose digits the pixels contradict) are counted in the session's totals, so `scan`'s summary says what it refused.
    @Test func ambiguousPlacesAreCountedNotReported() async throws {
        try await withTemporaryDirectory { directory in
            let catalogue = try Catalogue.inMemory()
            for name in ["a.jpg", "b.jpg"] { try Data("x".utf8).write(to: directory.appendingPathComponent(name)) }
            let decoder = FakeDecoder(outcomes: ["a.jpg": .read([], ambiguities: 2), "b.jpg": .read([], unconfirmed: 1, contradicted: 1)])
            let output = CollectingOutput()
            let pipeline = SessionPipeline.offline(catalogue, output: output)
            let summary = await ScanSession(options: .init(paths: [directory]), catalogue: catalogue, decoder: decoder)
                .run(pipeline: pipeline, output: output, interrupt: nil)
            #expect(summary.totals.frames == 2)
            #expect(summary.totals.ambiguous == 2)
            #expect(summary.totals.unconfirmed == 1)
            #expect(summary.totals.contradicted == 1)
            #expect(summary.totals.codes == 0)
        }
    }
}

extension SessionPipeline {
    /// A pipeline with no metadata source, offline: unknown books are queued.
    static func offline(_ catalogue: Catalogue, output: any EventOutput) -> SessionPipeline {
        SessionPipeline(catalogue: catalogue, lookup: LookupService(catalogue: catalogue, sources: []), settings: .init(offline: true), output: output)
    }
}

/// A decoder that returns a fixed outcome per file name, in the order given (as the real
/// one does), without reading the files.
struct FakeDecoder: BatchDecoder {
    let outcomes: [String: DecodedFrame.Outcome]

    func decode(_ frames: [Frame], stopWhen shouldStop: @escaping @Sendable () -> Bool) -> AsyncStream<DecodedFrame> {
        let decoded = frames.map { DecodedFrame(frame: $0, outcome: outcomes[$0.url.lastPathComponent] ?? .read([])) }
        return AsyncStream { continuation in
            for frame in decoded { continuation.yield(frame) }
            continuation.finish()
        }
    }
}
