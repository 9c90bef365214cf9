import Foundation
@testable import BarcodeReading
import Testing

/// `VideoCapture` on the paths these machines have (no camera): each refusal is a value
/// naming the device, and zbar's account of a busy camera is recognised as busy.
@Suite struct VideoCaptureTests {
    @Test func pathsThatAreNoCameraAreRefusedByName() {
        #expect(throws: VideoCaptureError.noSuchDevice("/dev/video-none-here")) {
            try VideoCapture(device: "/dev/video-none-here")
        }
        #expect(throws: VideoCaptureError.notACaptureDevice("/tmp", detail: "a directory")) {
            try VideoCapture(device: "/tmp")
        }
        do {
            _ = try VideoCapture(device: "/dev/null")
            Issue.record("/dev/null opened as a camera")
        } catch {
            guard case .notACaptureDevice(let path, _) = error else { Issue.record("\(error)"); return }
            #expect(path == "/dev/null")
            #expect(error.description.hasPrefix("/dev/null: not a video capture device"))
        }
    }

    /// zbar's message for a failed VIDIOC_S_FMT when another program streams (format as its
    /// `_zbar_error_string` writes system errors: "…: <strerror> (<errno>)").
    @Test func zbarsBusyMessageIsBusy() {
        let busy = "ERROR: zbar video in v4l2_set_format(): system error: setting format: Device or resource busy (\(EBUSY))"
        #expect(VideoCapture.isBusy(0, busy))
        #expect(VideoCapture.isBusy(EBUSY, "unknown error"))
        #expect(!VideoCapture.isBusy(0, "ERROR: zbar video in _zbar_video_open(): system error: Inappropriate ioctl for device (25)"))
        #expect(VideoCaptureError.busy("/dev/video0").description.hasPrefix("/dev/video0: the camera is busy"))
    }
}
