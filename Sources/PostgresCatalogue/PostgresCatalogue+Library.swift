import BookCodes
import Catalogue
import Foundation

// The library's rules (the SQLite catalogue's, Catalogue+Library/Items), decided in the
// server's transactions.
extension PostgresCatalogue: LibraryStore {
    public func user() throws(CatalogueError) -> User {
        let userId = userId
        return try readStatement { db in try Self.user(userId, db) }
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
        let filing = Filing(isbn: isbn, work: work, listId: listId, owned: ownedFormat, state: ImportedState(isOwned: true))
        return try write { db in
            guard let outcome = try Self.file([filing], userId: userId, station: station, now: now, db).first else {
                throw CatalogueError.database("\(isbn.digits) was not filed")
            }
            return outcome
        }
    }

    /// One book to file: owned in `owned`'s format (the add's rules: owned once per edition
    /// and work, the free plan's limit) or wanted in `listId`, with an import row's reading state.
    struct Filing {
        let isbn: ISBN13
        let work: Work
        let listId: String
        let owned: OwnedFormat?
        let state: ImportedState

        init(isbn: ISBN13, work: Work, listId: String, owned: OwnedFormat?, state: ImportedState) {
            (self.isbn, self.work, self.listId, self.owned, self.state) = (isbn, work, listId, owned, state)
        }

        /// An import row: owned books as physical copies, in the list the row names.
        init(_ book: ImportedBook, userId: String) {
            self.init(isbn: book.isbn, work: book.work, listId: Item.importListId(book.state, userId: userId),
                      owned: book.state.isOwned ? .physical : nil, state: book.state)
        }
    }

    /// Files `filings` in order inside the caller's transaction (the SQLite catalogue's
    /// `addOwned` and `importBook`, book by book). The user's row is locked first: every add of
    /// this user, from any station, waits here, so what this reads next (the user's items of
    /// these editions and works, the owned count, the lists) is what the previous add
    /// committed. Each book is then decided by the rules (LibraryRules) on what the books before
    /// it left, and the changed items, list counts and user counters are written in one
    /// statement each: a chunk of 200 books takes ~8 round trips instead of ~8 a book.
    static func file(_ filings: [Filing], userId: String, station: String, now: Date, _ db: PostgresConnection) throws -> [AddOutcome] {
        guard !filings.isEmpty else { return [] }
        let user = try user(userId, db, forUpdate: true)
        var library = FilingState(try db.records(Item.self, """
            WHERE "userId" = $1 AND (isbn = ANY($2::text[]) OR "bookId" = ANY($3::text[])) ORDER BY "addedAt", id
            """, [userId, textArray(filings.map(\.isbn.digits)), textArray(filings.map(\.work.workKey))]))
        let ownedLists = Set(filings.compactMap { $0.owned == nil ? nil : $0.listId })
        let usersLists = Set(try db.run("SELECT id FROM lists WHERE id = ANY($1::text[]) AND \"ownerId\" = $2",
                                        [textArray(ownedLists.sorted()), userId]).compactMap { $0.first ?? nil })
        var owned = user.isPro ? 0 : try ownedTotal(userId, db)
        var listDeltas: [String: Int] = [:]
        var scans = 0, read = 0, reading = 0
        var decided: [(outcome: AddOutcome, itemId: String?)] = []
        decided.reserveCapacity(filings.count)
        for filing in filings {
            let (isbn, work, listId) = (filing.isbn.digits, filing.work, filing.listId)
            var outcome: AddOutcome
            if let format = filing.owned {
                guard usersLists.contains(listId) else { throw CatalogueError.unknownList(listId) }
                let sameEdition = library.item(isbn: isbn)
                if let sameEdition, sameEdition.isOwned {
                    outcome = .alreadyOwned(sameEdition)
                } else if let sameWork = library.ownedItem(work: work.workKey) {
                    outcome = .alreadyOwned(sameWork)
                } else if !user.isPro, owned >= User.freeOwnedLimit {
                    outcome = .libraryFull(owned: owned, limit: User.freeOwnedLimit)
                } else {
                    var item: Item
                    if let sameEdition {
                        item = sameEdition
                        item.markOwned(format: format, station: station, now: now)
                    } else {
                        item = Item.new(isbn: filing.isbn, work: work, listId: listId, userId: userId, owned: format,
                                        station: station, addedAt: now, now: now)
                        listDeltas[listId, default: 0] += 1
                    }
                    library.store(item)
                    owned += 1
                    scans += 1
                    outcome = .added(item)
                }
            } else if let same = library.item(isbn: isbn) ?? library.anyItem(work: work.workKey) {
                outcome = .alreadyOwned(same)
            } else {
                let item = Item.new(isbn: filing.isbn, work: work, listId: listId, userId: userId, owned: nil, station: station,
                                    addedAt: filing.state.dateAdded ?? now, now: now)
                library.store(item)
                listDeltas[listId, default: 0] += 1
                outcome = .added(item)
            }
            let itemId: String?
            switch outcome {
            case let .added(item), let .alreadyOwned(item): itemId = item.id
            case .libraryFull: itemId = nil
            }
            if let itemId, var row = library.items[itemId], row.takesImported(filing.state) {
                var isNew = false
                if case .added = outcome { isNew = true }
                if let move = row.applyImported(filing.state, isNew: isNew, now: now) {
                    read += (move.to == .read ? 1 : 0) - (move.from == .read ? 1 : 0)
                    reading += (move.to == .reading ? 1 : 0) - (move.from == .reading ? 1 : 0)
                }
                library.store(row)
            }
            decided.append((outcome, itemId))
        }
        let stored = try db.saveAll(library.changed, extra: folded)
        let storedById = Dictionary(stored.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        let changes = listDeltas.filter { $0.value != 0 }.sorted { $0.key < $1.key }
        if !changes.isEmpty {
            _ = try db.run("""
                UPDATE lists SET "itemCount" = greatest(0, "itemCount" + d.delta), "updatedAt" = $3
                FROM unnest($1::text[], $2::int[]) AS d(id, delta) WHERE lists.id = d.id
                """, [textArray(changes.map(\.key)), "{" + changes.map { String($0.value) }.joined(separator: ",") + "}", RecordCoding.text(now)])
        }
        if scans != 0 || read != 0 || reading != 0 {
            _ = try db.run("""
                UPDATE users SET "scanCount" = "scanCount" + $1, "booksRead" = greatest(0, "booksRead" + $2),
                    "currentlyReading" = greatest(0, "currentlyReading" + $3), "updatedAt" = $4 WHERE id = $5
                """, [String(scans), String(read), String(reading), RecordCoding.text(now), userId])
        }
        // Each outcome with its item as stored (a later book of the chunk may have changed it).
        return decided.map { outcome, itemId in
            guard let itemId, let item = storedById[itemId] ?? library.items[itemId] else { return outcome }
            switch outcome {
            case .added: return .added(item)
            case .alreadyOwned: return .alreadyOwned(item)
            case .libraryFull: return outcome
            }
        }
    }

    /// The user's items a chunk's rules read, as the books before have left them.
    private struct FilingState {
        private(set) var items: [String: Item] = [:]
        private var idByISBN: [String: String] = [:]
        /// Item ids by work, oldest first.
        private var idsByWork: [String: [String]] = [:]
        /// Ids written by this chunk, in the order first written.
        private var changedIds: [String] = []
        private var changedSet: Set<String> = []

        init(_ stored: [Item]) {
            for item in stored { index(item) }
        }

        func item(isbn: String) -> Item? { idByISBN[isbn].flatMap { items[$0] } }
        func ownedItem(work: String) -> Item? { idsByWork[work]?.lazy.compactMap { items[$0] }.first { $0.isOwned } }
        func anyItem(work: String) -> Item? { idsByWork[work]?.first.flatMap { items[$0] } }
        var changed: [Item] { changedIds.compactMap { items[$0] } }

        mutating func store(_ item: Item) {
            if changedSet.insert(item.id).inserted { changedIds.append(item.id) }
            index(item)
        }

        private mutating func index(_ item: Item) {
            if items[item.id] == nil {
                idByISBN[item.isbn] = item.id
                idsByWork[item.bookId, default: []].append(item.id)
            }
            items[item.id] = item
        }
    }

    /// The folded search text stored beside an item (words anywhere: title, authors, notes).
    static func folded(_ item: Item) -> [(column: String, value: String?)] {
        [("foldedTitle", SearchFolding.fold(item.title)), ("foldedAuthors", SearchFolding.fold(item.authors.joined(separator: " "))),
         ("foldedNotes", SearchFolding.fold(item.notes ?? ""))]
    }

    /// Writes an item with its folded search text (words anywhere: title, authors, notes).
    static func saveItem(_ item: Item, _ db: PostgresConnection, upsert: Bool = true) throws {
        try db.save(item, extra: folded(item), upsert: upsert)
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
        return try readStatement { db in try Self.ownedTotal(userId, db) }
    }

    /// The user's owned books as the server counts them (migration 4's triggers keep the
    /// counter in every writer's transaction): one row, however large the library.
    static func ownedTotal(_ userId: String, _ db: PostgresConnection) throws -> Int {
        try db.count("SELECT \"ownedTotal\" FROM users WHERE id = $1", [userId])
    }

    public func ownedItems() throws(CatalogueError) -> [Item] {
        let userId = userId
        return try read { db in try db.records(Item.self, "WHERE \"userId\" = $1 AND \"isOwned\" ORDER BY \"ownedAt\", id", [userId]) }
    }

    public func item(isbn: ISBN13) throws(CatalogueError) -> Item? {
        let userId = userId
        return try readStatement { db in try db.record(Item.self, "WHERE \"userId\" = $1 AND isbn = $2", [userId, isbn.digits]) }
    }

    public func lists() throws(CatalogueError) -> [BookList] {
        let userId = userId
        return try readStatement { db in
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
        // Without `list:` the selection is one statement (a list is looked up first).
        let body = { (db: PostgresConnection) throws -> [Item] in
            let (sql, parameters) = try Self.selection(query, userId: userId, db)
            return try db.records(Item.self, sql, parameters)
        }
        return try query.list == nil ? libraryReadStatement(body) : libraryRead(body)
    }

    public func count(matching query: LibraryQuery) throws(LibraryError) -> Int {
        let userId = userId
        var unlimited = query
        unlimited.limit = nil
        // Every item or every owned book: the server's counters, not 100,000 index entries
        // counted (`--limit 20`'s "20 of 100000": 25 ms).
        var everything = LibraryQuery()
        (everything.ownedOnly, everything.sort, everything.descending) = (query.ownedOnly, query.sort, query.descending)
        if unlimited == everything {
            let column = query.ownedOnly ? "ownedTotal" : "itemTotal"
            return try libraryReadStatement { db in try db.count("SELECT \"\(column)\" FROM users WHERE id = $1", [userId]) }
        }
        let body = { (db: PostgresConnection) throws -> Int in
            let (sql, parameters) = try Self.selection(unlimited, userId: userId, ordered: false, db)
            return try db.count("SELECT count(*) FROM items AS r \(sql)", parameters)
        }
        return try query.list == nil ? libraryReadStatement(body) : libraryRead(body)
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
    /// Without `ordered`, the conditions alone (a count needs no order: sorting every match
    /// only to count them cost 0.8 s over 100,000 books).
    static func selection(_ query: LibraryQuery, userId: String, ordered: Bool = true, _ db: PostgresConnection) throws -> (String, [String?]) {
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
        // A substring of the authors as stored, as LIKE so the trigram index can answer it.
        if let author = query.author {
            conditions.append("lower(r.authors::text) LIKE '%' || lower(\(parameter(likeLiteral(author)))) || '%'")
        }
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
        guard ordered else { return ("WHERE \(conditions.joined(separator: " AND "))", parameters) }
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
