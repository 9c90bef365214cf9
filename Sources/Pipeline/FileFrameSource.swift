import BarcodeReading
import Foundation
import Imaging

/// Stage "frame source" for `scan`: the image files under the given paths (folders walked
/// recursively), each with its size, modification time and capture time, in capture order.
public struct FileFrameSource: Sendable {
    public struct Problem: Sendable {
        public var frame: Frame
        public var reason: String
    }

    public let paths: [URL]
    public let rawFormat: RawFrameFormat?
    public let timeZone: TimeZone

    public init(paths: [URL], rawFormat: RawFrameFormat? = nil, timeZone: TimeZone = .current) {
        self.paths = paths
        self.rawFormat = rawFormat
        self.timeZone = timeZone
    }

    /// Frames sorted by capture time (then path), and the paths that could not be listed
    /// or stat'ed (reported as unreadable, never fatal).
    public func frames() -> (frames: [Frame], problems: [Problem]) {
        var frames: [Frame] = []
        var problems: [Problem] = []
        for entry in FileWalker.imageFiles(in: paths, rawFormat: rawFormat) {
            let url = entry.url
            // Paths as the user gave them ("photos/a.jpg"), like `decode` prints them.
            if let error = entry.error {
                problems.append(Problem(frame: Self.placeholder(url, path: entry.path), reason: String(describing: error)))
                continue
            }
            do {
                frames.append(try Frame.file(at: url, path: entry.path, timeZone: timeZone))
            } catch {
                problems.append(Problem(frame: Self.placeholder(url, path: entry.path), reason: "\(entry.path): \(error.localizedDescription)"))
            }
        }
        frames.sort { ($0.captureTime.date, $0.path) < ($1.captureTime.date, $1.path) }
        return (frames, problems)
    }

    private static func placeholder(_ url: URL, path: String) -> Frame {
        Frame(url: url, path: path, size: 0, modified: Date(timeIntervalSince1970: 0),
              captureTime: CaptureTime(date: Date(), origin: .modificationTime))
    }
}
