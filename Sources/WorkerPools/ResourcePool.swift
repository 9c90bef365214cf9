import Foundation

/// Costly per-thread state (a Tesseract engine: its LSTM model takes a second to load) made
/// lazily, kept, and lent to at most `limit` borrowers at once. A resource that failed to
/// start is not kept: the next borrower tries again.
///
/// `forEachIndex(_:_:)` is the synchronous fan-out that borrows from it.
public final class ResourcePool<Resource, Failure: Error>: @unchecked Sendable {
    private let make: () throws(Failure) -> Resource
    // NSLock, not Mutex: a resource (not Sendable) is handed between threads, one at a time.
    private let lock = NSLock()
    private var idle: [Resource] = []
    private let slots: DispatchSemaphore
    private var made = 0

    /// - Parameters:
    ///   - limit: the most resources lent at once (and so the most ever made).
    ///   - make: starts one resource; called on the borrowing thread.
    public init(limit: Int, make: @escaping () throws(Failure) -> Resource) {
        self.make = make
        slots = DispatchSemaphore(value: max(1, limit))
    }

    /// How many resources were made so far (started successfully).
    public var resourcesMade: Int { lock.withLock { made } }

    /// Runs `body` with a resource (or the error starting one), waiting while `limit` are lent.
    public func withResource<T>(_ body: (Result<Resource, Failure>) -> T) -> T {
        slots.wait()
        defer { slots.signal() }
        let resource: Result<Resource, Failure>
        if let reused = lock.withLock({ idle.popLast() }) {
            resource = .success(reused)
        } else {
            do throws(Failure) {
                let started = try make()
                lock.withLock { made += 1 }
                resource = .success(started)
            } catch {
                resource = .failure(error)
            }
        }
        defer { if case .success(let done) = resource { lock.withLock { idle.append(done) } } }
        return body(resource)
    }

    /// Runs `body(index)` for every index in `0..<count` on the process's worker threads
    /// (Dispatch's, sized to the cores) and returns when all are done; indices start in order.
    /// The body borrows with `withResource` when it is ready to, so a step that waits on an
    /// earlier index does its waiting holding no resource.
    public func forEachIndex(_ count: Int, _ body: @Sendable (Int) -> Void) {
        guard count > 0 else { return }
        DispatchQueue.concurrentPerform(iterations: count, execute: body)
    }
}
