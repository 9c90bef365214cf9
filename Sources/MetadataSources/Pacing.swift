import Foundation
import Synchronization

/// Time as the HTTP client sees it: a monotonic "now" and a way to wait. Tests inject a
/// manual clock so back-off and rate-limit waits are recorded instead of slept.
public protocol PacingClock: Sendable {
    /// Seconds on a monotonic scale (only differences matter).
    var now: TimeInterval { get }
    /// Waits `seconds` (returns early, without error, if the task is cancelled).
    func sleep(seconds: TimeInterval) async
}

/// The real clock: `ContinuousClock` and `Task.sleep`.
public struct SystemPacingClock: PacingClock {
    private static let origin = ContinuousClock.now

    public init() {}

    public var now: TimeInterval {
        let elapsed = ContinuousClock.now - Self.origin
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    public func sleep(seconds: TimeInterval) async {
        guard seconds > 0 else { return }
        try? await Task.sleep(for: .seconds(seconds))
    }
}

/// The time requests to one source waited for its rate limit, and how to say so: what a user
/// is told when a source's pacing, not the work, is what they wait for.
public final class SourcePacing: Sendable {
    /// The source as people read it ("Open Library").
    public let source: String
    /// The pace and how to change it ("1 request/s without a contact; set [sources.openLibrary] contact for 3/s").
    public let advice: String
    private struct State {
        var seconds: TimeInterval = 0
        var requests = 0
        /// The end of the last wait: waits of concurrent requests overlap and are counted once.
        var waitingUntil: TimeInterval = -.infinity
        var onWait: (@Sendable (TimeInterval) -> Void)?
    }
    private let state = Mutex(State())

    public init(source: String, advice: String) {
        self.source = source
        self.advice = advice
    }

    /// "waiting for Open Library: 1 request/s without a contact; set [sources.openLibrary] contact for 3/s".
    public var waitingLine: String { "waiting for \(source): \(advice)" }

    /// Seconds someone waited (overlapping waits once), and how many requests waited.
    public var waited: (seconds: TimeInterval, requests: Int) { state.withLock { ($0.seconds, $0.requests) } }

    /// Called (on the waiting task) as each wait begins, with its length.
    public func onWait(_ handler: @escaping @Sendable (TimeInterval) -> Void) { state.withLock { $0.onWait = handler } }

    /// A wait of `seconds` beginning at `now` (the bucket's clock).
    func record(_ seconds: TimeInterval, at now: TimeInterval) {
        let handler = state.withLock { state in
            state.seconds += max(0, now + seconds - max(now, state.waitingUntil))
            state.waitingUntil = max(state.waitingUntil, now + seconds)
            state.requests += 1
            return state.onWait
        }
        handler?(seconds)
    }
}

/// A source that keeps to a rate limit of its own (Open Library, Library of Congress).
public protocol PacedSource: MetadataSource {
    var pacing: SourcePacing { get }
}

/// Token bucket: `rate` requests per second with bursts of up to `capacity`. Each caller
/// reserves the next free slot, so concurrent callers are spaced fairly.
public actor TokenBucket {
    public let rate: Double
    public let capacity: Double
    private let clock: any PacingClock
    private var tokens: Double
    private var updated: TimeInterval
    /// The last `capacity` sends (reserved times, in order).
    private var sends: [TimeInterval] = []
    /// Where the waits are counted, if anywhere.
    private nonisolated let pacing: SourcePacing?

    public init(rate: Double, capacity: Double? = nil, clock: any PacingClock = SystemPacingClock(), pacing: SourcePacing? = nil) {
        precondition(rate > 0, "rate must be positive")
        self.rate = rate
        self.capacity = max(1, capacity ?? rate.rounded(.down))
        self.clock = clock
        self.tokens = self.capacity
        self.updated = clock.now
        self.pacing = pacing
    }

    /// Waits until a request may be sent.
    public nonisolated func acquire() async {
        let (wait, now) = await reserve()
        guard wait > 0 else { return }
        pacing?.record(wait, at: now)
        await clock.sleep(seconds: wait)
    }

    /// Waits, just before a send, until no `capacity / rate` seconds would hold more than `capacity`
    /// sends. `acquire` spaces the grants, but a request then waits for a connection slot and a
    /// late one goes out right before the next (strace of `spines` against Open Library: 14 of 41
    /// gaps under 1 s): the sends themselves are what the server counts.
    public nonisolated func awaitSendingTime() async {
        let wait = await reserveSend()
        guard wait > 0 else { return }
        await clock.sleep(seconds: wait)
    }

    /// Reserves the earliest time the window allows a send and says how long until then.
    private func reserveSend() -> TimeInterval {
        let now = clock.now
        let window = capacity / rate
        let burst = Int(capacity)
        var at = now
        if sends.count >= burst { at = max(now, sends[sends.count - burst] + window) }
        sends.append(at)
        if sends.count > burst { sends.removeFirst(sends.count - burst) }
        return at - now
    }

    /// Takes a token (possibly one not yet earned) and says how long to wait for it, from when.
    private func reserve() -> (wait: TimeInterval, now: TimeInterval) {
        let now = clock.now
        tokens = min(capacity, tokens + (now - updated) * rate)
        updated = now
        tokens -= 1
        return (tokens >= 0 ? 0 : -tokens / rate, now)
    }
}
