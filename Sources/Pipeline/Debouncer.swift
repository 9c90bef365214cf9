import Foundation

/// Stage "debounce" (SPEC §2): a code accepted at capture time t is skipped until t + window.
///
/// The window starts at the accepted scan and is not extended by the repeats it swallows —
/// the seed's `setTimeout(delete, 3000)` semantics. Once it has passed, the same code is
/// processed again (and then usually reports "Already in Library"). Times are capture times
/// handed in by the caller, so the rule is tested with plain numbers, never with sleeps.
public struct Debouncer: Sendable {
    public enum Decision: Sendable, Hashable {
        case accepted
        /// Skipped: the code was accepted at `acceptedAt`; it is accepted again from `until`.
        case debounced(acceptedAt: Date, until: Date)
    }

    public let window: TimeInterval
    private var acceptedAt: [String: Date] = [:]
    private var acceptancesSincePrune = 0

    public static let defaultWindow: TimeInterval = 3

    public init(window: TimeInterval = Debouncer.defaultWindow) {
        self.window = max(0, window)
    }

    /// Decides for `code` (compare codes in one canonical space, e.g. GTIN-13) seen at `time`.
    public mutating func check(_ code: String, at time: Date) -> Decision {
        if let accepted = acceptedAt[code] {
            let until = accepted.addingTimeInterval(window)
            if time < until { return .debounced(acceptedAt: accepted, until: until) }
        }
        acceptedAt[code] = time
        acceptancesSincePrune += 1
        if acceptancesSincePrune >= 1024 { prune(before: time) }
        return .accepted
    }

    /// Forgets codes whose window ended before `time`, so a days-long watch stays small.
    private mutating func prune(before time: Date) {
        acceptedAt = acceptedAt.filter { $0.value.addingTimeInterval(window) > time }
        acceptancesSincePrune = 0
    }
}
