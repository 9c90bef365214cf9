import BookCodes
import BookLookup
import Catalogue

/// Stage "lookup": ISBN → book through the cache and the metadata sources. A scan always
/// asks with the intent to own, so a lookup that cannot be answered now is queued in
/// pendingLookups and `rapidscan pending retry` adds the book later.
public struct LookupStage: Sendable {
    public let service: LookupService
    /// Cache only; a miss is queued without touching the network (`--offline`).
    public let offline: Bool
    public let intent: PendingIntent

    public init(service: LookupService, offline: Bool, listId: String?) {
        self.service = service
        self.offline = offline
        intent = .own(listId: listId)
    }

    public func resolve(_ isbn: ISBN13) async -> LookupResult {
        await service.lookup(isbn, offline: offline, intent: intent)
    }
}

/// Stage "add to library": one write transaction decides Added / Already in Library /
/// Library Full (free plan 50 owned books, Pro unlimited), so each book counts once per user.
public struct LibraryStage: Sendable {
    public let catalogue: Catalogue
    public let listId: String?

    public init(catalogue: Catalogue, listId: String?) {
        self.catalogue = catalogue
        self.listId = listId
    }

    public func addOwned(_ isbn: ISBN13, work: Work) throws(CatalogueError) -> AddOutcome {
        try catalogue.addOwned(isbn: isbn, work: work, listId: listId)
    }
}
