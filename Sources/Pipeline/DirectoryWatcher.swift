import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Stage "frame source" for `watch`: files that land in one directory, reported by inotify.
///
/// Only IN_CLOSE_WRITE (a writer closed the file) and IN_MOVED_TO (a finished file was renamed
/// in) count as landed, so a frame still being written is never read. A reader thread blocks
/// in poll(2) on the inotify descriptor and a wake-up pipe used by `stop()`.
public final class DirectoryWatcher: Sendable {
    public enum Event: Sendable, Hashable {
        /// A complete file landed; `landedAt` is when inotify reported it.
        case landed(URL, landedAt: Date)
        /// The kernel's event queue overflowed: events were lost, rescan the directory.
        case overflow
        /// The directory was deleted or moved away.
        case directoryGone
    }

    public enum WatchError: Error, Sendable, CustomStringConvertible {
        case notADirectory(String)
        case inotify(String, errno: Int32)

        public var description: String {
            switch self {
            case .notADirectory(let path): "\(path): not a directory"
            case .inotify(let path, let code): "\(path): cannot watch (\(String(cString: strerror(code))))"
            }
        }
    }

    public let directory: URL
    private let inotifyDescriptor: Int32
    /// A pipe whose write end `stop()` writes to, waking the poll.
    private let wakeDescriptor: Int32
    private let wakeWriteDescriptor: Int32
    private let stopped = Mutex(false)

    public init(directory: URL) throws(WatchError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw .notADirectory(directory.path) }
        self.directory = directory
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw .inotify(directory.path, errno: errno) }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF)
        guard inotify_add_watch(fd, directory.path, mask) >= 0 else {
            let code = errno
            close(fd)
            throw .inotify(directory.path, errno: code)
        }
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            let code = errno
            close(fd)
            throw .inotify(directory.path, errno: code)
        }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        inotifyDescriptor = fd
        wakeDescriptor = pipeEnds[0]
        wakeWriteDescriptor = pipeEnds[1]
    }

    deinit {
        close(inotifyDescriptor)
        close(wakeDescriptor)
        close(wakeWriteDescriptor)
    }

    /// Events until `stop()`; the watch is already armed (from `init`), so nothing written
    /// after `init` returned is missed even before this is called.
    public func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .unbounded)
        let thread = Thread { [self] in
            readLoop { continuation.yield($0) }
            continuation.finish()
        }
        thread.name = "rapidscan-inotify"
        thread.start()
        return stream
    }

    /// Ends `events()`; safe to call from any thread, more than once.
    public func stop() {
        stopped.withLock { $0 = true }
        var one: UInt8 = 1
        _ = write(wakeWriteDescriptor, &one, 1)
    }

    private func readLoop(_ emit: (Event) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var descriptors = [
            pollfd(fd: inotifyDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        while !stopped.withLock({ $0 }) {
            let ready = poll(&descriptors, nfds_t(descriptors.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if descriptors[1].revents != 0 { return }
            let count = buffer.withUnsafeMutableBytes { read(inotifyDescriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                return
            }
            let landedAt = Date()
            for record in Self.parse(buffer[0..<count]) {
                if record.mask & UInt32(IN_Q_OVERFLOW) != 0 { emit(.overflow); continue }
                if record.mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
                    emit(.directoryGone)
                    return
                }
                guard record.mask & UInt32(IN_ISDIR) == 0, !record.name.isEmpty else { continue }
                emit(.landed(directory.appendingPathComponent(record.name), landedAt: landedAt))
            }
        }
    }

    /// One inotify record: Swift drops `struct inotify_event`'s flexible `name[]`, so the
    /// records are read by byte offset: wd (4), mask (4), cookie (4), len (4), then `len`
    /// bytes of NUL-padded name.
    public struct Record: Sendable, Hashable {
        public var mask: UInt32
        public var name: String
        public init(mask: UInt32, name: String) {
            self.mask = mask
            self.name = name
        }
    }

    public static func parse(_ bytes: ArraySlice<UInt8>) -> [Record] {
        var records: [Record] = []
        var offset = bytes.startIndex
        let headerSize = 16
        func uint32(at position: Int) -> UInt32 {
            // inotify records are in host byte order (little-endian on Linux/x86 and arm64).
            (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[position + $1]) << (8 * UInt32($1)) }
        }
        while offset + headerSize <= bytes.endIndex {
            let mask = uint32(at: offset + 4)
            let nameLength = Int(uint32(at: offset + 12))
            let nameStart = offset + headerSize
            guard nameStart + nameLength <= bytes.endIndex else { break }
            let nameBytes = bytes[nameStart..<(nameStart + nameLength)].prefix { $0 != 0 }
            records.append(Record(mask: mask, name: String(decoding: nameBytes, as: UTF8.self)))
            offset = nameStart + nameLength
        }
        return records
    }
}
