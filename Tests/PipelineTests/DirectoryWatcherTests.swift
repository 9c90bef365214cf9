import Foundation
import Pipeline
import TestSupport
import Synchronization
import Testing

@Suite struct DirectoryWatcherTests {
    @Test func parsesRecordsByByteOffset() {
        func record(mask: UInt32, name: String, padded: Int) -> [UInt8] {
            var bytes: [UInt8] = []
            for value in [UInt32(1), mask, 0, UInt32(padded)] { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
            let name = Array(name.utf8)
            return bytes + name + [UInt8](repeating: 0, count: padded - name.count)
        }
        let bytes = record(mask: 0x8, name: "000001.jpg", padded: 16) + record(mask: 0x80, name: "b.png", padded: 32)
            + record(mask: 0x4000, name: "", padded: 0)
        let records = DirectoryWatcher.parse(bytes[...])
        #expect(records == [.init(mask: 0x8, name: "000001.jpg"), .init(mask: 0x80, name: "b.png"), .init(mask: 0x4000, name: "")])
        // A truncated trailing record is ignored, not read past the end.
        #expect(DirectoryWatcher.parse(bytes.dropLast(40)).count == 1)
    }

    /// A frame written in two halves with a pause lands once, after it is closed; a frame
    /// renamed into the directory lands too; a subdirectory does not.
    @Test func reportsFilesOnlyWhenComplete() async throws {
        try await withTemporaryDirectory { directory in
            let watcher = try DirectoryWatcher(directory: directory)
            let events = Shared([DirectoryWatcher.Event]())
            let reader = Task {
                for await event in watcher.events() { events.withLock { $0.append(event) } }
            }
            // One open, two writes with a pause, one close: what a capture program does.
            let slow = directory.appendingPathComponent("slow.jpg")
            let handle = try #require(FileHandle(forWritingAtPath: creating(slow)))
            try handle.write(contentsOf: Data(repeating: 1, count: 5000))
            try await Task.sleep(for: .milliseconds(300))
            #expect(events.withLock { $0 }.isEmpty, "a half-written frame must not be reported")
            try handle.write(contentsOf: Data(repeating: 2, count: 5000))
            try handle.close()

            let temp = FileManager.default.temporaryDirectory.appendingPathComponent("rapidscan-\(UUID()).jpg")
            try Data([1, 2, 3]).write(to: temp)
            try FileManager.default.moveItem(at: temp, to: directory.appendingPathComponent("moved.jpg"))
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("sub"), withIntermediateDirectories: false)

            try await waitUntil { events.withLock { $0.count } >= 2 }
            watcher.stop()
            await reader.value
            let names = events.withLock { $0 }.compactMap { event -> String? in
                if case .landed(let url, _) = event { return url.lastPathComponent }
                return nil
            }
            #expect(names == ["slow.jpg", "moved.jpg"])
        }
    }

    @Test func refusesAMissingDirectory() {
        #expect(throws: DirectoryWatcher.WatchError.self) {
            try DirectoryWatcher(directory: URL(fileURLWithPath: "/nonexistent/rapidscan-\(UUID())"))
        }
    }
}

/// Creates an empty file without closing a write descriptor on it (no IN_CLOSE_WRITE yet
/// from creation alone: the file is opened read-only by `open(O_CREAT)` and closed).
func creating(_ url: URL) -> String {
    let fd = open(url.path, O_CREAT | O_RDONLY, 0o644)
    close(fd)
    return url.path
}

/// Polls `condition` every 20 ms for up to 10 s (a bound on waiting, not a timed assertion).
func waitUntil(_ condition: () -> Bool) async throws {
    for _ in 0..<500 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("condition not met within 10 s")
}

/// A value a test shares with a task, behind `Synchronization.Mutex`.
final class Shared<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}
