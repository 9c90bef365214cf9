import BookCodes
import BookLookup
import Catalogue
import Foundation

/// The one way a book enters the library, whichever door it came through (a barcode, a
/// spine, an import row, an ISBN typed by hand, a queued or not-found retry):
///
///     resolve   ISBN            → IntakeResolution   (LookupService: cache, sources in order, pending queue, breaker)
///       → add   IntakeResolution → IntakeOutcome      (the catalogue's add, one write transaction; a code no
///                                                      source knows is remembered with its origin)
///       → record / emit                                (the door counts it in an `IntakeTally` and prints it
///                                                      under the outcome's one name, `IntakeOutcome.Kind`)
///
/// Doors that must look up ahead (a scan's next frames) call `resolve` and `add` apart;
/// the others call `take`. A door that identified the book itself (a spine match, a review
/// entry, a title typed by hand) calls `own`. This type is the only caller of the
/// catalogue's `addOwned`; import's chunks use its batch form (`fileImportChunk`).
public final class Intake: Sendable {
    public struct Settings: Sendable {
        /// The list books are added to (nil: the default list).
        public var listId: String?
        /// physical, ebook or audiobook.
        public var format: String
        /// Cache only; a miss is queued without touching the network (`--offline`).
        public var offline: Bool
        /// The station adding (`--station`, `RAPIDSCAN_STATION`, config `station`): recorded on
        /// each item it adds and on its resume rows.
        public var station: String

        public init(listId: String? = nil, format: String = OwnedFormat.physical.rawValue, offline: Bool = false, station: String = Station.hostName) {
            self.listId = listId
            self.format = format
            self.offline = offline
            self.station = station
        }
    }

    public let lookup: LookupService
    public let settings: Settings
    public var catalogue: any CatalogueStore { lookup.catalogue }

    public init(lookup: LookupService, settings: Settings = Settings()) {
        self.lookup = lookup
        self.settings = settings
    }

    /// An intake over the cache alone (no source): for doors whose books are already
    /// identified and cached (spine matches, review entries).
    public convenience init(catalogue: any CatalogueStore, settings: Settings = Settings()) {
        self.init(lookup: LookupService(catalogue: catalogue, sources: []), settings: settings)
    }

    // MARK: - The stages

    /// Stage "resolve": the cache, then the sources, always with the intent to own, so a
    /// lookup that cannot be answered now is queued (the service's one pending path).
    public func resolve(_ isbn: ISBN13) async -> IntakeResolution {
        let intent = PendingIntent.own(listId: settings.listId, format: settings.format)
        return IntakeResolution(await lookup.lookup(isbn, offline: settings.offline, intent: intent), offline: settings.offline)
    }

    /// Stage "add": one write transaction decides Added / Already in Library / Library Full;
    /// unanswered → queued; a code no source knows is remembered with its origin
    /// (`library notfound`); a database failure is a failure, never "queued".
    public func add(_ isbn: ISBN13, _ resolution: IntakeResolution, from origin: IntakeOrigin) -> IntakeOutcome {
        let bare = IntakeBook(isbn13: isbn, addOn: origin.addOn)
        switch resolution {
        case let .unavailable(.database, reason):
            return .failed(bare, reason: catalogue.naming(reason))
        case let .unavailable(provenance, reason):
            return .queued(IntakeBook(isbn13: isbn, source: provenance.name, addOn: origin.addOn), waitingFor: provenance, reason: reason)
        case .notFound:
            do {
                try catalogue.rememberNotFound(isbn: isbn, origin: origin.place)
                return .notFound(bare)
            } catch {
                return .failed(bare, reason: "no source knows it, and it could not be remembered: \(catalogue.naming(error.description))")
            }
        case let .found(work, provenance):
            return own(isbn, work: work, source: provenance.name, from: origin)
        }
    }

    /// Resolve, then add.
    public func take(_ isbn: ISBN13, from origin: IntakeOrigin) async -> IntakeOutcome {
        add(isbn, await resolve(isbn), from: origin)
    }

    /// Adds a book the door identified itself (a spine match, a review entry, a title typed by hand).
    public func own(_ isbn: ISBN13, work: Work, source: String?, from origin: IntakeOrigin) -> IntakeOutcome {
        let book = IntakeBook(isbn, work: work, source: source, addOn: origin.addOn)
        do {
            return Self.outcome(try store(isbn, work: work, listId: settings.listId, format: settings.format, from: origin), book: book)
        } catch {
            return .failed(book, reason: catalogue.naming(error.description))
        }
    }

    /// The one call of the catalogue's add. A queued lookup's list may have been deleted
    /// since it was queued: the default list then.
    private func store(_ isbn: ISBN13, work: Work, listId: String?, format: String, from origin: IntakeOrigin) throws(CatalogueError) -> AddOutcome {
        do {
            return try catalogue.addOwned(isbn: isbn, work: work, listId: listId, format: format, station: settings.station, now: Date())
        } catch .unknownList where origin == .pendingRetry && listId != nil {
            return try store(isbn, work: work, listId: nil, format: format, from: origin)
        }
    }

    /// The catalogue's verdict as an outcome.
    public static func outcome(_ added: AddOutcome, book: IntakeBook) -> IntakeOutcome {
        var book = book
        switch added {
        case let .added(item):
            book.itemId = item.id
            return .added(book)
        case let .alreadyOwned(item):
            book.itemId = item.id
            return .alreadyOwned(book)
        case let .libraryFull(owned, limit):
            return .libraryFull(book, owned: owned, limit: limit)
        }
    }

    // MARK: - Batch forms of the same add

    /// Import's chunk: the books filed and the chunk's rows marked done in one transaction
    /// (the same rules as `add`: already owned, the free plan's limit); outcomes in order.
    public func fileImportChunk(_ books: [ImportedBook], sources: [String?], fileHash: String, doneLines: [(Int, String)]) throws(CatalogueError) -> [IntakeOutcome] {
        let outcomes = try catalogue.importBooks(books, fileHash: fileHash, doneLines: doneLines, station: settings.station)
        return zip(books, zip(sources, outcomes)).map { book, answer in
            Self.outcome(answer.1, book: IntakeBook(book.isbn, work: book.work, source: answer.0, addOn: nil))
        }
    }

    /// A rapidscan JSON backup restored losslessly, under the same free-plan limit as every add.
    public func restore(_ snapshot: LibrarySnapshot) throws(LibraryError) -> RestoreSummary {
        try catalogue.restore(snapshot)
    }

    /// `pending retry`: queued lookups asked again; books a scan wanted owned go through
    /// this intake's add. Each result with the outcome it came to (nil: a lookup-only row found).
    public func retryPending(now: Date? = nil, onlyDue: Bool = true) async throws(CatalogueError) -> [(retry: PendingRetryOutcome, outcome: IntakeOutcome?)] {
        let retried = try await lookup.retryPending(now: now, onlyDue: onlyDue) { isbn, work, intent throws(CatalogueError) in
            try self.store(isbn, work: work, listId: intent.listId, format: intent.format, from: .pendingRetry)
        }
        return retried.map { ($0, outcome(retried: $0)) }
    }

    func outcome(retried: PendingRetryOutcome) -> IntakeOutcome? {
        let bare = IntakeBook(isbn13: retried.isbn)
        switch (retried.result, retried.added) {
        case let (.found(work, fromCache), added?):
            return Self.outcome(added, book: IntakeBook(retried.isbn, work: work, source: fromCache ? "cache" : work.apiSource, addOn: nil))
        case (.found, nil):
            // Found but not added: a lookup-only row, or the add failed and the row was kept.
            guard let row = retried.stillPending else { return nil }
            return .failed(bare, reason: row.reason)
        case (.notFound, _):
            // Dropped from the queue, remembered like every code no source knows (`library notfound`).
            return add(retried.isbn, .notFound, from: .pendingRetry)
        case let (.unavailable(source, reason), _):
            return source == .database ? .failed(bare, reason: catalogue.naming(reason))
                : .queued(IntakeBook(isbn13: retried.isbn, source: source.name), waitingFor: source, reason: reason)
        }
    }
}

/// Stage "record": how many of each outcome a door's run came to.
public struct IntakeTally: Sendable, Hashable {
    public private(set) var counts: [IntakeOutcome.Kind: Int] = [:]

    public init() {}

    public mutating func count(_ kind: IntakeOutcome.Kind, _ n: Int = 1) { counts[kind, default: 0] += n }
    public mutating func count(_ outcome: IntakeOutcome) { count(outcome.kind) }
    public subscript(kind: IntakeOutcome.Kind) -> Int { counts[kind, default: 0] }
    /// The kinds that happened at least once (what the exit policy reads).
    public var kinds: Set<IntakeOutcome.Kind> { Set(counts.filter { $0.value > 0 }.keys) }
}
