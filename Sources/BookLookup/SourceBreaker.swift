import Foundation
import MetadataSources
import Synchronization

/// Per-source circuit breaker shared by every lookup of a LookupService (`lookup`,
/// `pending retry`, scans, imports). A source that could not be reached at all (DNS,
/// refused, unreachable) or did not answer in time is paused at once; one asking to wait
/// (429 Retry-After, daily quota) is paused for that long; other transient failures pause
/// it after `threshold` in a row. While paused, lookups skip it (and queue their book at
/// once when no other source knows it); one probe goes through every `probeInterval`.
public final class SourceBreaker: Sendable {
    public struct Pause: Sendable, Hashable {
        public let error: SourceError
        public let until: Date
    }

    public let threshold: Int
    public let probeInterval: TimeInterval
    private struct State {
        var failures: [String: Int] = [:]
        var paused: [String: Pause] = [:]
        var probing: Set<String> = []
    }
    private let state = Mutex(State())

    public init(threshold: Int = 3, probeInterval: TimeInterval = 30) {
        self.threshold = max(1, threshold)
        self.probeInterval = probeInterval
    }

    /// The error to report instead of asking `source`, or nil when it may be asked (a probe
    /// when the pause is over: the others still wait for its answer).
    public func pausedError(for source: String, now: Date) -> SourceError? {
        state.withLock { state in
            guard let pause = state.paused[source] else { return nil }
            if now >= pause.until, !state.probing.contains(source) {
                state.probing.insert(source)
                return nil
            }
            return pause.error
        }
    }

    public func record(_ outcome: Result<Void, SourceError>, for source: String, now: Date) {
        state.withLock { state in
            state.probing.remove(source)
            switch outcome {
            case .success:
                state.failures[source] = nil
                state.paused[source] = nil
            case .failure(let error):
                guard error.isTransient else { return }
                let count = (state.failures[source] ?? 0) + 1
                state.failures[source] = count
                let immediate = error.isConnectionLevel || error == .timeout || error == .quotaExceeded || error.retryAfter != nil
                guard immediate || count >= threshold else { return }
                let wait = max(probeInterval, error.retryAfter ?? 0, error == .quotaExceeded ? 3600 : 0)
                state.paused[source] = Pause(error: error, until: now.addingTimeInterval(wait))
            }
        }
    }

    public func isPaused(_ source: String) -> Bool { state.withLock { state in state.paused[source] != nil } }
}
