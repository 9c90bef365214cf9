import BookCodes
import Foundation
import GRDB

/// What an import asked for one book, beyond its ISBN and work.
public struct ImportedState: Sendable, Hashable {
    public var isOwned: Bool
    public var listType: ListType?
    /// A list of the user's own the row names (resolved to its id before the chunk is filed).
    public var listId: String?
    public var status: ReadingStatus?
    public var rating: Int?
    public var dateRead: Date?
    public var dateAdded: Date?
    public var notes: String?

    public init(isOwned: Bool, listType: ListType? = nil, listId: String? = nil, status: ReadingStatus? = nil, rating: Int? = nil, dateRead: Date? = nil, dateAdded: Date? = nil, notes: String? = nil) {
        self.isOwned = isOwned
        self.listType = listType
        self.listId = listId
        self.status = status
        self.rating = rating
        self.dateRead = dateRead
        self.dateAdded = dateAdded
        self.notes = notes
    }
}

/// One book of an import chunk: the file's line, the book, what the file said about it.
public struct ImportedBook: Sendable {
    public var line: Int
    public var isbn: ISBN13
    public var work: Work
    public var state: ImportedState

    public init(line: Int, isbn: ISBN13, work: Work, state: ImportedState) {
        self.line = line
        self.isbn = isbn
        self.work = work
        self.state = state
    }
}

extension Catalogue {
    /// Files a chunk of imported books and marks their rows of `fileHash` done, all in one
    /// transaction: a chunk is filed and marked together or not at all (kill -9 between two
    /// chunks loses nothing and duplicates nothing), and 10,000 books cost 50 commits, not
    /// 20,000. Rows whose book met a full library stay unmarked, so the same file adds them
    /// later; `doneLines` are the chunk's other finished rows (not found, bad).
    public func importBooks(_ books: [ImportedBook], fileHash: String, doneLines: [(Int, String)], station: String = Station.hostName, now: Date = Date()) throws(CatalogueError) -> [AddOutcome] {
        let userId = userId
        let now = StoredDate.asStored(now)
        return try write { db in
            var outcomes: [AddOutcome] = []
            outcomes.reserveCapacity(books.count)
            var lines = doneLines
            for book in books {
                let outcome = try self.importBook(isbn: book.isbn, work: book.work, state: book.state, userId: userId, station: station, now: now, db)
                outcomes.append(outcome)
                switch outcome {
                case .added: lines.append((book.line, "added"))
                case .alreadyOwned: lines.append((book.line, "alreadyPresent"))
                case .libraryFull: break
                }
            }
            try Self.markImported(fileHash: fileHash, lines: lines, station: station, db)
            return outcomes
        }
    }

    /// Files an imported book: owned books go through `addOwned` (already owned, the free
    /// plan's limit), others become a not-owned item in their list. Reading state from the
    /// file is applied to a new item, or to an existing one the user has not touched
    /// (unread, no rating), so a re-run of the same file changes nothing.
    func importBook(isbn: ISBN13, work: Work, state: ImportedState, userId: String, station: String, now: Date, _ db: Database) throws -> AddOutcome {
        let listId = Item.importListId(state, userId: userId)
        let outcome: AddOutcome
        if state.isOwned {
            outcome = try addOwned(isbn: isbn, work: work, listId: listId, format: .physical, userId: userId, station: station, now: now, db)
        } else {
            if let same = try storedOne(Item.self, db, sql: "SELECT rowid, * FROM items WHERE userId = ? AND (isbn = ? OR bookId = ?) LIMIT 1",
                                        arguments: [userId, isbn.digits, work.workKey], cached: true, orThrow: true) {
                outcome = .alreadyOwned(same)
            } else {
                let item = Item.new(isbn: isbn, work: work, listId: listId, userId: userId, owned: nil, station: station,
                                    addedAt: state.dateAdded ?? now, now: now)
                try item.insert(db)
                try Self.adjustCount(listId: listId, by: 1, now: now, db)
                outcome = .added(item)
            }
        }
        let item: Item
        switch outcome {
        case let .added(added): item = added
        case let .alreadyOwned(existing): item = existing
        case .libraryFull: return outcome
        }
        guard item.takesImported(state), var row = try storedOne(Item.self, db, sql: "SELECT rowid, * FROM items WHERE id = ?", arguments: [item.id], cached: true, orThrow: true) else { return outcome }
        var isNew = false
        if case .added = outcome { isNew = true }
        if let move = row.applyImported(state, isNew: isNew, now: now) { try Self.adjustReadingCounters(userId: userId, from: move.from, to: move.to, now: now, db) }
        try row.update(db)
        // `row` is what was written: every column, dates already at their stored precision.
        if case .added = outcome { return .added(row) }
        return .alreadyOwned(row)
    }
}
