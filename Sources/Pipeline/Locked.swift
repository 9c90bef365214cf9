import Foundation

/// A value shared between threads behind a lock (the watcher and decode threads are plain
/// threads, not tasks, because they block in poll(2) and in zbar).
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
