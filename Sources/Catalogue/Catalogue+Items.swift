import BookCodes
import BookMetadata
import Foundation
import GRDB

/// What a library command asked for that the seed's rules do not allow, or that does not exist.
public enum LibraryError: Error, Sendable, CustomStringConvertible, Equatable {
    case notInLibrary(String)
    case unknownList(String)
    case defaultListCannotBeDeleted(String)
    case customListsNeedPro
    case listNameTaken(String)
    case invalidRating(Int)
    case invalidPage(Int)
    case catalogue(CatalogueError)

    public var description: String {
        switch self {
        case let .notInLibrary(what): "no book in the library matches \(what)"
        case let .unknownList(name): "no list named or with id '\(name)'"
        case let .defaultListCannotBeDeleted(name): "'\(name)' is a default list and cannot be deleted"
        case .customListsNeedPro: "custom lists need Pro (the free plan has none): `rapidscan account --pro`"
        case let .listNameTaken(name): "a list named '\(name)' already exists"
        case let .invalidRating(rating): "rating must be from 1 to 5, got \(rating)"
        case let .invalidPage(page): "current page must be 0 or more, got \(page)"
        case let .catalogue(error): error.description
        }
    }
}

/// A library query: words matched anywhere in title/author/notes (FTS5) plus field filters.
/// Parsed from the command line as `word… author:X isbn:X status:X list:X station:X added:FROM..TO`.
public struct LibraryQuery: Sendable, Hashable {
    public enum Sort: String, Sendable, CaseIterable { case title, author, added, rating, status }

    public var words: String = ""
    public var author: String?
    public var isbn: String?
    public var status: ReadingStatus?
    /// A list's id or name (case-insensitive).
    public var list: String?
    /// The station that added the item (exact name).
    public var station: String?
    public var addedFrom: Date?
    /// Exclusive.
    public var addedBefore: Date?
    /// Only owned books ("My Books"); false lists every item.
    public var ownedOnly = true
    public var sort: Sort = .added
    public var descending = false
    public var limit: Int?

    public init() {}

    public enum ParseError: Error, CustomStringConvertible, Equatable {
        case unknownField(String)
        case badValue(field: String, value: String)
        public var description: String {
            switch self {
            case let .unknownField(field): "unknown field '\(field):' (use author:, isbn:, status:, list:, station:, added:)"
            case let .badValue(field, value): "'\(value)' is not a valid \(field): value"
            }
        }
    }

    /// Parses query terms; `added:` takes `YYYY`, `YYYY-MM`, `YYYY-MM-DD` or `FROM..TO` of those.
    public init(terms: [String]) throws(ParseError) {
        var words: [String] = []
        for term in terms {
            guard let colon = term.firstIndex(of: ":"), colon != term.startIndex else { words.append(term); continue }
            let field = term[..<colon].lowercased(), value = String(term[term.index(after: colon)...])
            switch field {
            case "author": author = value
            case "isbn": isbn = value
            case "status":
                guard let status = ReadingStatus.allCases.first(where: { $0.rawValue.lowercased() == value.lowercased() })
                else { throw .badValue(field: field, value: value) }
                self.status = status
            case "list": list = value
            case "station":
                guard !value.isEmpty else { throw .badValue(field: field, value: value) }
                station = value
            case "added":
                let parts = value.components(separatedBy: "..")
                guard parts.count <= 2 else { throw .badValue(field: field, value: value) }
                if !parts[0].isEmpty {
                    guard let range = Self.dateRange(parts[0]) else { throw .badValue(field: field, value: value) }
                    addedFrom = range.lowerBound
                    if parts.count == 1 { addedBefore = range.upperBound }
                }
                if parts.count == 2, !parts[1].isEmpty {
                    guard let range = Self.dateRange(parts[1]) else { throw .badValue(field: field, value: value) }
                    addedBefore = range.upperBound
                }
            default:
                // "Dune:" or "11:22:63" are words; "stauts:read" is a mistyped field, said so.
                if value.isEmpty || field.contains(where: { !$0.isLetter }) {
                    words.append(term)
                } else {
                    throw .unknownField(String(field))
                }
            }
        }
        self.words = words.joined(separator: " ")
    }

    /// The UTC day, month or year a date prefix names.
    static func dateRange(_ text: String) -> Range<Date>? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = text.split(separator: "-").map { Int($0) }
        guard (1...3).contains(parts.count), !parts.contains(nil), parts[0]! >= 1000 else { return nil }
        var components = DateComponents(year: parts[0], month: parts.count > 1 ? parts[1] : 1, day: parts.count > 2 ? parts[2] : 1)
        components.timeZone = calendar.timeZone
        guard let start = calendar.date(from: components) else { return nil }
        let unit: Calendar.Component = [.year, .month, .day][parts.count - 1]
        guard let end = calendar.date(byAdding: unit, value: 1, to: start) else { return nil }
        return start..<end
    }
}

/// A change to one item; nil fields are left alone.
public struct ItemChange: Sendable, Hashable {
    public var status: ReadingStatus?
    public var rating: Int??
    public var liked: Bool?
    public var notes: String??
    public var currentPage: Int??
    public var ownedFormat: OwnedFormat?
    public init(status: ReadingStatus? = nil, rating: Int?? = nil, liked: Bool? = nil, notes: String?? = nil, currentPage: Int?? = nil, ownedFormat: OwnedFormat? = nil) {
        self.status = status
        self.rating = rating
        self.liked = liked
        self.notes = notes
        self.currentPage = currentPage
        self.ownedFormat = ownedFormat
    }
}

// The library commands' operations on the local user's items and lists. Every write keeps
// `lists.itemCount` and the user's `booksRead` / `currentlyReading` counters right in the
// same transaction (the seed's updateUserStats rules).
extension Catalogue {

    func libraryRead<T>(_ body: (Database) throws -> T) throws(LibraryError) -> T {
        do { return try writer.read(body) } catch let error as LibraryError { throw error } catch { throw .catalogue(CatalogueError(error)) }
    }

    func libraryWrite<T>(_ body: (Database) throws -> T) throws(LibraryError) -> T {
        do { return try writer.write(body) } catch let error as LibraryError { throw error } catch { throw .catalogue(CatalogueError(error)) }
    }

    /// The items a query selects, in its sort order (FTS rank first when words are given and
    /// the sort is the default).
    public func items(matching query: LibraryQuery) throws(LibraryError) -> [Item] {
        let userId = userId
        return try libraryRead { db in
            let (sql, arguments) = try self.selection(query, columns: "items.rowid, items.*", userId: userId, db)
            return try stored(Item.self, db, sql: sql, arguments: arguments)
        }
    }

    /// The ids of the items a query selects, in its order (an export reads the rows once,
    /// not twice).
    public func itemIds(matching query: LibraryQuery) throws(LibraryError) -> [String] {
        let userId = userId
        return try libraryRead { db in
            let (sql, arguments) = try self.selection(query, columns: "items.id", userId: userId, db)
            return try String.fetchAll(db, sql: sql, arguments: arguments)
        }
    }

    public func count(matching query: LibraryQuery) throws(LibraryError) -> Int {
        let userId = userId
        var unlimited = query
        unlimited.limit = nil
        return try libraryRead { db in
            // The order does not change a count: unsorted, SQLite does not sort every row to count
            // them (19 of the 59 ms of `library list --sort title --limit 20` over 10,000 books).
            let (sql, arguments) = try self.selection(unlimited, columns: "1", userId: userId, ordered: false, db)
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM (\(sql))", arguments: arguments) ?? 0
        }
    }

    func selection(_ query: LibraryQuery, columns: String, userId: String, ordered: Bool = true, _ db: Database) throws -> (String, StatementArguments) {
        let search = SearchText(query.words)
        var conditions = ["items.userId = ?"]
        var arguments: [any DatabaseValueConvertible] = [userId]
        var join = ""
        if !search.isEmpty {
            join = "JOIN itemsSearch ON itemsSearch.itemId = items.id AND itemsSearch MATCH ?"
            arguments.insert(search.allWords, at: 0)
        }
        if query.ownedOnly { conditions.append("items.isOwned = 1") }
        if let author = query.author {
            conditions.append("instr(lower(items.authors), lower(?)) > 0")
            arguments.append(author)
        }
        if let isbn = query.isbn {
            let digits = isbn.filter { $0.isNumber || $0 == "X" || $0 == "x" }
            let full = (try? ISBN13(validating: digits))?.digits ?? (try? ISBN10(validating: digits))?.isbn13.digits
            conditions.append(full != nil ? "items.isbn = ?" : "items.isbn LIKE ?")
            arguments.append(full ?? "%\(digits)%")
        }
        if let status = query.status {
            conditions.append("items.status = ?")
            arguments.append(status.rawValue)
        }
        if let list = query.list {
            let found = try self.findList(list, userId: userId, db)
            conditions.append("items.listId = ?")
            arguments.append(found.id)
        }
        if let station = query.station {
            conditions.append("items.station = ?")
            arguments.append(station)
        }
        if let from = query.addedFrom { conditions.append("items.addedAt >= ?"); arguments.append(from) }
        if let before = query.addedBefore { conditions.append("items.addedAt < ?"); arguments.append(before) }
        let direction = query.descending ? "DESC" : "ASC"
        let order: String = switch query.sort {
        case .title: "items.title COLLATE NOCASE \(direction)"
        case .author: "json_extract(items.authors, '$[0]') COLLATE NOCASE \(direction), items.title COLLATE NOCASE"
        case .added: search.isEmpty ? "items.addedAt \(direction)" : "bm25(itemsSearch, 0.0, 10.0, 5.0, 1.0), items.addedAt"
        case .rating: "items.rating IS NULL, items.rating \(direction)"
        case .status: "items.status \(direction), items.title COLLATE NOCASE"
        }
        var sql = "SELECT \(columns) FROM items \(join) WHERE \(conditions.joined(separator: " AND "))"
        if ordered { sql += " ORDER BY \(order), items.id" }
        if let limit = query.limit { sql += " LIMIT \(max(0, limit))" }
        return (sql, StatementArguments(arguments))
    }

    /// A list by id or by name (case-insensitive).
    public func list(named nameOrId: String) throws(LibraryError) -> BookList {
        let userId = userId
        return try libraryRead { db in try self.findList(nameOrId, userId: userId, db) }
    }

    func findList(_ nameOrId: String, userId: String, _ db: Database) throws -> BookList {
        if let list = try storedOne(BookList.self, db, sql: "SELECT rowid, * FROM lists WHERE id = ?", arguments: [nameOrId], orThrow: true),
           list.ownerId == userId { return list }
        if let list = try storedOne(BookList.self, db, sql: "SELECT rowid, * FROM lists WHERE ownerId = ? AND name = ? COLLATE NOCASE",
                                    arguments: [userId, nameOrId], orThrow: true) {
            return list
        }
        throw LibraryError.unknownList(nameOrId)
    }

    /// Removes items; their lists' counts and the user's reading counters follow.
    @discardableResult
    public func removeItems(ids: [String], now: Date = Date()) throws(LibraryError) -> Int {
        let userId = userId
        return try libraryWrite { db in
            var removed = 0
            for id in ids {
                // Read raw, each value failable: a damaged item can still be removed.
                guard let row = try Row.fetchOne(db, sql: "SELECT listId, status FROM items WHERE id = ? AND userId = ?", arguments: [id, userId])
                else { continue }
                try db.execute(sql: "DELETE FROM items WHERE id = ?", arguments: [id])
                if let listId = try row.decode(String?.self, forColumn: "listId") {
                    try Self.adjustCount(listId: listId, by: -1, now: now, db)
                }
                let status = try row.decode(String?.self, forColumn: "status").flatMap(ReadingStatus.init(rawValue:))
                try Self.adjustReadingCounters(userId: userId, from: status, to: nil, now: now, db)
                removed += 1
            }
            return removed
        }
    }

    /// Applies a change to an item, following the seed's reading-progress rules:
    /// → reading sets `startedReadingAt` (kept if already set) and clears `finishedReadingAt`;
    /// → read sets `finishedReadingAt` (and `startedReadingAt` if it was never set);
    /// → unread clears both; the user's `booksRead` / `currentlyReading` follow the status.
    public func updateItem(id: String, _ change: ItemChange, now: Date = Date()) throws(LibraryError) -> Item {
        if case let rating?? = change.rating, !(1...5).contains(rating) { throw .invalidRating(rating) }
        if case let page?? = change.currentPage, page < 0 { throw .invalidPage(page) }
        let userId = userId
        return try libraryWrite { db in
            guard var item = try storedOne(Item.self, db, sql: "SELECT rowid, * FROM items WHERE id = ?", arguments: [id], orThrow: true),
                  item.userId == userId else { throw LibraryError.notInLibrary(id) }
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
            try item.update(db)
            return try storedOne(Item.self, db, sql: "SELECT rowid, * FROM items WHERE id = ?", arguments: [id]) ?? item
        }
    }

    /// Moves an item to another list (an item is in one list: a book is once in a library).
    public func moveItem(id: String, toList nameOrId: String, now: Date = Date()) throws(LibraryError) -> Item {
        let userId = userId
        return try libraryWrite { db in
            guard var item = try storedOne(Item.self, db, sql: "SELECT rowid, * FROM items WHERE id = ?", arguments: [id], orThrow: true),
                  item.userId == userId else { throw LibraryError.notInLibrary(id) }
            let target = try self.findList(nameOrId, userId: userId, db)
            guard target.id != item.listId else { return item }
            try Self.adjustCount(listId: item.listId, by: -1, now: now, db)
            try Self.adjustCount(listId: target.id, by: 1, now: now, db)
            item.listId = target.id
            item.updatedAt = now
            try item.update(db)
            return try storedOne(Item.self, db, sql: "SELECT rowid, * FROM items WHERE id = ?", arguments: [id]) ?? item
        }
    }

    /// Creates a custom list: Pro only (the free plan's custom-list limit is 0).
    public func createList(name: String, description: String? = nil, now: Date = Date()) throws(LibraryError) -> BookList {
        let userId = userId
        return try libraryWrite { db in
            guard let user = try storedOne(User.self, db, sql: "SELECT rowid, * FROM users WHERE id = ?", arguments: [userId], orThrow: true) else {
                throw LibraryError.catalogue(.database("user \(userId) is missing"))
            }
            guard user.isPro else { throw LibraryError.customListsNeedPro }
            if (try? self.findList(name, userId: userId, db)) != nil { throw LibraryError.listNameTaken(name) }
            var code = BookList.randomShareCode()
            while try !BookList.filter(Column("shareCode") == code).isEmpty(db) { code = BookList.randomShareCode() }
            let list = BookList(
                id: UUID().uuidString, name: name, ownerId: userId, ownerName: user.displayName, description: description,
                bannerImageUrl: nil, isPublic: false, shareCode: code, listType: .custom, isDefault: false,
                itemCount: 0, createdAt: now, updatedAt: now)
            try list.insert(db)
            return try storedOne(BookList.self, db, sql: "SELECT rowid, * FROM lists WHERE id = ?", arguments: [list.id]) ?? list
        }
    }

    public func renameList(_ nameOrId: String, to name: String, now: Date = Date()) throws(LibraryError) -> BookList {
        let userId = userId
        return try libraryWrite { db in
            var list = try self.findList(nameOrId, userId: userId, db)
            if let other = try? self.findList(name, userId: userId, db), other.id != list.id { throw LibraryError.listNameTaken(name) }
            list.name = name
            list.updatedAt = now
            try list.update(db)
            return list
        }
    }

    /// Deletes a custom list; its books move to "Want to Read" rather than leave the library.
    public func deleteList(_ nameOrId: String, now: Date = Date()) throws(LibraryError) -> Int {
        let userId = userId, fallback = defaultListId
        return try libraryWrite { db in
            let list = try self.findList(nameOrId, userId: userId, db)
            guard !list.isDefault else { throw LibraryError.defaultListCannotBeDeleted(list.name) }
            let moved = try Item.filter(Column("listId") == list.id).fetchCount(db)
            try db.execute(sql: "UPDATE items SET listId = ?, updatedAt = ? WHERE listId = ?", arguments: [fallback, now, list.id])
            try Self.adjustCount(listId: fallback, by: moved, now: now, db)
            _ = try list.delete(db)
            return moved
        }
    }

    static func adjustCount(listId: String, by delta: Int, now: Date, _ db: Database) throws {
        guard delta != 0 else { return }
        try db.cachedStatement(sql: "UPDATE lists SET itemCount = max(0, itemCount + ?), updatedAt = ? WHERE id = ?")
            .execute(arguments: [delta, StoredDate.value(now), listId])
    }

    static func adjustReadingCounters(userId: String, from old: ReadingStatus?, to new: ReadingStatus?, now: Date, _ db: Database) throws {
        guard old != new else { return }
        func delta(_ status: ReadingStatus) -> Int { (new == status ? 1 : 0) - (old == status ? 1 : 0) }
        try db.cachedStatement(sql: """
            UPDATE users SET booksRead = max(0, booksRead + ?), currentlyReading = max(0, currentlyReading + ?), updatedAt = ?
            WHERE id = ?
            """).execute(arguments: [delta(.read), delta(.reading), now, userId])
    }

    /// Files a book the user typed in (no source knew its ISBN) as a work of its own,
    /// `apiSource: manual`, indexed under the ISBN so later scans find it.
    public func recordManual(isbn: ISBN13, title: String, authors: [String], publisher: String? = nil, publishDate: String? = nil, pageCount: Int? = nil, now: Date = Date()) throws(CatalogueError) -> Work {
        try record(EditionMetadata(
            isbn13: isbn.digits, title: title, authors: authors, description: nil, coverImageUrl: nil,
            categories: [], pageCount: pageCount, publishDate: publishDate, publisher: publisher, format: nil,
            apiSource: "manual"), for: isbn, now: now)
    }
}

/// A status change as `applyReadingStatus` made it: the counters to move, and the default
/// list the item left (nil when it stayed).
public struct ReadingStatusMove: Sendable, Hashable {
    public let from: ReadingStatus
    public let to: ReadingStatus
    public let fromList: String?
}

extension Item {
    /// The seed's reading-progress rules, written once for every store: a page at or past the
    /// last one finishes the book; starting sets the start date (a book read again starts
    /// again), finishing the finish date, unread clears both; the two default lists follow
    /// the status (Want to Read: not read yet; Finished: read), a custom list stays where
    /// the user put it. nil when the status did not change.
    public mutating func applyReadingStatus(of change: ItemChange, userId: String, now: Date) -> ReadingStatusMove? {
        let before = status
        var newStatus = change.status
        if newStatus == nil, case let page?? = change.currentPage, let pages = pageCount, pages > 0, page >= pages {
            newStatus = .read
        }
        guard let target = newStatus, target != before else { return nil }
        status = target
        switch target {
        case .reading:
            startedReadingAt = before == .reading ? startedReadingAt : now
            finishedReadingAt = nil
        case .read:
            finishedReadingAt = now
        case .unread:
            startedReadingAt = nil
            finishedReadingAt = nil
        case .notInterested:
            break
        }
        let toRead = "\(userId)_\(ListType.toRead.rawValue)", finished = "\(userId)_\(ListType.completed.rawValue)"
        let list: String? = switch target {
        case .read: finished
        case .unread, .reading: toRead
        case .notInterested: nil
        }
        var fromList: String?
        if let list, list != listId, [toRead, finished].contains(listId) {
            fromList = listId
            listId = list
        }
        return ReadingStatusMove(from: before, to: target, fromList: fromList)
    }
}
