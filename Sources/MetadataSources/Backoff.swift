import Foundation

/// Exponential back-off, the one formula for every retry: `base`·2^(attempt−1), capped at
/// `maximum`, then scaled by a random factor from `spread` so many callers do not retry in
/// lockstep. An HTTP request retries within seconds (`HTTPClient`); a queued lookup within
/// hours (`RetrySchedule`); both ask this.
public struct Backoff: Sendable, Hashable {
    public var base: TimeInterval
    public var maximum: TimeInterval
    public var spread: ClosedRange<Double>

    public init(base: TimeInterval, maximum: TimeInterval, spread: ClosedRange<Double>) {
        self.base = base
        self.maximum = maximum
        self.spread = spread
    }

    /// The delay after the `attempt`-th failure (1 for the first); `random` in 0...1 picks
    /// the factor within `spread`.
    public func delay(afterAttempt attempt: Int, random: Double = Double.random(in: 0...1)) -> TimeInterval {
        let exponent = Double(min(max(attempt - 1, 0), 30))
        let factor = spread.lowerBound + (spread.upperBound - spread.lowerBound) * min(max(random, 0), 1)
        return min(maximum, base * pow(2, exponent)) * factor
    }
}
