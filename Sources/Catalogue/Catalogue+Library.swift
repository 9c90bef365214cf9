import BookCodes
import Foundation
import GRDB

/// What happened when a scan asked for a book to be added as owned.
public enum AddOutcome: Sendable, Hashable {
    case added(Item)
    /// The user already owns this ISBN, or another edition of the same work (the item returned).
    case alreadyOwned(Item)
    /// The free plan's limit is reached; nothing was written.
    case libraryFull(owned: Int, limit: Int)
}

// The local user's library. "My Books" are the items with `isOwned`.
extension Catalogue {

    /// Adds the book as owned, deciding in one write transaction (so two scans racing for
    /// the last free slot cannot both win):
    /// - already owned — the same ISBN-13, or any edition of the same work (`bookId` is the
    ///   workKey): a library is a set of books, so scanning the paperback of a book you own
    ///   reports "Already in Library" rather than adding a second copy;
    /// - library full — on the free plan with `User.freeOwnedLimit` owned books;
    /// - otherwise the item is created owned (status unread) in `listId` (default "Want to
    ///   Read"), or an existing not-yet-owned item of that ISBN is marked owned.
    /// - station — recorded on the item it creates (`Item.station`).
    public func addOwned(isbn: ISBN13, work: Work, listId: String? = nil, format: String = OwnedFormat.physical.rawValue, station: String = Station.hostName, now: Date = Date()) throws(CatalogueError) -> AddOutcome {
        guard let ownedFormat = OwnedFormat(rawValue: format) else { throw .invalidFormat(format) }
        let userId = userId
        let listId = listId ?? defaultListId
        let now = StoredDate.asStored(now)
        return try write { db in try self.addOwned(isbn: isbn, work: work, listId: listId, format: ownedFormat, userId: userId, station: station, now: now, db) }
    }

    /// `addOwned` inside a caller's transaction (a batch import files a chunk in one). `now` is
    /// at the database's precision (`StoredDate.asStored`): the item added is returned as made,
    /// equal to its stored row without reading it back.
    func addOwned(isbn: ISBN13, work: Work, listId: String, format ownedFormat: OwnedFormat, userId: String, station: String, now: Date, _ db: Database) throws -> AddOutcome {
        // Cached statements: preparing these five queries anew for every book was most of a
        // 10,000-book import's time.
        guard let listOwner = try String.fetchOne(db, SQLRequest(sql: "SELECT ownerId FROM lists WHERE id = ?", arguments: [listId], cached: true)),
              listOwner == userId else {
            throw CatalogueError.unknownList(listId)
        }
        // A damaged row of this book is an error naming it, never taken for "not owned".
        let sameEdition = try storedOne(Item.self, db,
            sql: "SELECT rowid, * FROM items WHERE userId = ? AND isbn = ? LIMIT 1", arguments: [userId, isbn.digits], cached: true, orThrow: true)
        if let sameEdition, sameEdition.isOwned { return .alreadyOwned(sameEdition) }
        // `+isOwned` keeps SQLite on the (userId, bookId) index: left to choose, it walked the
        // (userId, isOwned) one, every owned book for every add.
        if let sameWork = try storedOne(Item.self, db,
            sql: "SELECT rowid, * FROM items WHERE userId = ? AND bookId = ? AND +isOwned = 1 LIMIT 1", arguments: [userId, work.workKey], cached: true, orThrow: true) {
            return .alreadyOwned(sameWork)
        }
        guard let isPro = try Bool.fetchOne(db, SQLRequest(sql: "SELECT isPro FROM users WHERE id = ?", arguments: [userId], cached: true)) else {
            throw CatalogueError.database("user \(userId) is missing")
        }
        // Counted only where the limit applies: counting 10,000 owned books per add made a
        // Pro user's import quadratic.
        if !isPro {
            let owned = try Int.fetchOne(db, SQLRequest(
                sql: "SELECT COUNT(*) FROM items WHERE userId = ? AND isOwned = 1", arguments: [userId], cached: true)) ?? 0
            if owned >= User.freeOwnedLimit { return .libraryFull(owned: owned, limit: User.freeOwnedLimit) }
        }
        let item: Item
        if var existing = sameEdition {
            existing.markOwned(format: ownedFormat, station: station, now: now)
            try existing.update(db)
            item = existing
        } else {
            item = Item.new(isbn: isbn, work: work, listId: listId, userId: userId, owned: ownedFormat, station: station, addedAt: now, now: now)
            try item.insert(db)
            try Self.adjustCount(listId: listId, by: 1, now: now, db)
        }
        try db.cachedStatement(sql: "UPDATE users SET scanCount = scanCount + 1, updatedAt = ? WHERE id = ?")
            .execute(arguments: [StoredDate.value(now), userId])
        return .added(item)
    }

    /// Switches the local user between the free plan and Pro (unlimited owned books).
    public func setPro(_ isPro: Bool, now: Date = Date()) throws(CatalogueError) {
        let userId = userId
        try write { db in
            guard var user = try storedOne(User.self, db, sql: "SELECT rowid, * FROM users WHERE id = ?", arguments: [userId], orThrow: true) else { return }
            user.isPro = isPro
            user.subscriptionUpdatedAt = now
            user.updatedAt = now
            try user.update(db)
        }
    }

    public func user() throws(CatalogueError) -> User {
        let userId = userId
        return try read { db in
            guard let user = try storedOne(User.self, db, sql: "SELECT rowid, * FROM users WHERE id = ?", arguments: [userId], orThrow: true) else {
                throw CatalogueError.database("user \(userId) is missing")
            }
            return user
        }
    }

    public func ownedCount() throws(CatalogueError) -> Int {
        let userId = userId
        return try read { db in try Item.filter(Column("userId") == userId && Column("isOwned") == true).fetchCount(db) }
    }

    /// Owned books, oldest first.
    public func ownedItems() throws(CatalogueError) -> [Item] {
        let userId = userId
        return try read { db in
            try stored(Item.self, db, sql: "SELECT rowid, * FROM items WHERE userId = ? AND isOwned = 1 ORDER BY ownedAt, id", arguments: [userId])
        }
    }

    /// The user's item for an ISBN-13, owned or not.
    public func item(isbn: ISBN13) throws(CatalogueError) -> Item? {
        let userId = userId
        return try read { db in try storedOne(Item.self, db, sql: "SELECT rowid, * FROM items WHERE userId = ? AND isbn = ?", arguments: [userId, isbn.digits]) }
    }
}
