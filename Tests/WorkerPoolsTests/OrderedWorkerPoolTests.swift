import Foundation
import Synchronization
import Testing
import WorkerPools

/// The pool with fake workers: order, the look-ahead bound, drops, finish, cancel, and
/// errors making the workers.
@Suite struct OrderedWorkerPoolTests {
    private final class Log: Sendable {
        let started = Mutex(0)
        let completed = Mutex<[Int]>([])
        func start() { started.withLock { $0 += 1 } }
        func complete(_ value: Int) { completed.withLock { $0.append(value) } }
        var startedCount: Int { started.withLock { $0 } }
    }

    /// Keeps only the newest waiting input, like Pipeline's `FrameDropPolicy(capacity: 1)`.
    private struct KeepNewest<Element>: WaitingQueue {
        var waiting: Element?
        mutating func admit(_ element: Element) -> [Element] {
            defer { waiting = element }
            return waiting.map { [$0] } ?? []
        }
        mutating func next() -> Element? {
            defer { waiting = nil }
            return waiting
        }
    }

    private enum Result: Equatable, Sendable { case done(Int), dropped(Int) }

    private func collect<T>(_ stream: AsyncStream<T>) async -> [T] {
        var out: [T] = []
        for await value in stream { out.append(value) }
        return out
    }

    @Test func outputsKeepInputOrderWhenLaterInputsFinishFirst() async throws {
        let log = Log()
        let secondDone = DispatchSemaphore(value: 0)
        let pool = OrderedWorkerPool<Int, Int>(workers: 3, name: "test") {
            { value in
                if value == 0 { secondDone.wait() }  // the first input finishes only after the second
                log.complete(value)
                if value == 1 { secondDone.signal() }
                return value * 10
            }
        }
        for value in 0..<30 { pool.submit(value) }
        pool.finish()
        let out = await collect(pool.results())
        #expect(out == (0..<30).map { $0 * 10 })
        let completed = log.completed.withLock { $0 }
        #expect(completed.firstIndex(of: 1)! < completed.firstIndex(of: 0)!, "a later input finished first")
    }

    @Test func aSlowConsumerNeverHasMoreThanLookAheadOutputsWaiting() async throws {
        let log = Log()
        let lookAhead = 4
        let pool = OrderedWorkerPool<Int, Int>(workers: 2, name: "test", lookAhead: lookAhead) {
            { value in log.start(); return value }
        }
        for value in 0..<40 { pool.submit(value) }
        pool.finish()
        var consumed = 0
        var mostAhead = 0
        for await value in pool.results() {
            #expect(value == consumed)
            consumed += 1
            try await Task.sleep(for: .milliseconds(3))  // workers are far faster than this consumer
            let ahead = log.startedCount - consumed
            mostAhead = max(mostAhead, ahead)
            #expect(ahead <= lookAhead, "started but unconsumed: \(ahead)")
        }
        #expect(consumed == 40)
        #expect(mostAhead == lookAhead, "the workers do run ahead, up to the bound")
    }

    @Test func droppedInputsComeOutAsDroppedInTheirPlace() async throws {
        let gate = DispatchSemaphore(value: 0)
        let firstStarted = DispatchSemaphore(value: 0)
        let pool = OrderedWorkerPool<Int, Result>(
            workers: 1, name: "test", queue: KeepNewest<Numbered<Int>>(), dropped: { .dropped($0) }
        ) {
            { value in
                if value == 0 { firstStarted.signal(); gate.wait() }
                return .done(value)
            }
        }
        pool.submit(0)
        firstStarted.wait()  // the only worker is busy: 1...4 wait in turn and are pushed out by the next
        for value in 1...5 { pool.submit(value) }
        gate.signal()
        pool.finish()
        let out = await collect(pool.results())
        #expect(out == [.done(0), .dropped(1), .dropped(2), .dropped(3), .dropped(4), .done(5)])
    }

    @Test func finishDrainsEverythingQueuedThenEnds() async throws {
        let pool = OrderedWorkerPool<Int, Int>(workers: 2, name: "test") {
            { value in usleep(UInt32(value % 3) * 1000); return value }
        }
        for value in 0..<25 { pool.submit(value) }
        pool.finish()
        pool.submit(99)  // after finish: ignored
        #expect(await collect(pool.results()) == Array(0..<25))
        #expect(await pool.next() == nil)

        let empty = OrderedWorkerPool<Int, Int>(workers: 2, name: "test") { { $0 } }
        let ended = Task { await empty.next() }
        try await Task.sleep(for: .milliseconds(20))
        empty.finish()  // a consumer already waiting is told the output has ended
        #expect(await ended.value == nil)
    }

    @Test func cancelStopsTheWorkersAndEndsTheOutput() async throws {
        let log = Log()
        let gate = DispatchSemaphore(value: 0)
        let firstStarted = DispatchSemaphore(value: 0)
        let pool = OrderedWorkerPool<Int, Int>(workers: 1, name: "test") {
            { value in
                log.start()
                if value == 0 { firstStarted.signal(); gate.wait() }
                return value
            }
        }
        for value in 0..<200 { pool.submit(value) }
        firstStarted.wait()
        pool.cancel()  // while the only worker is busy with input 0
        gate.signal()
        #expect(await pool.next() == nil)
        try await Task.sleep(for: .milliseconds(50))
        #expect(log.startedCount == 1, "the worker finished its current input and took no other")
    }

    @Test func cancellingTheConsumerOrDroppingTheStreamCancelsThePool() async throws {
        for leaveBy in ["task cancelled", "stream dropped"] {
            let log = Log()
            let pool = OrderedWorkerPool<Int, Int>(workers: 2, name: "test", lookAhead: 4) {
                { value in log.start(); usleep(5_000); return value }
            }
            for value in 0..<1000 { pool.submit(value) }
            pool.finish()
            if leaveBy == "task cancelled" {
                let consumer = Task {
                    var seen = 0
                    for await _ in pool.results() { seen += 1 }
                    return seen
                }
                try await Task.sleep(for: .milliseconds(20))
                consumer.cancel()
                #expect(await consumer.value < 1000, "the stream ended early")
            } else {
                var seen = 0
                for await _ in pool.results() {
                    seen += 1
                    if seen == 3 { break }
                }
            }
            try await Task.sleep(for: .milliseconds(30))
            let stopped = log.startedCount
            try await Task.sleep(for: .milliseconds(60))
            #expect(log.startedCount == stopped, "\(leaveBy): workers stopped")
            #expect(stopped < 1000)
        }
    }

    /// A taken input is the worker's alone: the queue must not hold it (and what it refers to,
    /// such as the dump loader's line buffers) until it next drops its taken prefix.
    @Test func theFIFOQueueKeepsNoInputItHandedOut() {
        final class Payload {}
        var queue = FIFOQueue<Payload>()
        weak var first: Payload?
        weak var second: Payload?
        do {
            let one = Payload(), two = Payload()
            first = one
            second = two
            _ = queue.admit(one)
            _ = queue.admit(two)
        }
        #expect(first != nil && second != nil, "waiting inputs are kept")
        #expect(queue.next() != nil)
        #expect(first == nil, "the input handed out is no longer held by the queue")
        #expect(second != nil)
        #expect(queue.next() != nil && queue.next() == nil)
        #expect(second == nil)
    }

    @Test func anErrorMakingAWorkerIsThrownBeforeAnyThreadStarts() throws {
        struct NoScanner: Error {}
        let log = Log()
        var made = 0
        #expect(throws: NoScanner.self) {
            _ = try OrderedWorkerPool<Int, Int>(workers: 3, name: "test") {
                made += 1
                if made == 2 { throw NoScanner() }
                return { value in log.start(); return value }
            }
        }
        #expect(made == 2)
        #expect(log.startedCount == 0)
    }
}
