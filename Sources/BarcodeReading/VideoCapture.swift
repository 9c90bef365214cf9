import CLazyLibraries
import CZBar
import Foundation
import Imaging
#if canImport(Glibc)
import Glibc
#endif

/// Why a capture device gave no frames; each names the device.
public enum VideoCaptureError: Error, Sendable, Hashable, CustomStringConvertible {
    case noSuchDevice(String)
    /// A file, a directory or a character device that is no V4L2 camera (`/dev/null`).
    case notACaptureDevice(String, detail: String)
    /// Another program (a browser, ffmpeg, zbarcam) holds the camera.
    case busy(String)
    case permissionDenied(String)
    /// The camera offers neither 8-bit grey (GREY/Y800) nor YUYV.
    case noUsableFormat(String, detail: String)
    case failed(String, detail: String)

    public var description: String {
        switch self {
        case .noSuchDevice(let path): "\(path): no such video device"
        case .notACaptureDevice(let path, let detail): "\(path): not a video capture device (\(detail))"
        case .busy(let path): "\(path): the camera is busy (another program is using it; close it and try again)"
        case .permissionDenied(let path): "\(path): permission denied (is this user in the `video` group?)"
        case .noUsableFormat(let path, let detail): "\(path): the camera offers neither GREY/Y800 nor YUYV frames (\(detail))"
        case .failed(let path, let detail): "\(path): \(detail)"
        }
    }
}

/// A V4L2 camera through libzbar's video API (the code `zbarcam` uses): opened at a size
/// near the one asked (the driver picks the nearest it has), in 8-bit grey or YUYV, and
/// read one frame at a time as headerless bytes, which `ImageLoader` turns into a
/// `GrayImage` as it does raw frame files.
///
/// `next()` is called from one thread; `stop()` from any thread, and wakes a `next()`
/// waiting for a frame (it polls the device with a wake-up pipe, as `DirectoryWatcher`
/// does, instead of blocking inside zbar).
public final class VideoCapture: @unchecked Sendable {
    /// One captured frame, copied out of the driver's buffer.
    public struct RawFrame: Sendable, Hashable {
        public var bytes: Data
        public var format: RawFrameFormat
        public init(bytes: Data, format: RawFrameFormat) {
            self.bytes = bytes
            self.format = format
        }
    }

    public let device: String
    public private(set) var format: RawFrameFormat
    private let video: OpaquePointer
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// Formats asked for, in order: grey needs no conversion; YUYV is what most webcams give.
    static let fourccs: [UInt] = ["GREY", "Y800", "YUYV"].map(fourcc)

    /// The raw frame layout of a fourcc this type asks for; nil for any other.
    static func format(fourcc code: UInt, width: Int, height: Int) -> RawFrameFormat? {
        switch code {
        case fourcc("GREY"), fourcc("Y800"): .y800(width: width, height: height)
        case fourcc("YUYV"): .yuyv(width: width, height: height)
        default: nil
        }
    }

    static func fourcc(_ code: String) -> UInt {
        code.utf8.enumerated().reduce(0) { $0 | UInt($1.element) << (8 * UInt($1.offset)) }
    }

    public init(device: String, width: Int = 1280, height: Int = 720) throws(VideoCaptureError) {
        var status = stat()
        guard stat(device, &status) == 0 else {
            throw errno == ENOENT || errno == ENOTDIR ? .noSuchDevice(device) : Self.systemError(device, errno, "cannot open")
        }
        guard status.st_mode & S_IFMT == S_IFCHR else {
            throw .notACaptureDevice(device, detail: (status.st_mode & S_IFMT) == S_IFDIR ? "a directory" : "not a character device")
        }
        try Self.checkCaptureCapability(device)
        if let reason = rs_zbar_load() { throw .failed(device, detail: String(cString: reason)) }
        guard let video = zbar_video_create() else { throw .failed(device, detail: "zbar could not create a video source (out of memory?)") }
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            let code = errno
            zbar_video_destroy(video)
            throw Self.systemError(device, code, "cannot make a wake-up pipe")
        }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        (self.video, wakeRead, wakeWrite) = (video, pipeEnds[0], pipeEnds[1])
        self.device = device
        format = .y800(width: width, height: height)
        // deinit closes what was made so far if any step below throws.
        _ = zbar_video_request_size(video, UInt32(max(1, width)), UInt32(max(1, height)))
        errno = 0
        guard zbar_video_open(video, device) == 0 else { throw Self.openError(device, video: video, errno: errno) }
        var refusals: [String] = []
        var chosen: RawFrameFormat?
        for fourcc in Self.fourccs {
            errno = 0
            if zbar_video_init(video, fourcc) == 0 {
                chosen = Self.format(fourcc: fourcc, width: Int(zbar_video_get_width(video)), height: Int(zbar_video_get_height(video)))
                break
            }
            let refusal = Self.lastError(video)
            if Self.isBusy(errno, refusal) { throw .busy(device) }
            refusals.append(refusal)
        }
        guard let chosen else { throw .noUsableFormat(device, detail: refusals.last ?? "refused") }
        format = chosen
        errno = 0
        guard zbar_video_enable(video, 1) == 0 else {
            let refusal = Self.lastError(video)
            throw Self.isBusy(errno, refusal) ? .busy(device) : .failed(device, detail: "cannot start capture: \(refusal)")
        }
    }

    deinit {
        zbar_video_enable(video, 0)
        zbar_video_destroy(video)
        close(wakeRead)
        close(wakeWrite)
    }

    /// Waits for the next frame; nil once `stop()` was called.
    public func next() throws(VideoCaptureError) -> RawFrame? {
        var descriptors = [
            pollfd(fd: zbar_video_get_fd(video), events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            if poll(&descriptors, 2, -1) < 0 {
                if errno == EINTR { continue }
                throw Self.systemError(device, errno, "waiting for a frame")
            }
            if descriptors[1].revents != 0 { return nil }
            if descriptors[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
                throw .failed(device, detail: "the camera stopped sending frames (unplugged?)")
            }
            if descriptors[0].revents != 0 { break }
        }
        guard let image = zbar_video_next_image(video) else {
            throw .failed(device, detail: "cannot read a frame: \(Self.lastError(video))")
        }
        // The image goes back to zbar's buffer pool once destroyed; its bytes are copied first.
        defer { zbar_image_destroy(image) }
        let (width, height) = (Int(zbar_image_get_width(image)), Int(zbar_image_get_height(image)))
        let fourcc = UInt(zbar_image_get_format(image))
        guard let frameFormat = Self.format(fourcc: fourcc, width: width, height: height),
              let data = zbar_image_get_data(image) else {
            throw .noUsableFormat(device, detail: "a frame came in another format")
        }
        let length = min(Int(zbar_image_get_data_length(image)), frameFormat.frameByteCount)
        return RawFrame(bytes: Data(bytes: data, count: length), format: frameFormat)
    }

    /// Wakes a waiting `next()`, which returns nil from then on; safe from any thread.
    public func stop() {
        var one: UInt8 = 1
        _ = write(wakeWrite, &one, 1)
    }

    /// Asks the device itself (VIDIOC_QUERYCAP) before zbar does: a device that is no camera
    /// is named as such, without libv4l2's own complaints on stderr.
    static func checkCaptureCapability(_ device: String) throws(VideoCaptureError) {
        let fd = open(device, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            switch code {
            case ENOENT, ENODEV, ENXIO: throw .noSuchDevice(device)
            case EBUSY: throw .busy(device)
            case EACCES, EPERM: throw .permissionDenied(device)
            default: throw systemError(device, code, "cannot open")
            }
        }
        defer { close(fd) }
        // struct v4l2_capability (linux/videodev2.h, not visible to Swift): 104 bytes,
        // `capabilities` at offset 84, `device_caps` at 88 (meant when V4L2_CAP_DEVICE_CAPS is set).
        var capability = [UInt8](repeating: 0, count: v4l2CapabilitySize)
        let result = capability.withUnsafeMutableBytes { buffer in
            buffer.baseAddress.map { ioctl(fd, vidiocQueryCap, $0) } ?? -1
        }
        guard result == 0 else {
            let code = errno
            throw code == EBUSY ? .busy(device) : .notACaptureDevice(device, detail: "it does not answer as a V4L2 device: \(String(cString: strerror(code)))")
        }
        func word(_ offset: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(capability[offset + $1]) << (8 * UInt32($1)) } }
        let all = word(84)
        let caps = all & v4l2CapDeviceCaps != 0 ? word(88) : all
        guard caps & v4l2CapVideoCapture != 0 else {
            throw .notACaptureDevice(device, detail: "a V4L2 device that captures no video (metadata or output node?)")
        }
    }

    /// _IOR('V', 0, struct v4l2_capability) and its flags, from linux/videodev2.h.
    static let v4l2CapabilitySize = 104
    static let vidiocQueryCap = UInt(2) << 30 | UInt(v4l2CapabilitySize) << 16 | UInt(UInt8(ascii: "V")) << 8 | 0
    static let v4l2CapVideoCapture: UInt32 = 0x0000_0001
    static let v4l2CapDeviceCaps: UInt32 = 0x8000_0000

    /// zbar keeps the system's errno for a failed open; the V4L2 query on a device that is
    /// no camera fails with ENOTTY/EINVAL.
    private static func openError(_ device: String, video: OpaquePointer, errno code: Int32) -> VideoCaptureError {
        switch code {
        case ENOENT, ENODEV, ENXIO: .noSuchDevice(device)
        case EBUSY: .busy(device)
        case EACCES, EPERM: .permissionDenied(device)
        default: .notACaptureDevice(device, detail: lastError(video))
        }
    }

    /// Another program holds the camera: VIDIOC_S_FMT/REQBUFS/STREAMON fail with EBUSY. zbar
    /// writes the system error into its message ("…: Device or resource busy (16)"); errno
    /// may have moved on by the time zbar returns, so both are looked at.
    static func isBusy(_ code: Int32, _ zbarMessage: String) -> Bool {
        code == EBUSY || zbarMessage.contains("(\(EBUSY))")
    }

    private static func systemError(_ device: String, _ code: Int32, _ doing: String) -> VideoCaptureError {
        code == EBUSY ? .busy(device) : .failed(device, detail: "\(doing): \(String(cString: strerror(code)))")
    }

    /// zbar's own account of its last error, on one line.
    private static func lastError(_ video: OpaquePointer) -> String {
        guard let text = _zbar_error_string(UnsafeRawPointer(video), 0) else { return "unknown error" }
        return String(cString: text).split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
    }
}
