import BookCodes
import BookLookup
import Catalogue
import Foundation
import MetadataSources

/// Stage "lookup": ISBN → book through the cache and the metadata sources. A scan always
/// asks with the intent to own, so a lookup that cannot be answered now is queued in
/// pendingLookups and `rapidscan pending retry` adds the book later.
///
/// When the sources keep failing (no network: every lookup would wait for DNS, time-outs and
/// retries), the stage stops asking them for a while: books not in the cache are queued at
/// once with the last failure's reason, and one lookup goes to the network again every
/// `probeInterval` to notice that it is back.
public struct LookupStage: Sendable {
    public let service: LookupService
    /// Cache only; a miss is queued without touching the network (`--offline`).
    public let offline: Bool
    public let intent: PendingIntent
    private let breaker: Locked<SourceBreaker>
    /// Network lookups in flight at once; the others wait here, so they see the breaker's
    /// verdict on the ones before them instead of all queuing up behind a dead network.
    private let permits: AsyncSemaphore

    public init(service: LookupService, offline: Bool, listId: String?,
                failuresBeforePause: Int = 3, probeInterval: TimeInterval = 30, concurrentLookups: Int = 4) {
        self.service = service
        self.offline = offline
        intent = .own(listId: listId)
        breaker = Locked(SourceBreaker(threshold: failuresBeforePause, probeInterval: probeInterval))
        permits = AsyncSemaphore(limit: concurrentLookups)
    }

    public func resolve(_ isbn: ISBN13) async -> LookupResult {
        if offline { return await service.lookup(isbn, offline: true, intent: intent) }
        // Cache hits need no permit and no network.
        let cached = await service.lookup(isbn, offline: true, intent: nil)
        guard case .unavailable = cached else { return cached }
        await permits.acquire()
        defer { Task { await permits.release() } }
        if let paused = breaker.withLock({ $0.pausedFailure(now: Date()) }) {
            _ = try? service.catalogue.enqueuePending(
                isbn: isbn, reason: paused.reason, source: paused.source,
                nextRetryAt: Date().addingTimeInterval(service.schedule.delay(afterAttempts: 1, error: nil)), intent: intent)
            return .unavailable(source: paused.source, reason: paused.reason)
        }
        let result = await service.lookup(isbn, offline: false, intent: intent)
        breaker.withLock { breaker in
            if case let .unavailable(source, reason) = result, source != "database" {
                breaker.failed(source: source, reason: reason, now: Date())
            } else {
                breaker.succeeded()
            }
        }
        return result
    }
}

/// Counts consecutive lookups the sources could not answer; past `threshold` the sources
/// are paused, with one probe let through every `probeInterval`.
struct SourceBreaker: Sendable {
    let threshold: Int
    let probeInterval: TimeInterval
    private var consecutiveFailures = 0
    private var lastFailure: (source: String, reason: String)?
    private var lastProbe = Date.distantPast

    init(threshold: Int, probeInterval: TimeInterval) {
        self.threshold = max(1, threshold)
        self.probeInterval = probeInterval
    }

    /// The failure to report instead of asking, or nil when this lookup may go to the sources.
    mutating func pausedFailure(now: Date) -> (source: String, reason: String)? {
        guard consecutiveFailures >= threshold, let lastFailure else { return nil }
        if now.timeIntervalSince(lastProbe) >= probeInterval {
            lastProbe = now
            return nil
        }
        return lastFailure
    }

    mutating func failed(source: String, reason: String, now: Date) {
        consecutiveFailures += 1
        lastFailure = (source, reason)
        if consecutiveFailures == threshold { lastProbe = now }
    }

    mutating func succeeded() {
        consecutiveFailures = 0
        lastFailure = nil
    }
}
