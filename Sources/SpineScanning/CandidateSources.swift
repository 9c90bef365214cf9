import BookCodes
import BookMetadata
import Catalogue
import Foundation
import MetadataSources
import SpineMatching
import Synchronization

/// The local cache as candidates: every cached work in an in-memory word index, built once
/// per run (10,000 works take well under a second; matching then costs microseconds).
public final class CacheCandidateSource: CandidateSource, Sendable {
    private let catalogue: any CatalogueStore
    private let index = Mutex<WorkIndex?>(nil)

    public init(catalogue: any CatalogueStore) { self.catalogue = catalogue }

    public func candidates(for query: CandidateQuery, limit: Int) async throws -> [PreparedCandidate] {
        try currentIndex().candidates(for: query, limit: limit)
    }

    public func books(by authors: [String], limit: Int) async throws -> [PreparedCandidate] {
        Array(try currentIndex().works(byAuthors: authors).prefix(limit))
    }

    /// Works recorded from a source search join the index on its next rebuild.
    public func invalidate() { index.withLock { $0 = nil } }

    /// Built under the lock, so readings matched concurrently build it once.
    private func currentIndex() throws -> WorkIndex {
        try index.withLock { index in
            if let index { return index }
            let works = try catalogue.allWorkSummaries().map {
                MatchCandidate(workKey: $0.workKey, title: $0.title, authors: $0.authors, isbn13: $0.isbn.isEmpty ? nil : $0.isbn, source: "cache")
            }
            let built = WorkIndex(works)
            index = built
            return built
        }
    }
}

/// A metadata source's title/author search (Google Books `intitle:`/`inauthor:`, Open
/// Library search) as candidates; what it returns is recorded into the cache.
public struct SearchCandidateSource: CandidateSource {
    public let source: any MetadataSource
    public let catalogue: any CatalogueStore
    /// Called with each source failure (the reading is then queued rather than unmatched).
    public let onFailure: @Sendable (String, SourceError) -> Void

    public init(source: any MetadataSource, catalogue: any CatalogueStore, onFailure: @escaping @Sendable (String, SourceError) -> Void = { _, _ in }) {
        self.source = source
        self.catalogue = catalogue
        self.onFailure = onFailure
    }

    public func candidates(for query: CandidateQuery, limit: Int) async throws -> [PreparedCandidate] {
        // No title and no words: an author's books (shelf context).
        let title = query.title.isEmpty ? query.text : query.title
        var editions: [EditionMetadata]
        do {
            editions = try await source.search(title: title, author: query.author, limit: min(limit, 20))
            // A misread author name finds nothing with inauthor:; the title alone may (the matcher still checks the author).
            if editions.isEmpty, query.author != nil, !title.isEmpty {
                editions = try await source.search(title: title, author: nil, limit: min(limit, 20))
            }
        } catch {
            onFailure(source.name, error)
            throw error
        }
        // A result the cache cannot file is a failure of the search (the reading is then
        // queued, not settled as matching nothing).
        return try editions.compactMap { edition throws(CatalogueError) -> PreparedCandidate? in
            let work = try catalogue.recordSearchResult(edition)
            let isbn = [edition.isbn13, edition.isbn10].compactMap { $0 }.compactMap { try? ISBN13(validating: $0) }.first?.digits
            let title = [edition.title, edition.subtitle].compactMap { $0 }.joined(separator: ": ")
            return PreparedCandidate(MatchCandidate(workKey: work.workKey, title: title, authors: edition.authors,
                                                    isbn13: isbn ?? (work.primaryIsbn.isEmpty ? nil : work.primaryIsbn), source: source.name))
        }
    }
}
