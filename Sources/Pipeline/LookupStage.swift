import BookCodes
import BookLookup
import Catalogue
import Foundation
import MetadataSources

/// Stage "lookup": ISBN → book through the cache and the metadata sources. A scan always
/// asks with the intent to own, so a lookup that cannot be answered now is queued in
/// pendingLookups and `rapidscan pending retry` adds the book later.
///
/// When the sources cannot be reached, the service's breaker (shared with `lookup` and
/// `pending retry`) queues books at once; see BookLookup.SourceBreaker.
public struct LookupStage: Sendable {
    public let service: LookupService
    /// Cache only; a miss is queued without touching the network (`--offline`).
    public let offline: Bool
    public let intent: PendingIntent
    /// Network lookups in flight at once; the others wait here, so they see the breaker's
    /// verdict on the ones before them instead of all queuing up behind a dead network.
    private let permits: AsyncSemaphore

    public init(service: LookupService, offline: Bool, listId: String?,
                failuresBeforePause: Int = 3, probeInterval: TimeInterval = 30, concurrentLookups: Int = 4) {
        self.service = service
        self.offline = offline
        intent = .own(listId: listId)
        permits = AsyncSemaphore(limit: concurrentLookups)
    }

    public func resolve(_ isbn: ISBN13) async -> LookupResult {
        if offline { return await service.lookup(isbn, offline: true, intent: intent) }
        // Cache hits need no permit and no network.
        let cached = await service.lookup(isbn, offline: true, intent: nil)
        guard case .unavailable = cached else { return cached }
        await permits.acquire()
        defer { Task { await permits.release() } }
        // The service's breaker (BookLookup.SourceBreaker) queues at once while the sources are down.
        return await service.lookup(isbn, offline: false, intent: intent)
    }
}
