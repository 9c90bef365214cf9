import BookCodes
import Catalogue

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
