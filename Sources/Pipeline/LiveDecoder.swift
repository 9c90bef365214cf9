import Foundation
import Synchronization

/// Decodes one frame; one instance per decode thread (zbar scanners are not thread-safe).
public protocol FrameDecoder: AnyObject {
    func decode(_ frame: Frame) -> DecodedFrame.Outcome
}

/// Stage "decode" for `watch`: frames are submitted as they land, decoded on `workers`
/// threads, and come out of `results` in landing order (a reorder buffer holds a frame that
/// finished early until the ones before it are out). Waiting frames beyond the drop policy's
/// capacity come out as `.dropped` instead of being decoded.
public final class LiveDecoder: Sendable {
    private struct State {
        var queue: FrameDropPolicy<Frame>
        var nextSequence = 0
        var inputFinished = false
        var nextToEmit = 0
        var finishedEarly: [Int: DecodedFrame] = [:]
        var runningWorkers: Int
    }

    public let results: AsyncStream<DecodedFrame>
    private let continuation: AsyncStream<DecodedFrame>.Continuation
    private let state: Mutex<State>
    private let condition = NSCondition()

    /// `keepNewest` 0 keeps every frame (no dropping).
    public init(workers: Int, keepNewest: Int, makeDecoder: @escaping @Sendable () throws -> any FrameDecoder) rethrows {
        let workers = max(1, workers)
        (results, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        state = Mutex(State(queue: FrameDropPolicy(capacity: keepNewest), runningWorkers: workers))
        var decoders: [any FrameDecoder] = []
        for _ in 0..<workers { decoders.append(try makeDecoder()) }
        for (index, decoder) in decoders.enumerated() {
            let box = DecoderBox(decoder)
            let thread = Thread { [self] in work(box.decoder) }
            thread.name = "rapidscan-decode-\(index)"
            thread.start()
        }
    }

    /// Queues a landed frame; older waiting frames may be dropped to keep latency low.
    public func submit(_ frame: Frame) {
        condition.lock()
        let dropped = state.withLock { $0.queue.admit(frame) }
        condition.signal()
        condition.unlock()
        for frame in dropped { continuation.yield(DecodedFrame(frame: frame, outcome: .dropped)) }
    }

    /// No more frames: the workers drain what is queued, then `results` ends.
    public func finish() {
        condition.lock()
        state.withLock { $0.inputFinished = true }
        condition.broadcast()
        condition.unlock()
    }

    private func work(_ decoder: any FrameDecoder) {
        while let (sequence, frame) = take() {
            let decoded = DecodedFrame(frame: frame, outcome: decoder.decode(frame))
            state.withLock { state in
                state.finishedEarly[sequence] = decoded
                while let ready = state.finishedEarly.removeValue(forKey: state.nextToEmit) {
                    continuation.yield(ready)
                    state.nextToEmit += 1
                }
            }
        }
        let last = state.withLock { state in
            state.runningWorkers -= 1
            return state.runningWorkers == 0
        }
        if last { continuation.finish() }
    }

    /// Blocks until a frame is waiting (numbered in landing order) or input has finished.
    private func take() -> (Int, Frame)? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            let taken: (Int, Frame)?? = state.withLock { state in
                if let frame = state.queue.next() {
                    defer { state.nextSequence += 1 }
                    return (state.nextSequence, frame)
                }
                return state.inputFinished ? .some(nil) : nil
            }
            if let taken { return taken }
            condition.wait()
        }
    }
}

/// Hands a decoder (not Sendable) to the one thread that will own it.
private final class DecoderBox: @unchecked Sendable {
    let decoder: any FrameDecoder
    init(_ decoder: any FrameDecoder) { self.decoder = decoder }
}
