import BarcodeReading
import Foundation
import Imaging

/// What `DeviceFrameSource` reads: a camera (`VideoCapture`), or in tests recorded frames.
public protocol FrameCamera: AnyObject, Sendable {
    var device: String { get }
    /// The next frame, waiting for it; nil once stopped.
    func next() throws(VideoCaptureError) -> VideoCapture.RawFrame?
    func stop()
}

extension VideoCapture: FrameCamera {}

/// `watch --device`: frames straight from a camera, no capture program and no files. Each
/// frame's headerless bytes become a `GrayImage` the way a raw frame file does
/// (`ImageLoader`, Y800/YUYV) and enter the live path in memory (`Frame.pixels`); its
/// capture time is the moment it was read. A camera that fails mid-watch ends the watch
/// with its error.
public final class DeviceFrameSource: LiveFrameSource {
    private let camera: any FrameCamera

    public init(camera: any FrameCamera) { self.camera = camera }

    /// Opens the camera at a size near `width`×`height`, GREY/Y800 or YUYV.
    public convenience init(device: String, width: Int = 1280, height: Int = 720) throws(VideoCaptureError) {
        self.init(camera: try VideoCapture(device: device, width: width, height: height))
    }

    public var name: String { camera.device }

    public func events() -> AsyncStream<LiveFrameEvent> {
        let (events, continuation) = AsyncStream<LiveFrameEvent>.makeStream()
        let camera = camera
        // next() waits in poll(2): a thread of its own, not the cooperative pool.
        let thread = Thread {
            var number = 0
            do {
                while let raw = try camera.next() {
                    number += 1
                    continuation.yield(.frame(try Self.frame(from: raw, device: camera.device, number: number, readAt: Date())))
                }
            } catch {
                continuation.yield(.failed(String(describing: error)))
            }
            continuation.finish()
        }
        thread.name = "rapidscan-camera"
        thread.start()
        return events
    }

    public func stop() { camera.stop() }

    /// A camera frame as the pipeline sees it: path `/dev/video0 #12` in events, pixels in memory.
    public static func frame(from raw: VideoCapture.RawFrame, device: String, number: Int,
                             readAt: Date) throws(ImageError) -> Frame {
        let fileExtension = switch raw.format { case .y800: "y800"; case .yuyv: "yuyv" }
        let loaded = try ImageLoader.load(data: raw.bytes, name: "\(device) #\(number).\(fileExtension)",
                                          options: ImageLoadOptions(rawFormat: raw.format))
        return Frame(url: URL(fileURLWithPath: device), path: "\(device) #\(number)", size: Int64(raw.bytes.count),
                     modified: readAt, captureTime: CaptureTime(date: readAt, origin: .landed), pixels: loaded.image)
    }
}
