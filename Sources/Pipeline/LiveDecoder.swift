import Foundation
import WorkerPools

/// Decodes one frame; one instance per decode thread (zbar scanners are not thread-safe).
public protocol FrameDecoder: AnyObject {
    func decode(_ frame: Frame) -> DecodedFrame.Outcome
}

/// Stage "decode" for `watch`: frames are submitted as they land, decoded on `workers`
/// threads (an `OrderedWorkerPool`), and come out of `results` in landing order (a reorder
/// buffer holds a frame that finished early until the ones before it are out). Waiting frames
/// beyond the drop policy's capacity come out, in their place, as `.dropped` instead of being decoded.
public final class LiveDecoder: Sendable {
    public let results: AsyncStream<DecodedFrame>
    private let pool: OrderedWorkerPool<Frame, DecodedFrame>

    /// `keepNewest` 0 keeps every frame (no dropping).
    public init(workers: Int, keepNewest: Int, makeDecoder: @escaping @Sendable () throws -> any FrameDecoder) rethrows {
        pool = try OrderedWorkerPool(
            workers: workers, name: "rapidscan-decode",
            queue: FrameDropPolicy<Numbered<Frame>>(capacity: keepNewest),
            dropped: { DecodedFrame(frame: $0, outcome: .dropped) }
        ) {
            let decoder = try makeDecoder()
            return { DecodedFrame(frame: $0, outcome: decoder.decode($0)) }
        }
        results = pool.results()
    }

    /// Queues a landed frame; older waiting frames may be dropped to keep latency low.
    public func submit(_ frame: Frame) { pool.submit(frame) }

    /// No more frames: the workers drain what is queued, then `results` ends.
    public func finish() { pool.finish() }
}

extension FrameDropPolicy: WaitingQueue {}
