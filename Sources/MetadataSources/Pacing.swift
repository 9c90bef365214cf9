import Foundation

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

/// Token bucket: `rate` requests per second with bursts of up to `capacity`. Each caller
/// reserves the next free slot, so concurrent callers are spaced fairly.
public actor TokenBucket {
    public let rate: Double
    public let capacity: Double
    private let clock: any PacingClock
    private var tokens: Double
    private var updated: TimeInterval

    public init(rate: Double, capacity: Double? = nil, clock: any PacingClock = SystemPacingClock()) {
        precondition(rate > 0, "rate must be positive")
        self.rate = rate
        self.capacity = max(1, capacity ?? rate.rounded(.down))
        self.clock = clock
        self.tokens = self.capacity
        self.updated = clock.now
    }

    /// Waits until a request may be sent.
    public nonisolated func acquire() async {
        let wait = await reserve()
        if wait > 0 { await clock.sleep(seconds: wait) }
    }

    /// Takes a token (possibly one not yet earned) and says how long to wait for it.
    private func reserve() -> TimeInterval {
        let now = clock.now
        tokens = min(capacity, tokens + (now - updated) * rate)
        updated = now
        tokens -= 1
        return tokens >= 0 ? 0 : -tokens / rate
    }
}
