import Foundation

/// A value shared between threads behind a lock (the watcher and decode threads are plain
/// threads, not tasks, because they block in poll(2) and in zbar). Tests use it too.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
