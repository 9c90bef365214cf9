import BookCodes
import BookMetadata
import Foundation

// The catalogue seam: what the rest of rapidscan may ask of a store, by role. Value types in
// and out, errors typed (`CatalogueError`, `LibraryError` for the library's rules), no SQL and
// no database library's type in any signature, so a second implementation (PostgreSQL, for
// several stations) can stand where `Catalogue` (SQLite through GRDB) stands today and pass
// the same conformance suite (Tests/CatalogueConformance).
//
// Every rule a store enforces is decided inside the store's own transaction: owned once per
// user and work, the free plan's limit exact under any race, a pending row per ISBN, an
// import chunk filed and its rows marked together.

/// The user's library: items, lists, the user and plan.
public protocol LibraryStore: AnyObject, Sendable {
    /// The local user every library operation applies to.
    var userId: String { get }
    /// The default "Want to Read" list: `{userId}_toRead`.
    var defaultListId: String { get }
    /// Stored values found damaged while reading (each named once).
    var damage: DamageLog { get }
    /// Where the library lives, as a user may be shown it: a file path, or a database URL
    /// without its password.
    var location: String { get }

    func user() throws(CatalogueError) -> User
    func setPro(_ isPro: Bool, now: Date) throws(CatalogueError)
    /// Adds the book as owned, deciding "already owned" (same ISBN, or any edition of the
    /// same work) and "library full" (free plan, `User.freeOwnedLimit`) in one transaction.
    /// The item records `station`, the station that added it.
    func addOwned(isbn: ISBN13, work: Work, listId: String?, format: String, station: String, now: Date) throws(CatalogueError) -> AddOutcome
    func ownedCount() throws(CatalogueError) -> Int
    /// Owned books, oldest first.
    func ownedItems() throws(CatalogueError) -> [Item]
    func item(isbn: ISBN13) throws(CatalogueError) -> Item?
    /// The user's lists: defaults first ("Want to Read", then "Finished"), then by creation.
    func lists() throws(CatalogueError) -> [BookList]
    func list(named nameOrId: String) throws(LibraryError) -> BookList
    /// The query language (`LibraryQuery`): words anywhere in title/author/notes, ranked
    /// best match first under the default sort; `author:`, `isbn:`, `status:`, `list:`, `added:`.
    func items(matching query: LibraryQuery) throws(LibraryError) -> [Item]
    func itemIds(matching query: LibraryQuery) throws(LibraryError) -> [String]
    /// How many items the query selects, its `limit` ignored ("3 of 120 books").
    func count(matching query: LibraryQuery) throws(LibraryError) -> Int
    func removeItems(ids: [String], now: Date) throws(LibraryError) -> Int
    func updateItem(id: String, _ change: ItemChange, now: Date) throws(LibraryError) -> Item
    func moveItem(id: String, toList nameOrId: String, now: Date) throws(LibraryError) -> Item
    func createList(name: String, description: String?, now: Date) throws(LibraryError) -> BookList
    func renameList(_ nameOrId: String, to name: String, now: Date) throws(LibraryError) -> BookList
    func deleteList(_ nameOrId: String, now: Date) throws(LibraryError) -> Int
}

/// Export and lossless restore: typed records out (a snapshot, or a collection's documents
/// by key), a snapshot back in.
public protocol LibraryTransferStore: AnyObject, Sendable {
    /// The items `itemIds` names (all the user's when nil) with their lists, works and
    /// editions; every row that can be read (a damaged one is named in `damage` and left out).
    func snapshot(itemIds: [String]?) throws(LibraryError) -> LibrarySnapshot
    /// Stored records of one collection as documents, by key, sorted by id.
    func documents(_ collection: ExportCollection, keys: [String]) throws(LibraryError) -> [ExportDocument]
    func restore(_ snapshot: LibrarySnapshot, now: Date) throws(LibraryError) -> RestoreSummary
}

/// The work cache and its ISBN index (ISBN-13 -> work), filled as sources answer.
public protocol WorkCache: AnyObject, Sendable {
    func work(forISBN isbn: ISBN13) throws(CatalogueError) -> Work?
    func work(key: String) throws(CatalogueError) -> Work?
    /// Many ISBNs in one read, keyed by ISBN-13 digits; unknown ISBNs are absent.
    func works(forISBNs isbns: [ISBN13]) throws(CatalogueError) -> [String: Work]
    /// A work's editions, primary edition first.
    func editions(of work: Work) throws(CatalogueError) -> [ISBNIndexEntry]
    func isbnIndexEntry(_ isbn: ISBN13) throws(CatalogueError) -> ISBNIndexEntry?
    /// Files what a source said about `isbn`: merged (best data wins) into the work its
    /// ISBN or work key names, or a new work.
    func record(_ edition: EditionMetadata, for isbn: ISBN13, now: Date) throws(CatalogueError) -> Work
    func recordSearchResult(_ edition: EditionMetadata, now: Date) throws(CatalogueError) -> Work
    func recordAll(_ editions: [(EditionMetadata, ISBN13)], now: Date) throws(CatalogueError)
    func recordManual(isbn: ISBN13, title: String, authors: [String], publisher: String?, publishDate: String?, pageCount: Int?, now: Date) throws(CatalogueError) -> Work
    /// Title prefix (leading article ignored), optional author substring; most editions first.
    func searchWorks(title: String, author: String?, limit: Int) throws(CatalogueError) -> [Work]
    /// Words anywhere in title/authors/publisher, best match first; any word when none has all.
    func searchWorks(_ text: String, limit: Int) throws(CatalogueError) -> [Work]
    func allWorkSummaries() throws(CatalogueError) -> [(workKey: String, title: String, authors: [String], isbn: String)]
}

/// Lookups a source could not answer, one row per ISBN, kept until settled.
public protocol PendingLookupQueue: AnyObject, Sendable {
    /// Queues `isbn` or updates its row (one more attempt, the intents merged).
    func enqueuePending(isbn: ISBN13, reason: String, source: String, nextRetryAt: Date, intent: PendingIntent, now: Date) throws(CatalogueError) -> PendingLookup
    /// Rows due at `dueBefore` (all when nil), earliest retry first.
    func pendingLookups(dueBefore: Date?) throws(CatalogueError) -> [PendingLookup]
    func pendingLookup(isbn: ISBN13) throws(CatalogueError) -> PendingLookup?
    func removePending(isbn: ISBN13) throws(CatalogueError)
}

/// What a run has finished with, so the next one resumes: import rows (by file content
/// hash and line, marked in the transaction that filed them) and scanned files.
public protocol ResumeStore: AnyObject, Sendable {
    /// Files a chunk of imported books and marks its finished rows, in one transaction.
    /// Resume rows are per station (rows from before stations, station "", count for every one).
    func importBooks(_ books: [ImportedBook], fileHash: String, doneLines: [(Int, String)], station: String, now: Date) throws(CatalogueError) -> [AddOutcome]
    func importedLines(fileHash: String, station: String) throws(CatalogueError) -> Set<Int>
    func isProcessed(path: String, size: Int64, modified: Date, station: String) throws(CatalogueError) -> Bool
    func processedFile(path: String, station: String) throws(CatalogueError) -> ProcessedFile?
    func markProcessed(path: String, size: Int64, modified: Date, outcome: String, station: String, now: Date) throws(CatalogueError)
}

/// Spine recognition: cached reader replies, settled readings, the review queue.
public protocol SpineStore: AnyObject, Sendable {
    func spineReply(photoHash: String, reader: String) throws(CatalogueError) -> SpineReplyRecord?
    func saveSpineReply(_ reply: SpineReplyRecord) throws(CatalogueError)
    func spineRecords(photoHash: String, reader: String) throws(CatalogueError) -> [Int: SpineRecord]
    func saveSpineRecord(_ record: SpineRecord) throws(CatalogueError) -> SpineRecord
    /// Readings waiting for the user, oldest first.
    func spineReviews() throws(CatalogueError) -> [SpineRecord]
    func setSpineStatus(id: Int64, _ status: SpineRecord.Status, now: Date) throws(CatalogueError)
}

/// Codes no source knew, kept for a retry or a book typed in by hand.
public protocol NotFoundStore: AnyObject, Sendable {
    func rememberNotFound(isbn: ISBN13, origin: String, now: Date) throws(CatalogueError)
    func forgetNotFound(isbn: ISBN13) throws(CatalogueError)
    /// Most recent first.
    func notFoundCodes() throws(CatalogueError) -> [NotFoundCode]
}

/// Counts for `cache stats` and `database`.
public protocol StoreStatistics: AnyObject, Sendable {
    func stats() throws(CatalogueError) -> CacheStats
    /// The newest schema migration the store has applied ("v3-stations").
    func schemaVersion() throws(CatalogueError) -> String
    /// The newest migration this rapidscan knows for this kind of store: `schemaVersion()` equal to it is current.
    var latestSchemaVersion: String { get }
}

/// A store on a server that can go away mid-run (PostgreSQL). A door asks after a failure:
/// `scan` and `import` stop there, `watch` holds its books in its journal until it answers.
public protocol ServerConnection: AnyObject, Sendable {
    /// Why the server cannot be reached now, naming its host and port (never a password);
    /// nil while it answers.
    var serverLoss: String? { get }
}

/// Every role together: what a whole catalogue implementation provides.
public typealias CatalogueStore = LibraryStore & LibraryTransferStore & WorkCache & PendingLookupQueue & ResumeStore
    & SpineStore & NotFoundStore & StoreStatistics

extension Catalogue: LibraryStore, LibraryTransferStore, WorkCache, PendingLookupQueue, ResumeStore, SpineStore, NotFoundStore, StoreStatistics {
    public var location: String { path }
}

extension LibraryStore {
    /// A database failure as a sentence that names the library (SQLite's "disk I/O error"
    /// alone does not say which file), so every door's error says where to look.
    public func naming(_ failure: String) -> String {
        failure.contains(location) ? failure : "library \(location): \(failure)"
    }
}

// The callers' defaults (now, no list, physical, 20 results), in one place for every store.
extension LibraryStore {
    public func setPro(_ isPro: Bool) throws(CatalogueError) { try setPro(isPro, now: Date()) }
    /// As this machine's station (`Station.hostName`): doors pass their intake's station.
    public func addOwned(isbn: ISBN13, work: Work, listId: String? = nil, format: String = OwnedFormat.physical.rawValue) throws(CatalogueError) -> AddOutcome {
        try addOwned(isbn: isbn, work: work, listId: listId, format: format, station: Station.hostName, now: Date())
    }
    public func removeItems(ids: [String]) throws(LibraryError) -> Int { try removeItems(ids: ids, now: Date()) }
    public func updateItem(id: String, _ change: ItemChange) throws(LibraryError) -> Item { try updateItem(id: id, change, now: Date()) }
    public func moveItem(id: String, toList nameOrId: String) throws(LibraryError) -> Item { try moveItem(id: id, toList: nameOrId, now: Date()) }
    public func createList(name: String, description: String? = nil) throws(LibraryError) -> BookList {
        try createList(name: name, description: description, now: Date())
    }
    public func renameList(_ nameOrId: String, to name: String) throws(LibraryError) -> BookList { try renameList(nameOrId, to: name, now: Date()) }
    public func deleteList(_ nameOrId: String) throws(LibraryError) -> Int { try deleteList(nameOrId, now: Date()) }
}

extension LibraryTransferStore {
    public func snapshot() throws(LibraryError) -> LibrarySnapshot { try snapshot(itemIds: nil) }
    public func restore(_ snapshot: LibrarySnapshot) throws(LibraryError) -> RestoreSummary { try restore(snapshot, now: Date()) }
}

extension WorkCache {
    public func record(_ edition: EditionMetadata, for isbn: ISBN13) throws(CatalogueError) -> Work { try record(edition, for: isbn, now: Date()) }
    public func recordSearchResult(_ edition: EditionMetadata) throws(CatalogueError) -> Work { try recordSearchResult(edition, now: Date()) }
    public func recordAll(_ editions: [(EditionMetadata, ISBN13)]) throws(CatalogueError) { try recordAll(editions, now: Date()) }
    public func recordManual(isbn: ISBN13, title: String, authors: [String], publisher: String? = nil, publishDate: String? = nil, pageCount: Int? = nil) throws(CatalogueError) -> Work {
        try recordManual(isbn: isbn, title: title, authors: authors, publisher: publisher, publishDate: publishDate, pageCount: pageCount, now: Date())
    }
    public func searchWorks(title: String, author: String? = nil) throws(CatalogueError) -> [Work] { try searchWorks(title: title, author: author, limit: 20) }
    public func searchWorks(_ text: String) throws(CatalogueError) -> [Work] { try searchWorks(text, limit: 20) }
}

extension PendingLookupQueue {
    public func enqueuePending(isbn: ISBN13, reason: String, source: String, nextRetryAt: Date, intent: PendingIntent = .lookupOnly) throws(CatalogueError) -> PendingLookup {
        try enqueuePending(isbn: isbn, reason: reason, source: source, nextRetryAt: nextRetryAt, intent: intent, now: Date())
    }
    public func pendingLookups() throws(CatalogueError) -> [PendingLookup] { try pendingLookups(dueBefore: nil) }
}

extension ResumeStore {
    // As this machine's station (`Station.hostName`): doors pass their intake's station.
    public func importBooks(_ books: [ImportedBook], fileHash: String, doneLines: [(Int, String)], station: String = Station.hostName) throws(CatalogueError) -> [AddOutcome] {
        try importBooks(books, fileHash: fileHash, doneLines: doneLines, station: station, now: Date())
    }
    public func importedLines(fileHash: String) throws(CatalogueError) -> Set<Int> { try importedLines(fileHash: fileHash, station: Station.hostName) }
    public func isProcessed(path: String, size: Int64, modified: Date) throws(CatalogueError) -> Bool {
        try isProcessed(path: path, size: size, modified: modified, station: Station.hostName)
    }
    public func processedFile(path: String) throws(CatalogueError) -> ProcessedFile? { try processedFile(path: path, station: Station.hostName) }
    public func markProcessed(path: String, size: Int64, modified: Date, outcome: String, station: String = Station.hostName) throws(CatalogueError) {
        try markProcessed(path: path, size: size, modified: modified, outcome: outcome, station: station, now: Date())
    }
}

extension SpineStore {
    public func setSpineStatus(id: Int64, _ status: SpineRecord.Status) throws(CatalogueError) { try setSpineStatus(id: id, status, now: Date()) }
}

extension NotFoundStore {
    public func rememberNotFound(isbn: ISBN13, origin: String) throws(CatalogueError) { try rememberNotFound(isbn: isbn, origin: origin, now: Date()) }
}
