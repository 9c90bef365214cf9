import Foundation

// A whole catalogue as values, table by table: what `rapidscan database copy` reads from one
// store and writes into another (SQLite file or PostgreSQL server, either way), ids, dates
// and stations kept. A role of its own, beside `CatalogueStore`: only the copy needs it.

/// One finished import row (resume): the file's content hash and line, per station.
public struct ImportedRowRecord: Sendable, Hashable, Codable {
    public var station: String
    public var fileHash: String
    public var line: Int
    public var outcome: String

    public init(station: String, fileHash: String, line: Int, outcome: String) {
        self.station = station
        self.fileHash = fileHash
        self.line = line
        self.outcome = outcome
    }
}

/// Every row of every table of a catalogue.
public struct CatalogueContents: Sendable {
    public var users: [User] = []
    public var lists: [BookList] = []
    public var works: [Work] = []
    public var isbnIndex: [ISBNIndexEntry] = []
    public var items: [Item] = []
    public var pendingLookups: [PendingLookup] = []
    public var processedFiles: [ProcessedFile] = []
    public var importedRows: [ImportedRowRecord] = []
    public var notFoundCodes: [NotFoundCode] = []
    public var spineReplies: [SpineReplyRecord] = []
    public var spineRecords: [SpineRecord] = []

    public init() {}

    /// Each table as people read it, with its row count, in the order a copy writes them
    /// (a row after the rows it refers to).
    public var tables: [(name: String, rows: Int)] {
        [("users", users.count), ("lists", lists.count), ("works", works.count), ("ISBN index", isbnIndex.count),
         ("items", items.count), ("pending lookups", pendingLookups.count), ("scanned files", processedFiles.count),
         ("import rows", importedRows.count), ("not-found codes", notFoundCodes.count), ("spine replies", spineReplies.count),
         ("spine readings", spineRecords.count)]
    }

    public var rowCount: Int { tables.reduce(0) { $0 + $1.rows } }
}

/// How far a copy has written: `done` of `total` rows of `table` (a name from `tables`).
public struct CopyProgress: Sendable, Hashable {
    public var table: String
    public var done: Int
    public var total: Int

    public init(table: String, done: Int, total: Int) {
        self.table = table
        self.done = done
        self.total = total
    }
}

/// A store that can be read whole and replaced whole.
public protocol WholeCatalogueStore: AnyObject, Sendable {
    /// Every row of every table, read in one transaction (one consistent state). A row that
    /// cannot be read is named in `damage` and left out.
    func contents() throws(CatalogueError) -> CatalogueContents
    /// Whether the store holds anything beyond what opening a new library makes (users and
    /// their default lists, empty): a copy refuses such a target unless told to replace it.
    func holdsLibrary() throws(CatalogueError) -> Bool
    /// Deletes every row and writes `contents` in their place, in one transaction: on any
    /// failure the store is left exactly as it was. `progress` is called as rows are written.
    func replaceContents(with contents: CatalogueContents, progress: (CopyProgress) -> Void) throws(CatalogueError)
}
