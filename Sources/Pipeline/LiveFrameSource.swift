import Foundation
import Imaging

/// Stage "frame source" for `watch`: where live frames come from — files landing in a
/// directory (`DirectoryFrameSource`) or a camera (`DeviceFrameSource`). A source is armed
/// once made (nothing that arrives after is missed) and ends its events on `stop()`.
public protocol LiveFrameSource: AnyObject, Sendable {
    /// What the user is told is watched: the directory or the device path.
    var name: String { get }
    /// Frames and the source's notes until `stop()`, or until the source ends by itself.
    func events() -> AsyncStream<LiveFrameEvent>
    /// Safe from any thread, more than once.
    func stop()
}

public enum LiveFrameEvent: Sendable {
    case frame(Frame)
    case note(SessionNote)
    /// The source broke (a camera unplugged): the watch stops, then reports this.
    case failed(String)
}

/// The frames a capture program writes into a directory, through `DirectoryWatcher`.
public final class DirectoryFrameSource: LiveFrameSource {
    private let watcher: DirectoryWatcher
    private let rawFormat: RawFrameFormat?

    public init(directory: URL, rawFormat: RawFrameFormat? = nil) throws {
        watcher = try DirectoryWatcher(directory: directory)
        self.rawFormat = rawFormat
    }

    public var name: String { watcher.directory.path }

    public func events() -> AsyncStream<LiveFrameEvent> {
        let (events, continuation) = AsyncStream<LiveFrameEvent>.makeStream()
        let (watcher, rawFormat, directory) = (watcher, rawFormat, name)
        let task = Task {
            for await event in watcher.events() {
                switch event {
                case let .landed(url, landedAt):
                    guard let frame = WatchSession.frame(at: url, landedAt: landedAt, rawFormat: rawFormat) else { continue }
                    continuation.yield(.frame(frame))
                case .overflow:
                    continuation.yield(.note(.watchOverflowed))
                case .directoryGone:
                    continuation.yield(.note(.directoryGone(directory: directory)))
                    watcher.stop()
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return events
    }

    public func stop() { watcher.stop() }
}
