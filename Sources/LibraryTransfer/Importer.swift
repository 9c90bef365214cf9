import BookCodes
import BookLookup
import Catalogue
import Foundation

/// What happened to one row.
public struct ImportEvent: Sendable, Hashable {
    public enum Kind: String, Sendable {
        case added, alreadyPresent, notFound, queued, libraryFull, badRow, skipped
    }
    public var kind: Kind
    public var file: String
    public var line: Int
    public var isbn: String?
    public var title: String?
    public var authors: [String]?
    public var workKey: String?
    public var source: String?
    public var reason: String?
}

public struct ImportSummary: Sendable, Hashable {
    public var imported = 0
    public var alreadyPresent = 0
    public var notFound = 0
    public var queued = 0
    public var libraryFull = 0
    public var badRows = 0
    /// Rows a previous run of the same file finished (resume).
    public var skipped = 0
    public init() {}

    mutating func count(_ kind: ImportEvent.Kind) {
        switch kind {
        case .added: imported += 1
        case .alreadyPresent: alreadyPresent += 1
        case .notFound: notFound += 1
        case .queued: queued += 1
        case .libraryFull: libraryFull += 1
        case .badRow: badRows += 1
        case .skipped: skipped += 1
        }
    }
}

/// Runs import rows through the lookup stage the scans use (cache first, then the sources,
/// paced by each source; a source that cannot answer queues the ISBN in `pending` with the
/// intent to own it) and files them with the library's rules (already owned, free-plan
/// limit). Rows go in chunks: lookups of a chunk run `width` at a time, the books are
/// filed in file order, then the chunk's rows are marked done, so a re-run of the same
/// file (after Ctrl-C or kill -9) skips them — and a row filed but not yet marked is
/// "already present" the second time, never a duplicate.
public struct Importer: Sendable {
    public let service: LookupService
    public var width: Int
    public var chunkSize: Int
    public var offline: Bool

    public init(service: LookupService, width: Int = 8, chunkSize: Int = 200, offline: Bool = false) {
        self.service = service
        self.width = width
        self.chunkSize = chunkSize
        self.offline = offline
    }

    enum Resolution: Sendable {
        case work(ISBN13, Work, source: String)
        case notFound(String)
        case queued(String)
    }

    public func run(_ file: ImportText, parsed: ParsedImport, onEvent: @Sendable (ImportEvent) -> Void = { _ in }, shouldStop: @Sendable () -> Bool = { false }) async throws(CatalogueError) -> ImportSummary {
        var summary = ImportSummary()
        let catalogue = service.catalogue
        for bad in parsed.badRows {
            summary.count(.badRow)
            onEvent(ImportEvent(kind: .badRow, file: file.path, line: bad.line, reason: bad.reason))
        }
        let done = try catalogue.importedLines(fileHash: file.contentHash)
        let todo = parsed.rows.filter { !done.contains($0.line) }
        summary.skipped = parsed.rows.count - todo.count
        var start = 0
        while start < todo.count, !shouldStop() {
            let chunk = Array(todo[start..<min(start + chunkSize, todo.count)])
            start += chunk.count
            let resolutions = try await resolveChunk(chunk)
            var events: [ImportEvent] = []
            var books: [ImportedBook] = []
            var bookEvents: [Int] = []
            var finished: [(Int, String)] = []
            for (row, resolution) in zip(chunk, resolutions) {
                var event = ImportEvent(kind: .notFound, file: file.path, line: row.line, isbn: row.isbn?.digits, title: row.title, authors: row.authors.isEmpty ? nil : row.authors)
                switch resolution {
                case let .work(code, work, source):
                    (event.isbn, event.title, event.authors, event.workKey, event.source) = (code.digits, work.title, work.authors, work.workKey, source)
                    let state = ImportedState(isOwned: row.isOwned, listType: row.listType, status: row.status, rating: row.rating,
                                              dateRead: row.dateRead, dateAdded: row.dateAdded, notes: row.notes)
                    books.append(ImportedBook(line: row.line, isbn: code, work: work, state: state))
                    bookEvents.append(events.count)
                case let .notFound(reason):
                    event.reason = reason
                    if let code = row.isbn { try catalogue.rememberNotFound(isbn: code, origin: "\(file.path):\(row.line)") }
                    finished.append((row.line, ImportEvent.Kind.notFound.rawValue))
                case let .queued(reason):
                    // A queued lookup is not done: the same file later adds it.
                    event.kind = .queued
                    event.reason = reason
                }
                events.append(event)
            }
            // The chunk's books are filed and its rows marked in one transaction; events go
            // out only once that has committed.
            let outcomes = try catalogue.importBooks(books, fileHash: file.contentHash, doneLines: finished)
            for (index, outcome) in zip(bookEvents, outcomes) {
                switch outcome {
                case .added: events[index].kind = .added
                case .alreadyOwned: events[index].kind = .alreadyPresent
                case let .libraryFull(owned, limit):
                    events[index].kind = .libraryFull
                    events[index].reason = "the free plan holds \(limit) owned books (\(owned) owned)"
                }
            }
            for event in events {
                summary.count(event.kind)
                onEvent(event)
            }
        }
        return summary
    }

    /// The chunk's cached books in one read; only the others are looked up, `width` at a time.
    func resolveChunk(_ chunk: [ImportRow]) async throws(CatalogueError) -> [Resolution] {
        let cached = try service.catalogue.works(forISBNs: chunk.compactMap(\.isbn))
        var resolutions: [Resolution?] = chunk.map { row in
            guard let code = row.isbn, let work = cached[code.digits] else { return nil }
            return .work(code, work, source: "cache")
        }
        let misses = resolutions.indices.filter { resolutions[$0] == nil }
        let answers = await concurrentMap(misses.map { chunk[$0] }, width: width) { row in await resolve(row) }
        for (index, answer) in zip(misses, answers) { resolutions[index] = answer }
        return resolutions.map { $0! }
    }

    func resolve(_ row: ImportRow) async -> Resolution {
        if let code = row.isbn {
            switch await service.lookup(code, offline: offline, intent: row.isOwned ? .own() : .lookupOnly) {
            case let .found(work, fromCache): return .work(code, work, source: fromCache ? "cache" : work.apiSource)
            case .notFound: return .notFound("no source knows ISBN \(code.digits)")
            case let .unavailable(source, reason): return .queued("\(source) could not answer: \(reason)")
            }
        }
        guard let title = row.title, !title.isEmpty else { return .notFound("the row has neither an ISBN nor a title") }
        return await match(title: title, authors: row.authors)
    }

    /// A row without an ISBN: the catalogue's full-text search, then the sources' title
    /// search; a candidate counts only when its title and an author's surname agree.
    func match(title: String, authors: [String]) async -> Resolution {
        let wanted = TitleMatch.normalized(title)
        let surname = authors.first.flatMap { $0.split(separator: " ").last.map { String($0).lowercased() } }
        func confirmed(_ work: Work) -> ISBN13? {
            guard TitleMatch.normalized(work.title) == wanted else { return nil }
            if let surname, !work.authors.contains(where: { $0.lowercased().contains(surname) }) { return nil }
            return try? ISBN13(validating: work.primaryIsbn)
        }
        let local = (try? service.catalogue.searchWorks("\(title) \(authors.first ?? "")", limit: 10)) ?? []
        if let work = local.first(where: { confirmed($0) != nil }), let code = confirmed(work) { return .work(code, work, source: "cache") }
        if offline { return .notFound("no ISBN, and no book in the cache is titled '\(title)'") }
        let outcome = await service.search(title: wanted.isEmpty ? title : title, author: surname, limit: 10)
        if let work = outcome.works.first(where: { confirmed($0) != nil }), let code = confirmed(work) {
            return .work(code, work, source: outcome.source?.name ?? work.apiSource)
        }
        if outcome.works.isEmpty && !outcome.failures.isEmpty { return .queued("no ISBN, and the title search could not be answered now") }
        return .notFound("no ISBN, and no source has a book titled '\(title)'\(authors.first.map { " by \($0)" } ?? "")")
    }
}

enum TitleMatch {
    /// Lowercased words without a "(Series, #1)" suffix or a subtitle, punctuation dropped.
    static func normalized(_ title: String) -> String {
        var text = title
        if let paren = text.range(of: " (", options: .backwards), text.hasSuffix(")") { text = String(text[..<paren.lowerBound]) }
        if let colon = text.firstIndex(of: ":") { text = String(text[..<colon]) }
        return SearchText(text).words.map { $0.lowercased() }.joined(separator: " ")
    }
}
