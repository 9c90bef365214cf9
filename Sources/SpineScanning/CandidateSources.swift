import BookCodes
import BookLookup
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
/// Library search, the local dump) as candidates, asked through the LookupService (its
/// per-source breaker, the source's pacing, `--offline`); what it returns is recorded into the
/// cache. One search is sent once per run: readings of a photo (a spine read several ways, a
/// title on two spines, neighbour joins, shelf context) asking the same share its answer.
public struct SearchCandidateSource: CandidateSource {
    public let source: any MetadataSource
    public let lookup: LookupService
    public let offline: Bool
    /// Called with each source failure (the reading is then queued rather than unmatched).
    public let onFailure: @Sendable (String, SourceError) -> Void
    private let asked = SearchesAsked()

    public init(source: any MetadataSource, lookup: LookupService, offline: Bool = false,
                onFailure: @escaping @Sendable (String, SourceError) -> Void = { _, _ in }) {
        self.source = source
        self.lookup = lookup
        self.offline = offline
        self.onFailure = onFailure
    }

    public var asksNetwork: Bool { !source.isLocal }
    public var isPaced: Bool { source is any PacedSource }
    public var catalogue: String? { source.catalogue }

    public func candidates(for query: CandidateQuery, limit: Int) async throws -> [PreparedCandidate] {
        // No title and no words: an author's books (shelf context).
        let title = query.title.isEmpty ? query.text : query.title
        var found = try await search(title: title, author: query.author, limit: min(limit, 20))
        // A misread author name finds nothing with inauthor:; the title alone may (the matcher still checks the author).
        if found.isEmpty, query.author != nil, !title.isEmpty {
            found = try await search(title: title, author: nil, limit: min(limit, 20))
        }
        // OCR text read as "title author" ("Catching Fire ColIins") finds no title with every word:
        // the title without the word that may be the author. Not on a paced source (a second wait).
        if found.isEmpty, !isPaced, let shorter = query.withoutLastWord {
            found = try await search(title: shorter, author: nil, limit: min(limit, 20))
        }
        // A word misread by a look-alike letter ("Six Degrces") shares no word with its title:
        // the title respelt with the dictionary. Not on a paced source (a second wait).
        if found.isEmpty, !isPaced, let respelled = query.respelledTitle {
            found = try await search(title: respelled, author: nil, limit: min(limit, 20))
        }
        return found
    }

    /// The search's answer, asked once: a second asker waits for the first's answer. A failure
    /// is not kept (the breaker decides whether the next asker tries again).
    private func search(title: String, author: String?, limit: Int) async throws -> [PreparedCandidate] {
        let key = SearchesAsked.Key(title: TextNormalizer.fold(title), author: author.map(TextNormalizer.fold), limit: limit)
        let (task, isNew) = asked.task(for: key) {
            Task { [source, lookup, offline] in
                try await lookup.search(source, title: title, author: author, offline: offline, limit: limit).map { hit in
                    let isbn = [hit.edition.isbn13, hit.edition.isbn10].compactMap { $0 }.compactMap { try? ISBN13(validating: $0) }.first?.digits
                    let shown = [hit.edition.title, hit.edition.subtitle].compactMap { $0 }.joined(separator: ": ")
                    return PreparedCandidate(MatchCandidate(workKey: hit.work.workKey, title: shown, authors: hit.edition.authors,
                                                            isbn13: isbn ?? (hit.work.primaryIsbn.isEmpty ? nil : hit.work.primaryIsbn),
                                                            source: source.name))
                }
            }
        }
        do {
            return try await task.value
        } catch {
            if isNew { asked.forget(key) }
            guard let failure = error as? SourceFailure else { throw error }
            if isNew { onFailure(failure.source, failure.error) }
            // A result the cache cannot file is a failure of the search too (the reading is
            // then queued, not settled as matching nothing).
            throw failure.error
        }
    }
}

/// The searches a SearchCandidateSource has sent in this run, by folded title, author and limit.
final class SearchesAsked: Sendable {
    struct Key: Hashable, Sendable {
        let title: String
        let author: String?
        let limit: Int
    }
    typealias Search = Task<[PreparedCandidate], any Error>
    private let tasks = Mutex<[Key: Search]>([:])

    /// The search already asked for `key`, or the one `start` makes (true: this caller started it).
    func task(for key: Key, start: () -> Search) -> (Search, Bool) {
        tasks.withLock { tasks in
            if let task = tasks[key] { return (task, false) }
            let task = start()
            tasks[key] = task
            return (task, true)
        }
    }

    func forget(_ key: Key) { _ = tasks.withLock { $0.removeValue(forKey: key) } }
}
