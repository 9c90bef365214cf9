import BarcodeReading
import Foundation
import Pipeline
import TestSupport
import Testing

/// The watch decode stage with real zbar on SampleImages: results come out in landing order
/// whatever thread finished first; with a drop policy every frame still comes out once.
@Suite struct LiveDecoderTests {
    private let samples = [
        "isbn-9780306406157.png", "none-blank.png", "isbn-9781250313188-usd.png", "ean13-4006381333931.png",
        "isbn-9780990582939-noprice.png", "upca-036000291452.png", "isbn-9781761186769-aud.png", "none-scene.jpg",
    ]

    private func frames() throws -> [Frame] {
        try samples.map { try Frame.file(at: SharedFiles.sampleImages.appendingPathComponent($0)) }
    }

    @Test func keepsLandingOrderOnTwoThreads() async throws {
        let decoder = try LiveDecoder(workers: 2, keepNewest: 0) { try FileFrameDecoder() }
        let frames = try frames()
        for frame in frames { decoder.submit(frame) }
        decoder.finish()
        var out: [DecodedFrame] = []
        for await decoded in decoder.results { out.append(decoded) }
        #expect(out.map(\.frame.path) == frames.map(\.path))
        guard case .read(let codes, _, _, _, _) = out[0].outcome else { Issue.record("first frame not read"); return }
        #expect(ReadCode.confirmed(from: codes).compactMap(\.debounceKey) == ["9780306406157"])
        guard case .read(let none, _, _, _, _) = out[1].outcome else { Issue.record("blank frame not read"); return }
        #expect(none.isEmpty)
    }

    @Test func dropsStaleFramesButAccountsForEveryOne() async throws {
        let decoder = try LiveDecoder(workers: 1, keepNewest: 1) { try FileFrameDecoder() }
        let frames = try frames() + frames() + frames()
        for frame in frames { decoder.submit(frame) }  // far faster than one thread decodes
        decoder.finish()
        var decoded: [String] = []
        var dropped = 0
        for await result in decoder.results {
            if case .dropped = result.outcome { dropped += 1 } else { decoded.append(result.frame.path) }
        }
        #expect(decoded.count + dropped == frames.count, "every frame is decoded or reported dropped")
        #expect(dropped > 0, "a single thread cannot keep up with 24 frames submitted at once")
        #expect(decoded.last == frames.last?.path, "the newest frame is never the one dropped")
    }
}
