import BookCodes
import BookLookup
import Catalogue
import Foundation
import Intake

/// What happened to one row.
public struct ImportEvent: Sendable, Hashable {
    /// A row's book outcome is named as every door names it (`IntakeOutcome.Kind`); a row
    /// that is no book (`badRow`) or was done before (`skipped`) is import's own.
    public enum Kind: String, Sendable {
        case added, alreadyOwned, notFound, queued, libraryFull, failed, badRow, skipped

        init(_ kind: IntakeOutcome.Kind) {
            switch kind {
            case .added: self = .added
            case .alreadyOwned: self = .alreadyOwned
            case .notFound, .unmatched: self = .notFound
            case .queued: self = .queued
            case .libraryFull: self = .libraryFull
            case .failed, .review: self = .failed
            }
        }

        /// The intake's name for a book outcome (nil for a bad or skipped row).
        public var intakeKind: IntakeOutcome.Kind? { IntakeOutcome.Kind(rawValue: rawValue) }
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
    /// Library Full: owned books and the plan's limit.
    public var owned: Int?
    public var limit: Int?
}

/// A list's name as rows and lists are matched: case, spaces and hyphens aside ("Living
/// Room" is Goodreads' shelf "living-room").
enum ListName {
    static func key(_ name: String) -> String {
        name.lowercased().split(whereSeparator: { $0 == " " || $0 == "-" || $0 == "_" }).joined(separator: " ")
    }
}

public struct ImportSummary: Sendable, Hashable {
    public var imported = 0
    public var alreadyPresent = 0
    public var notFound = 0
    public var queued = 0
    public var libraryFull = 0
    /// Rows whose book could not be stored (a database failure): not marked done.
    public var failed = 0
    public var badRows = 0
    /// Rows a previous run of the same file finished (resume).
    public var skipped = 0
    /// Lists the rows named that were made in the library.
    public var listsMade: [String] = []
    /// Lists the rows named that could not be made (the free plan has no custom lists, or
    /// the library refused): their books went to the default lists, and this says why once.
    public var listsNotMade: [String] = []
    public var listsNotMadeReason: String?
    public init() {}

    mutating func count(_ kind: ImportEvent.Kind) {
        switch kind {
        case .added: imported += 1
        case .alreadyOwned: alreadyPresent += 1
        case .notFound: notFound += 1
        case .queued: queued += 1
        case .libraryFull: libraryFull += 1
        case .failed: failed += 1
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
    /// The one way into the library: each chunk is filed through its batch add.
    public let intake: Intake
    public var width: Int
    public var chunkSize: Int
    public var offline: Bool

    public init(service: LookupService, width: Int = 8, chunkSize: Int = 200, offline: Bool = false, station: String = Station.hostName) {
        self.service = service
        intake = Intake(lookup: service, settings: Intake.Settings(offline: offline, station: station))
        self.width = width
        self.chunkSize = chunkSize
        self.offline = offline
    }

    enum Resolution: Sendable {
        case work(ISBN13, Work, source: String)
        case notFound(String)
        /// `source`: who is awaited (a source's name; nil for a title search).
        case queued(String, source: String? = nil)
        /// The library could not be read or written: the row is not done.
        case failed(String)
    }

    /// Imports the file's rows as `format` reads them, a chunk at a time (the file is never
    /// held whole). Throws `CatalogueError` when the library cannot be read or written, and
    /// `ImportError` when the file stops being readable (the rows before it are imported).
    public func run(_ file: ImportText, format: ImportFormat, onEvent: @Sendable (ImportEvent) -> Void = { _ in }, shouldStop: @Sendable () -> Bool = { false }) async throws -> ImportSummary {
        var summary = ImportSummary()
        let catalogue = service.catalogue
        var reader = try format.rows(file)
        let done = try catalogue.importedLines(fileHash: file.contentHash, station: intake.settings.station)
        var unreadable: ImportError?
        // Each list a row names is found or made once, when its first row is filed.
        var listIds: [String: String] = [:]
        while unreadable == nil, !shouldStop() {
            var chunk: [ImportRow] = []
            do {
                while chunk.count < chunkSize, let entry = try reader.next() {
                    switch entry {
                    case let .bad(bad):
                        summary.count(.badRow)
                        onEvent(ImportEvent(kind: .badRow, file: file.path, line: bad.line, reason: bad.reason))
                    case let .row(row) where done.contains(row.line): summary.skipped += 1
                    case let .row(row): chunk.append(row)
                    }
                }
            } catch {
                // The rows read before are imported first.
                unreadable = error
            }
            if chunk.isEmpty { break }
            let newNames = chunk.compactMap(\.listName).filter { listIds[ListName.key($0)] == nil }
            listIds.merge(try resolveLists(named: newNames, summary: &summary)) { known, _ in known }
            let resolutions = try await resolveChunk(chunk)
            var events: [ImportEvent] = []
            var books: [ImportedBook] = []
            var bookSources: [String?] = []
            var bookEvents: [Int] = []
            var finished: [(Int, String)] = []
            for (row, resolution) in zip(chunk, resolutions) {
                var event = ImportEvent(kind: .notFound, file: file.path, line: row.line, isbn: row.isbn?.digits, title: row.title, authors: row.authors.isEmpty ? nil : row.authors)
                switch resolution {
                case let .work(code, work, source):
                    (event.isbn, event.title, event.authors, event.workKey, event.source) = (code.digits, work.title, work.authors, work.workKey, source)
                    let state = ImportedState(isOwned: row.isOwned, listType: row.listType,
                                              listId: row.listName.flatMap { listIds[ListName.key($0)] }, status: row.status, rating: row.rating,
                                              dateRead: row.dateRead, dateAdded: row.dateAdded, notes: row.notes)
                    books.append(ImportedBook(line: row.line, isbn: code, work: work, state: state))
                    bookSources.append(source)
                    bookEvents.append(events.count)
                case let .notFound(reason):
                    event.reason = reason
                    // Remembered by the intake (`library notfound`); a row it could not remember is not done.
                    if let code = row.isbn, case let .failed(_, why) = intake.add(code, .notFound, from: .importRow(file: file.path, line: row.line)) {
                        event.kind = .failed
                        event.reason = why
                    } else {
                        finished.append((row.line, ImportEvent.Kind.notFound.rawValue))
                    }
                case let .queued(reason, source):
                    // A queued lookup is not done: the same file later adds it.
                    event.kind = .queued
                    event.reason = reason
                    event.source = source
                case let .failed(reason):
                    event.kind = .failed
                    event.reason = reason
                }
                events.append(event)
            }
            // The chunk's books are filed and its rows marked in one transaction; events go
            // out only once that has committed.
            let outcomes = try intake.fileImportChunk(books, sources: bookSources, fileHash: file.contentHash, doneLines: finished)
            for (index, outcome) in zip(bookEvents, outcomes) {
                events[index].kind = ImportEvent.Kind(outcome.kind)
                if case let .libraryFull(_, owned, limit) = outcome {
                    (events[index].reason, events[index].owned, events[index].limit) = (outcome.reason, owned, limit)
                }
            }
            for event in events {
                summary.count(event.kind)
                onEvent(event)
            }
        }
        if let unreadable { throw unreadable }
        return summary
    }

    /// The lists of the user's own the rows name (a Goodreads shelf), by `ListName.key`: the
    /// library's list of that name, else one made for it. A list that cannot be made (the free
    /// plan has none) leaves its rows on their default lists; the summary says so once.
    func resolveLists(named names: [String], summary: inout ImportSummary) throws(CatalogueError) -> [String: String] {
        var ids: [String: String] = [:]
        guard !names.isEmpty else { return ids }
        let catalogue = service.catalogue
        for list in try catalogue.lists() where list.listType == .custom { ids[ListName.key(list.name)] = list.id }
        for name in names where ids[ListName.key(name)] == nil && !summary.listsNotMade.contains(name) {
            do {
                let list = try catalogue.createList(name: name, description: nil, now: Date())
                ids[ListName.key(name)] = list.id
                summary.listsMade.append(name)
            } catch {
                if case let .catalogue(failure) = error { throw failure }
                summary.listsNotMade.append(name)
                summary.listsNotMadeReason = summary.listsNotMadeReason ?? error.description
            }
        }
        return ids
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
            case let .unavailable(.database, reason): return .failed(reason)
            // Offline is not a source that failed: its reason stands alone.
            case let .unavailable(.offline, reason): return .queued(reason, source: LookupProvenance.offline.name)
            case let .unavailable(source, reason): return .queued("\(source) could not answer: \(reason)", source: source.name)
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
