import Foundation

/// Inputs waiting for a free worker, each numbered in submission order. An admission policy
/// may drop waiting inputs to make room (`watch` keeps only the newest frames); the pool
/// reports each dropped input in its place in the output. A queue must hand out and drop
/// oldest first, so the pool's look-ahead window can always reach the next output.
public protocol WaitingQueue<Element> {
    associatedtype Element
    /// Adds an input; returns the waiting inputs dropped to make room, oldest first.
    mutating func admit(_ element: Element) -> [Element]
    /// Removes and returns the oldest waiting input.
    mutating func next() -> Element?
}

/// An input and its place in submission order.
public struct Numbered<Input: Sendable>: Sendable {
    public let sequence: Int
    public let input: Input
}

/// Keeps every input, first in first out (`scan`'s fixed list of files).
public struct FIFOQueue<Element>: WaitingQueue {
    /// Taken inputs are cleared at once (nil), not when the prefix is dropped: a taken input
    /// kept here until then held what it refers to (the dump loader's 64 line chunks, ~180 MB).
    private var elements: [Element?] = []
    private var head = 0

    public init() {}

    public mutating func admit(_ element: Element) -> [Element] {
        elements.append(element)
        return []
    }

    public mutating func next() -> Element? {
        guard head < elements.count else { return nil }
        let element = elements[head].take()
        head += 1
        if head >= 64, head * 2 >= elements.count {  // amortised O(1): drop the taken prefix now and then
            elements.removeFirst(head)
            head = 0
        }
        return element
    }
}

/// Runs inputs on `workers` threads, each owning its own worker state (a zbar scanner is
/// not thread-safe), and hands the outputs to one async consumer in submission order: an
/// output that finished early waits in a reorder buffer until the ones before it are out.
///
/// - The worker state is made up front, on the caller's thread; an error doing so is
///   thrown from `init`, before any thread starts.
/// - `lookAhead` bounds how far workers run ahead of the consumer: outputs finished or being
///   made but not yet consumed never exceed it, so memory stays flat with a slow consumer.
/// - The waiting queue is the admission policy; dropped inputs come out as `dropped(input)`.
/// - A waiting input starts the moment a worker is free (workers sleep on a condition, no polling).
/// - `finish()`: no more input; the pool drains, then `next()` returns nil. `cancel()`: workers
///   stop after their current input, waiting inputs are discarded and `next()` returns nil.
public final class OrderedWorkerPool<Input: Sendable, Output: Sendable>: @unchecked Sendable {
    // Every field below is guarded by `condition`.
    private let condition = NSCondition()
    private var queue: any WaitingQueue<Numbered<Input>>
    private let dropped: (Input) -> Output
    private let lookAhead: Int
    private var submitted = 0
    private var waitingCount = 0
    private var handed = 0
    private var finished: [Int: Output] = [:]
    private var consumer: CheckedContinuation<Output?, Never>?
    private var inputFinished = false
    private var cancelled = false

    /// A pool that keeps every input (first in, first out) and drops none.
    /// - Parameters:
    ///   - workers: threads, at least one; `makeWorker` is called once for each.
    ///   - name: thread names are `name-0`, `name-1`, ...
    ///   - lookAhead: the most outputs finished or in progress but not yet consumed; nil is unbounded.
    ///   - makeWorker: one worker's state, as the function it runs on each input.
    public convenience init(workers: Int, name: String, lookAhead: Int? = nil,
                            makeWorker: () throws -> (Input) -> Output) rethrows {
        try self.init(workers: workers, name: name, lookAhead: lookAhead, queue: FIFOQueue<Numbered<Input>>(),
                      dropped: { _ in preconditionFailure("a FIFO queue drops nothing") }, makeWorker: makeWorker)
    }

    /// A pool whose `queue` decides which inputs wait and which are dropped; `dropped` makes
    /// the output reported for a dropped input.
    public init(workers: Int, name: String, lookAhead: Int? = nil, queue: some WaitingQueue<Numbered<Input>>,
                dropped: @escaping @Sendable (Input) -> Output,
                makeWorker: () throws -> (Input) -> Output) rethrows {
        self.queue = queue
        self.dropped = dropped
        self.lookAhead = max(1, lookAhead ?? .max)
        var bodies: [WorkerBox] = []
        for _ in 0..<max(1, workers) { bodies.append(WorkerBox(try makeWorker())) }
        for (index, body) in bodies.enumerated() {
            let thread = Thread { [self] in work(body.run) }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    /// Queues an input; the queue may drop older waiting inputs. Ignored after `finish` or `cancel`.
    public func submit(_ input: Input) {
        changingState {
            guard !inputFinished, !cancelled else { return }
            let droppedInputs = queue.admit(Numbered(sequence: submitted, input: input))
            submitted += 1
            waitingCount += 1 - droppedInputs.count
            for waiting in droppedInputs { finished[waiting.sequence] = dropped(waiting.input) }
            condition.signal()
        }
    }

    /// No more input: the workers drain what is queued, then `next()` returns nil.
    public func finish() {
        changingState {
            inputFinished = true
            condition.broadcast()
        }
    }

    /// Stops the workers after their current input and ends the output.
    public func cancel() {
        changingState {
            cancelled = true
            while queue.next() != nil {}
            waitingCount = 0
            finished.removeAll()
            condition.broadcast()
        }
    }

    /// The next output in submission order; nil once input has finished and every output is
    /// out, or after `cancel()`. One consumer at a time.
    public func next() async -> Output? {
        await withCheckedContinuation { continuation in
            changingState {
                precondition(consumer == nil, "OrderedWorkerPool has one consumer")
                consumer = continuation
            }
        }
    }

    /// The outputs as a stream for one consumer. Cancelling the consuming task, or dropping
    /// the stream before its end, cancels the pool, so no worker waits on a consumer that left.
    public func results() -> AsyncStream<Output> {
        let owner = CancelOnRelease(self)
        return AsyncStream(unfolding: { await owner.pool.next() }, onCancel: { owner.pool.cancel() })
    }

    private func work(_ body: (Input) -> Output) {
        while let taken = take() {
            let output = body(taken.input)
            changingState { if !cancelled { finished[taken.sequence] = output } }
        }
    }

    /// Blocks until a waiting input may start (within the look-ahead window), or returns nil
    /// once there is nothing left to do.
    private func take() -> Numbered<Input>? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if cancelled { return nil }
            if submitted - waitingCount - handed < lookAhead, let taken = queue.next() {
                waitingCount -= 1
                return taken
            }
            if inputFinished, waitingCount == 0 { return nil }
            condition.wait()
        }
    }

    /// Runs `change` under the lock, then resumes the consumer if its output became ready
    /// (after unlocking: a continuation must not resume while the lock is held).
    private func changingState(_ change: () -> Void) {
        condition.lock()
        change()
        let resume = handOver()
        condition.unlock()
        resume?()
    }

    /// With the lock held: if the consumer waits and its output is ready (or the output has
    /// ended), returns the call that resumes it, to be made after unlocking.
    private func handOver() -> (() -> Void)? {
        guard let continuation = consumer else { return nil }
        if cancelled || (inputFinished && handed == submitted) {
            consumer = nil
            return { continuation.resume(returning: nil) }
        }
        guard let output = finished.removeValue(forKey: handed) else { return nil }
        consumer = nil
        handed += 1
        if lookAhead != .max { condition.broadcast() }  // the window moved: a worker may start another
        return { continuation.resume(returning: output) }
    }

    /// Hands one worker's function (not Sendable) to the one thread that runs it.
    private final class WorkerBox: @unchecked Sendable {
        let run: (Input) -> Output
        init(_ run: @escaping (Input) -> Output) { self.run = run }
    }

    private final class CancelOnRelease: Sendable {
        let pool: OrderedWorkerPool
        init(_ pool: OrderedWorkerPool) { self.pool = pool }
        deinit { pool.cancel() }
    }
}
