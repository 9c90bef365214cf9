import Foundation
import Synchronization
@testable import WorkerPools
import Testing

/// The pool behind ShelfOCR's engines: made lazily, reused, never more lent than the limit,
/// and a resource that failed to start is not kept.
@Suite struct ResourcePoolTests {
    struct StartFailed: Error, Equatable {}

    final class Counter: Sendable {
        private let state = Mutex((now: 0, peak: 0))
        func enter() { state.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) } }
        func leave() { state.withLock { $0.now -= 1 } }
        var peak: Int { state.withLock { $0.peak } }
    }

    @Test func neverMoreLentThanTheLimitAndEachResourceReused() {
        let starts = Mutex(0)
        let pool = ResourcePool<Int, StartFailed>(limit: 2) { () throws(StartFailed) in
            starts.withLock { $0 += 1; return $0 }
        }
        let counter = Counter()
        let seen = Mutex(Set<Int>())
        pool.forEachIndex(40) { _ in
            pool.withResource { resource in
                counter.enter()
                defer { counter.leave() }
                if case .success(let id) = resource { seen.withLock { _ = $0.insert(id) } }
                usleep(2_000)
            }
        }
        #expect(counter.peak <= 2)
        #expect(pool.resourcesMade <= 2)
        #expect(seen.withLock { $0 }.count == pool.resourcesMade)
        #expect(starts.withLock { $0 } == pool.resourcesMade)
    }

    @Test func aResourceThatFailedToStartIsTriedAgainByTheNextBorrower() throws {
        let attempts = Mutex(0)
        let pool = ResourcePool<String, StartFailed>(limit: 1) { () throws(StartFailed) in
            let attempt = attempts.withLock { $0 += 1; return $0 }
            if attempt == 1 { throw StartFailed() }
            return "engine \(attempt)"
        }
        let first = pool.withResource { $0 }
        let second = pool.withResource { $0 }
        let third = pool.withResource { $0 }
        #expect(throws: StartFailed.self) { try first.get() }
        #expect(try second.get() == "engine 2")
        #expect(try third.get() == "engine 2")
        #expect(pool.resourcesMade == 1)
    }

    @Test func everyIndexRunsOnce() {
        let pool = ResourcePool<Int, StartFailed>(limit: 3) { () throws(StartFailed) in 0 }
        let ran = Mutex([Int](repeating: 0, count: 100))
        pool.forEachIndex(100) { index in ran.withLock { $0[index] += 1 } }
        pool.forEachIndex(0) { _ in Issue.record("no index to run") }
        #expect(ran.withLock { $0 } == [Int](repeating: 1, count: 100))
    }
}
