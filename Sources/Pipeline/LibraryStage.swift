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

    /// A code no source knew is remembered with the photo it came from (`library notfound`),
    /// to be retried or entered by hand: "Book Not Found" never leads nowhere.
    public func rememberNotFound(_ isbn: ISBN13, file: String) throws(CatalogueError) {
        try catalogue.rememberNotFound(isbn: isbn, origin: file)
    }
}
