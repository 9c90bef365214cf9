import BarcodeReading
import BookCodes
import BookMetadata
import Catalogue
import Foundation
import Imaging
import Pipeline
import Synchronization
import TestSupport
import Testing

/// `watch --device` without a camera: a stand-in `FrameCamera` serves recorded frames
/// (SampleImages turned into the headerless Y800 and YUYV bytes a V4L2 camera gives) to the
/// real `DeviceFrameSource`, `WatchSession`, `LiveFrameDecoder` (real zbar) and a real
/// catalogue. What libzbar's video calls do on a real camera is not exercised here (no
/// camera on these machines); the device errors are tried through the binary (CLITests).
@Suite struct DeviceFrameSourceTests {
    static let device = "/dev/video-recorded"

    /// The image's luma as a camera in GREY/Y800 would deliver it.
    static func y800(_ sample: String) throws -> VideoCapture.RawFrame {
        let image = try ImageLoader.load(contentsOf: SharedFiles.sampleImages.appendingPathComponent(sample)).image
        return VideoCapture.RawFrame(bytes: Data(image.pixels), format: .y800(width: image.width, height: image.height))
    }

    /// The same as YUYV (`Y0 U Y1 V`, chroma neutral); the width made even, as YUYV needs.
    static func yuyv(_ sample: String) throws -> VideoCapture.RawFrame {
        let image = try ImageLoader.load(contentsOf: SharedFiles.sampleImages.appendingPathComponent(sample)).image
        let width = image.width & ~1
        var bytes = Data(capacity: width * image.height * 2)
        for y in 0..<image.height {
            for x in 0..<width { bytes.append(contentsOf: [image.pixels[y * image.width + x], 128]) }
        }
        return VideoCapture.RawFrame(bytes: bytes, format: .yuyv(width: width, height: image.height))
    }

    @Test func recordedCameraFramesReachTheLibraryThroughTheLivePath() async throws {
        try await withTemporaryDirectory { folder in
            let catalogue = try Catalogue(path: folder.appendingPathComponent("library.sqlite").path)
            let books = ["9780306406157", "9782070427796", "9781250313188"]
            for digits in books {
                let isbn = try ISBN13(validating: digits)
                _ = try catalogue.record(EditionMetadata(isbn13: digits, title: "Book \(digits)", authors: ["A. Author"],
                                                         apiSource: "googleBooks"), for: isbn)
            }
            let camera = RecordedCamera(device: Self.device, frames: [
                try Self.y800("scene-two-books.jpg"),          // 1280×720: two books
                try Self.yuyv("isbn-9781250313188-usd.png"),
            ])
            let stop = WatchStop()
            let output = StoppingOutput(afterEvents: 3, stop: stop)
            let pipeline = SessionPipeline.offline(catalogue, output: output)
            let watch = WatchSession(options: .init(directory: URL(fileURLWithPath: Self.device), idleExit: 120,
                                                    workers: 1, keepAll: true))
            let summary = try await watch.run(source: DeviceFrameSource(camera: camera), pipeline: pipeline, output: output,
                                              interrupt: nil, stop: stop, makeDecoder: { try LiveFrameDecoder() })
            #expect(output.kinds == [.added, .added, .added])
            #expect(Set(output.events.compactMap { $0.book?.isbn13.digits }) == Set(books))
            #expect(output.events.map(\.file) == ["\(Self.device) #1", "\(Self.device) #1", "\(Self.device) #2"])
            #expect(summary.totals.added == 3)
            #expect(output.notes.first == .watching(directory: Self.device))
            #expect(camera.stopped, "the watch's stop reaches the camera")
        }
    }

    @Test func aCameraThatFailsEndsTheWatchWithItsErrorAfterTheSummary() async throws {
        try await withTemporaryDirectory { folder in
            let catalogue = try Catalogue(path: folder.appendingPathComponent("library.sqlite").path)
            let camera = RecordedCamera(device: Self.device, frames: [try Self.y800("none-blank.png")],
                                        then: .failed(Self.device, detail: "the camera stopped sending frames (unplugged?)"))
            let output = CollectingOutput()
            let pipeline = SessionPipeline.offline(catalogue, output: output)
            let watch = WatchSession(options: .init(directory: URL(fileURLWithPath: Self.device), idleExit: 120,
                                                    workers: 1, keepAll: true))
            let error = await #expect(throws: WatchSession.SourceFailed.self) {
                try await watch.run(source: DeviceFrameSource(camera: camera), pipeline: pipeline, output: output,
                                    interrupt: nil, makeDecoder: { try LiveFrameDecoder() })
            }
            #expect(error?.reason == "\(Self.device): the camera stopped sending frames (unplugged?)")
            #expect(output.summary?.totals.frames == 1, "the frame read before the failure was processed and summed up")
        }
    }

    @Test func aFrameOfTheWrongSizeIsRefusedNamingTheDeviceAndFrame() throws {
        let raw = VideoCapture.RawFrame(bytes: Data(repeating: 0, count: 100), format: .yuyv(width: 1280, height: 720))
        #expect(throws: ImageError.self) {
            try DeviceFrameSource.frame(from: raw, device: Self.device, number: 7, readAt: Date())
        }
        let good = try DeviceFrameSource.frame(from: try Self.y800("isbn-9780306406157.png"), device: Self.device,
                                               number: 7, readAt: Date(timeIntervalSince1970: 5))
        #expect(good.path == "\(Self.device) #7")
        #expect(good.captureTime == CaptureTime(date: Date(timeIntervalSince1970: 5), origin: .landed))
        #expect(good.pixels?.width == (try Self.y800("isbn-9780306406157.png")).format.width)
    }
}

/// Serves its frames in order, then either waits like an idle camera until stopped or fails
/// with `then`.
final class RecordedCamera: FrameCamera {
    let device: String
    private let state: Mutex<(frames: [VideoCapture.RawFrame], stopped: Bool)>
    private let ending: VideoCaptureError?
    private let wake = DispatchSemaphore(value: 0)

    init(device: String, frames: [VideoCapture.RawFrame], then ending: VideoCaptureError? = nil) {
        self.device = device
        state = Mutex((frames, false))
        self.ending = ending
    }

    var stopped: Bool { state.withLock { $0.stopped } }

    func next() throws(VideoCaptureError) -> VideoCapture.RawFrame? {
        let frame = state.withLock { state -> VideoCapture.RawFrame? in
            guard !state.stopped, !state.frames.isEmpty else { return nil }
            return state.frames.removeFirst()
        }
        if let frame { return frame }
        if let ending, !stopped { throw ending }
        if !stopped { wake.wait() }
        return nil
    }

    func stop() {
        state.withLock { $0.stopped = true }
        wake.signal()
    }
}
