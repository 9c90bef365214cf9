import BookCodes
import Catalogue
import Foundation

// The library's rules (the SQLite catalogue's, Catalogue+Library/Items), decided in the
// server's transactions.
extension PostgresCatalogue: LibraryStore {
    public func user() throws(CatalogueError) -> User {
        let userId = userId
        return try read { db in try Self.user(userId, db) }
    }

    static func user(_ userId: String, _ db: PostgresConnection, forUpdate: Bool = false) throws -> User {
        guard let user = try db.record(User.self, "WHERE id = $1" + (forUpdate ? " FOR UPDATE" : ""), [userId]) else {
            throw CatalogueError.database("user \(userId) is missing")
        }
        return user
    }

    public func setPro(_ isPro: Bool, now: Date) throws(CatalogueError) {
        let userId = userId
        try write { db in
            _ = try db.run("UPDATE users SET \"isPro\" = $1, \"subscriptionUpdatedAt\" = $2, \"updatedAt\" = $2 WHERE id = $3",
                           [RecordCoding.text(isPro), RecordCoding.text(now), userId])
        }
    }

    public func addOwned(isbn: ISBN13, work: Work, listId: String?, format: String, station: String, now: Date) throws(CatalogueError) -> AddOutcome {
        guard let ownedFormat = OwnedFormat(rawValue: format) else { throw .invalidFormat(format) }
        let userId = userId, listId = listId ?? defaultListId
        return try write { db in try Self.addOwned(isbn: isbn, work: work, listId: listId, format: ownedFormat, userId: userId, station: station, now: now, db) }
    }

    /// `addOwned` inside a caller's transaction. The user's row is locked first: every add of
    /// this user, from any station, waits here, so "already owned" and the free plan's count
    /// are decided on what the previous add committed.
    static func addOwned(isbn: ISBN13, work: Work, listId: String, format: OwnedFormat, userId: String, station: String, now: Date, _ db: PostgresConnection) throws -> AddOutcome {
        let user = try user(userId, db, forUpdate: true)
        guard let owner = try db.run("SELECT \"ownerId\" FROM lists WHERE id = $1", [listId]).first?.first ?? nil, owner == userId else {
            throw CatalogueError.unknownList(listId)
        }
        let sameEdition = try db.record(Item.self, "WHERE \"userId\" = $1 AND isbn = $2", [userId, isbn.digits])
        if let sameEdition, sameEdition.isOwned { return .alreadyOwned(sameEdition) }
        if let sameWork = try db.record(Item.self, "WHERE \"userId\" = $1 AND \"bookId\" = $2 AND \"isOwned\"", [userId, work.workKey]) {
            return .alreadyOwned(sameWork)
        }
        if !user.isPro {
            let owned = try db.count("SELECT count(*) FROM items WHERE \"userId\" = $1 AND \"isOwned\"", [userId])
            if owned >= User.freeOwnedLimit { return .libraryFull(owned: owned, limit: User.freeOwnedLimit) }
        }
        let item: Item
        if var existing = sameEdition {
            existing.markOwned(format: format, station: station, now: now)
            try saveItem(existing, db)
            item = existing
        } else {
            item = Item.new(isbn: isbn, work: work, listId: listId, userId: userId, owned: format, station: station, addedAt: now, now: now)
            try saveItem(item, db, upsert: false)
            try adjustCount(listId: listId, by: 1, now: now, db)
        }
        _ = try db.run("UPDATE users SET \"scanCount\" = \"scanCount\" + 1, \"updatedAt\" = $1 WHERE id = $2", [RecordCoding.text(now), userId])
        return .added(try db.record(Item.self, "WHERE id = $1", [item.id]) ?? item)
    }

    /// Writes an item with its folded search text (words anywhere: title, authors, notes).
    static func saveItem(_ item: Item, _ db: PostgresConnection, upsert: Bool = true) throws {
        try db.save(item, extra: [("foldedTitle", SearchFolding.fold(item.title)),
                                  ("foldedAuthors", SearchFolding.fold(item.authors.joined(separator: " "))),
                                  ("foldedNotes", SearchFolding.fold(item.notes ?? ""))], upsert: upsert)
    }

    static func adjustCount(listId: String, by delta: Int, now: Date, _ db: PostgresConnection) throws {
        guard delta != 0 else { return }
        _ = try db.run("UPDATE lists SET \"itemCount\" = greatest(0, \"itemCount\" + $1), \"updatedAt\" = $2 WHERE id = $3",
                       [String(delta), RecordCoding.text(now), listId])
    }

    static func adjustReadingCounters(userId: String, from old: ReadingStatus?, to new: ReadingStatus?, now: Date, _ db: PostgresConnection) throws {
        guard old != new else { return }
        func delta(_ status: ReadingStatus) -> Int { (new == status ? 1 : 0) - (old == status ? 1 : 0) }
        _ = try db.run("""
            UPDATE users SET "booksRead" = greatest(0, "booksRead" + $1), "currentlyReading" = greatest(0, "currentlyReading" + $2),
                "updatedAt" = $3 WHERE id = $4
            """, [String(delta(.read)), String(delta(.reading)), RecordCoding.text(now), userId])
    }

    public func ownedCount() throws(CatalogueError) -> Int {
        let userId = userId
        return try read { db in try db.count("SELECT count(*) FROM items WHERE \"userId\" = $1 AND \"isOwned\"", [userId]) }
    }

    public func ownedItems() throws(CatalogueError) -> [Item] {
        let userId = userId
        return try read { db in try db.records(Item.self, "WHERE \"userId\" = $1 AND \"isOwned\" ORDER BY \"ownedAt\", id", [userId]) }
    }

    public func item(isbn: ISBN13) throws(CatalogueError) -> Item? {
        let userId = userId
        return try read { db in try db.record(Item.self, "WHERE \"userId\" = $1 AND isbn = $2", [userId, isbn.digits]) }
    }

    public func lists() throws(CatalogueError) -> [BookList] {
        let userId = userId
        return try read { db in
            try db.records(BookList.self, """
                WHERE "ownerId" = $1
                ORDER BY "isDefault" DESC, "listType" = 'completed', "createdAt", name
                """, [userId])
        }
    }

    public func list(named nameOrId: String) throws(LibraryError) -> BookList {
        let userId = userId
        return try libraryRead { db in try Self.findList(nameOrId, userId: userId, db) }
    }

    /// A list by id, or by name ignoring case.
    static func findList(_ nameOrId: String, userId: String, _ db: PostgresConnection) throws -> BookList {
        if let list = try db.record(BookList.self, "WHERE id = $1", [nameOrId]), list.ownerId == userId { return list }
        if let list = try db.record(BookList.self, "WHERE \"ownerId\" = $1 AND lower(name) = lower($2)", [userId, nameOrId]) { return list }
        throw LibraryError.unknownList(nameOrId)
    }

    public func items(matching query: LibraryQuery) throws(LibraryError) -> [Item] {
        let userId = userId
        return try libraryRead { db in
            let (sql, parameters) = try Self.selection(query, userId: userId, db)
            return try db.records(Item.self, sql, parameters)
        }
    }

    public func count(matching query: LibraryQuery) throws(LibraryError) -> Int {
        let userId = userId
        var unlimited = query
        unlimited.limit = nil
        // The order does not change a count; the title sort's needs no ranking.
        unlimited.sort = .title
        return try libraryRead { db in
            let (sql, parameters) = try Self.selection(unlimited, userId: userId, db)
            return try db.count("SELECT count(*) FROM (SELECT 1 FROM items AS r \(sql)) AS matched", parameters)
        }
    }

    public func itemIds(matching query: LibraryQuery) throws(LibraryError) -> [String] {
        let userId = userId
        return try libraryRead { db in
            let (sql, parameters) = try Self.selection(query, userId: userId, db)
            return try db.run("SELECT r.id FROM items AS r \(sql)", parameters).compactMap { $0.first ?? nil }
        }
    }

    /// The query language translated to SQL after `FROM items AS r`: words as a prefix
    /// full-text query over the folded title/authors/notes (ranked by weight, title first, as
    /// FTS5's bm25 weights), then each field filter.
    static func selection(_ query: LibraryQuery, userId: String, _ db: PostgresConnection) throws -> (String, [String?]) {
        var parameters: [String?] = [userId]
        func parameter(_ value: String?) -> String {
            parameters.append(value)
            return "$\(parameters.count)"
        }
        var conditions = ["r.\"userId\" = $1"]
        let words = SearchFolding.prefixQuery(query.words, joiner: " & ")
        var rank = ""
        if let words {
            let placeholder = parameter(words)
            conditions.append("r.search @@ to_tsquery('simple', \(placeholder))")
            rank = "ts_rank('{0.1, 0.0, 0.5, 1.0}', r.search, to_tsquery('simple', \(placeholder))) DESC, r.\"addedAt\""
        }
        if query.ownedOnly { conditions.append("r.\"isOwned\"") }
        if let author = query.author { conditions.append("strpos(lower(r.authors::text), lower(\(parameter(author)))) > 0") }
        if let isbn = query.isbn {
            let digits = isbn.filter { $0.isNumber || $0 == "X" || $0 == "x" }
            let full = (try? ISBN13(validating: digits))?.digits ?? (try? ISBN10(validating: digits))?.isbn13.digits
            conditions.append(full != nil ? "r.isbn = \(parameter(full))" : "strpos(r.isbn, \(parameter(digits))) > 0")
        }
        if let status = query.status { conditions.append("r.status = \(parameter(status.rawValue))") }
        if let station = query.station { conditions.append("r.station = \(parameter(station))") }
        if let list = query.list { conditions.append("r.\"listId\" = \(parameter(try findList(list, userId: userId, db).id))") }
        if let from = query.addedFrom { conditions.append("r.\"addedAt\" >= \(parameter(RecordCoding.text(from)))") }
        if let before = query.addedBefore { conditions.append("r.\"addedAt\" < \(parameter(RecordCoding.text(before)))") }
        let direction = query.descending ? "DESC" : "ASC"
        // Byte order of the lower-cased text, as SQLite's NOCASE collation sorts.
        let order: String = switch query.sort {
        case .title: "lower(r.title) COLLATE \"C\" \(direction)"
        case .author: "lower(r.authors->>0) COLLATE \"C\" \(direction), lower(r.title) COLLATE \"C\""
        case .added: rank.isEmpty ? "r.\"addedAt\" \(direction)" : rank
        case .rating: "r.rating IS NULL, r.rating \(direction)"
        case .status: "r.status \(direction), lower(r.title) COLLATE \"C\""
        }
        var sql = "WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(order), r.id"
        if let limit = query.limit { sql += " LIMIT \(max(0, limit))" }
        return (sql, parameters)
    }

    public func removeItems(ids: [String], now: Date) throws(LibraryError) -> Int {
        let userId = userId
        return try libraryWrite { db in
            var removed = 0
            for id in ids {
                guard let row = try db.run("DELETE FROM items WHERE id = $1 AND \"userId\" = $2 RETURNING \"listId\", status", [id, userId]).first
                else { continue }
                if let listId = row[0] { try Self.adjustCount(listId: listId, by: -1, now: now, db) }
                try Self.adjustReadingCounters(userId: userId, from: row[1].flatMap(ReadingStatus.init(rawValue:)), to: nil, now: now, db)
                removed += 1
            }
            return removed
        }
    }

    public func updateItem(id: String, _ change: ItemChange, now: Date) throws(LibraryError) -> Item {
        if case let rating?? = change.rating, !(1...5).contains(rating) { throw .invalidRating(rating) }
        if case let page?? = change.currentPage, page < 0 { throw .invalidPage(page) }
        let userId = userId
        return try libraryWrite { db in
            guard var item = try db.record(Item.self, "WHERE id = $1 FOR UPDATE", [id]), item.userId == userId else {
                throw LibraryError.notInLibrary(id)
            }
            if let moved = item.applyReadingStatus(of: change, userId: userId, now: now) {
                try Self.adjustReadingCounters(userId: userId, from: moved.from, to: moved.to, now: now, db)
                if let list = moved.fromList {
                    try Self.adjustCount(listId: list, by: -1, now: now, db)
                    try Self.adjustCount(listId: item.listId, by: 1, now: now, db)
                }
            }
            if let rating = change.rating { item.rating = rating }
            if let liked = change.liked { item.liked = liked }
            if let notes = change.notes { item.notes = notes }
            if let page = change.currentPage { item.currentPage = page }
            if let format = change.ownedFormat { item.ownedFormat = format }
            item.updatedAt = now
            try Self.saveItem(item, db)
            return try db.record(Item.self, "WHERE id = $1", [id]) ?? item
        }
    }

    public func moveItem(id: String, toList nameOrId: String, now: Date) throws(LibraryError) -> Item {
        let userId = userId
        return try libraryWrite { db in
            guard var item = try db.record(Item.self, "WHERE id = $1 FOR UPDATE", [id]), item.userId == userId else {
                throw LibraryError.notInLibrary(id)
            }
            let target = try Self.findList(nameOrId, userId: userId, db)
            guard target.id != item.listId else { return item }
            try Self.adjustCount(listId: item.listId, by: -1, now: now, db)
            try Self.adjustCount(listId: target.id, by: 1, now: now, db)
            item.listId = target.id
            item.updatedAt = now
            try Self.saveItem(item, db)
            return try db.record(Item.self, "WHERE id = $1", [id]) ?? item
        }
    }

    public func createList(name: String, description: String?, now: Date) throws(LibraryError) -> BookList {
        let userId = userId
        return try libraryWrite { db in
            let user = try Self.user(userId, db, forUpdate: true)
            guard user.isPro else { throw LibraryError.customListsNeedPro }
            if (try? Self.findList(name, userId: userId, db)) != nil { throw LibraryError.listNameTaken(name) }
            let list = BookList(
                id: UUID().uuidString, name: name, ownerId: userId, ownerName: user.displayName, description: description,
                bannerImageUrl: nil, isPublic: false, shareCode: try Self.uniqueShareCode(db), listType: .custom, isDefault: false,
                itemCount: 0, createdAt: now, updatedAt: now)
            try db.save(list, upsert: false)
            return try db.record(BookList.self, "WHERE id = $1", [list.id]) ?? list
        }
    }

    public func renameList(_ nameOrId: String, to name: String, now: Date) throws(LibraryError) -> BookList {
        let userId = userId
        return try libraryWrite { db in
            _ = try Self.user(userId, db, forUpdate: true)
            var list = try Self.findList(nameOrId, userId: userId, db)
            if let other = try? Self.findList(name, userId: userId, db), other.id != list.id { throw LibraryError.listNameTaken(name) }
            list.name = name
            list.updatedAt = now
            try db.save(list)
            return list
        }
    }

    public func deleteList(_ nameOrId: String, now: Date) throws(LibraryError) -> Int {
        let userId = userId, fallback = defaultListId
        return try libraryWrite { db in
            _ = try Self.user(userId, db, forUpdate: true)
            let list = try Self.findList(nameOrId, userId: userId, db)
            guard !list.isDefault else { throw LibraryError.defaultListCannotBeDeleted(list.name) }
            let moved = try db.count("SELECT count(*) FROM items WHERE \"listId\" = $1", [list.id])
            _ = try db.run("UPDATE items SET \"listId\" = $1, \"updatedAt\" = $2 WHERE \"listId\" = $3", [fallback, RecordCoding.text(now), list.id])
            try Self.adjustCount(listId: fallback, by: moved, now: now, db)
            _ = try db.run("DELETE FROM lists WHERE id = $1", [list.id])
            return moved
        }
    }
}

/// Search text folded the one way for stored rows and for queries: case and accents
/// dropped, split into words at anything not a letter or digit (as SQLite's unicode61
/// tokenizer and `SearchText` split), so "García" is found by "garcia".
enum SearchFolding {
    static func fold(_ text: String) -> String {
        SearchText(text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)).words.joined(separator: " ")
    }

    /// Each word of `text` as a prefix term ("herb" finds "Herbert"), joined by `&` (every
    /// word) or `|` (any); nil when there are no words. The words hold letters and digits
    /// only, quoted, so nothing the user typed is tsquery syntax.
    static func prefixQuery(_ text: String, joiner: String) -> String? {
        let words = fold(text).split(separator: " ")
        guard !words.isEmpty else { return nil }
        return words.map { "'\($0)':*" }.joined(separator: joiner)
    }
}
