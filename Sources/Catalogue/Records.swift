import BookCodes
import Foundation
import GRDB

// Value types for each table. Column names are the seed's camelCase field names, so a
// row exports to the Firestore document shape without renaming. Array fields are JSON
// text columns.

/// The canonical record of a book: every edition (ISBN) of one title by one author.
public struct Work: Codable, Sendable, Hashable {
    public var workKey: String
    public var title: String
    public var authors: [String]
    public var primaryAuthor: String
    public var coverImageUrl: String?
    public var description: String?
    public var genre: String?
    public var categories: [String]
    public var pageCount: Int?
    /// Earliest known: "YYYY", "YYYY-MM" or "YYYY-MM-DD".
    public var publishDate: String?
    public var publisher: String?
    public var language: String
    /// ISBN-13s of the known editions.
    public var editions: [String]
    /// The edition with the best metadata ("" when the work came from a search result without an ISBN).
    public var primaryIsbn: String
    public var editionCount: Int
    /// "googleBooks", "openLibrary" or "manual".
    public var apiSource: String
    public var createdAt: Date
    public var updatedAt: Date
    public var totalReaders: Int
    public var averageRating: Double?
    public var ratingsCount: Int

    public init(
        workKey: String, title: String, authors: [String], primaryAuthor: String,
        coverImageUrl: String? = nil, description: String? = nil, genre: String? = nil,
        categories: [String] = [], pageCount: Int? = nil, publishDate: String? = nil,
        publisher: String? = nil, language: String = "en", editions: [String] = [],
        primaryIsbn: String = "", apiSource: String, createdAt: Date, updatedAt: Date,
        totalReaders: Int = 0, averageRating: Double? = nil, ratingsCount: Int = 0
    ) {
        self.workKey = workKey
        self.title = title
        self.authors = authors
        self.primaryAuthor = primaryAuthor
        self.coverImageUrl = coverImageUrl
        self.description = description
        self.genre = genre
        self.categories = categories
        self.pageCount = pageCount
        self.publishDate = publishDate
        self.publisher = publisher
        self.language = language
        self.editions = editions
        self.primaryIsbn = primaryIsbn
        self.editionCount = editions.count
        self.apiSource = apiSource
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.totalReaders = totalReaders
        self.averageRating = averageRating
        self.ratingsCount = ratingsCount
    }
}

extension Work: FetchableRecord, PersistableRecord, StoredRecord {
    public static let databaseTableName = "works"
    static let storedTable = "works"
    static let storedKey = "workKey"
    public static var databaseSelection: [any SQLSelectable] { [AllColumns(), Column.rowID] }

    public init(row: Row) throws { self = try .strictly(row) }

    /// Decoded by hand (writing stays Codable), every value as one that can fail: a cache
    /// hit is one row read, and this keeps it well under the 0.2 ms budget.
    init(stored row: inout StoredRow) {
        workKey = row.text("workKey")
        title = row.text("title")
        authors = row.strings("authors")
        primaryAuthor = row.optionalText("primaryAuthor") ?? ""
        coverImageUrl = row.optionalText("coverImageUrl")
        description = row.optionalText("description")
        genre = row.optionalText("genre")
        categories = row.strings("categories")
        pageCount = row.optionalInt("pageCount", in: StoredRanges.pageCount)
        publishDate = row.optionalText("publishDate")
        publisher = row.optionalText("publisher")
        language = row.optionalText("language") ?? ""
        editions = row.strings("editions")
        primaryIsbn = row.optionalText("primaryIsbn") ?? ""
        editionCount = row.count("editionCount")
        apiSource = row.optionalText("apiSource") ?? ""
        createdAt = row.date("createdAt")
        updatedAt = row.date("updatedAt")
        totalReaders = row.count("totalReaders")
        averageRating = row.optionalDouble("averageRating", in: 0...5)
        ratingsCount = row.count("ratingsCount")
    }
}

/// What a stored number may be; outside these it is damage, not data.
enum StoredRanges {
    static let pageCount = 0...1_000_000
    static let rating = 1...5
}

/// JSON text columns holding string arrays. Read and written by hand for the plain case
/// (no escapes): a JSONDecoder per column was a third of listing 10,000 books.
package enum JSONColumn {
    package static func strings(_ text: String?) throws -> [String] {
        guard let text, !text.isEmpty else { return [] }
        if let plain = plainStrings(text) { return plain }
        return try JSONDecoder().decode([String].self, from: Data(text.utf8))
    }

    /// `["a","b"]` without backslashes, else nil (the decoder handles the rest).
    static func plainStrings(_ text: String) -> [String]? {
        var utf8 = Substring(text).utf8
        func skipSpace() { while let byte = utf8.first, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { utf8.removeFirst() } }
        skipSpace()
        guard utf8.first == UInt8(ascii: "[") else { return nil }
        utf8.removeFirst()
        var strings: [String] = []
        skipSpace()
        if utf8.first == UInt8(ascii: "]") { utf8.removeFirst(); skipSpace(); return utf8.isEmpty ? [] : nil }
        while true {
            skipSpace()
            guard utf8.first == UInt8(ascii: "\"") else { return nil }
            utf8.removeFirst()
            guard let close = utf8.firstIndex(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }),
                  utf8[close] == UInt8(ascii: "\"") else { return nil }
            strings.append(String(Substring(utf8[..<close])))
            utf8 = utf8[utf8.index(after: close)...]
            skipSpace()
            guard let separator = utf8.first else { return nil }
            utf8.removeFirst()
            if separator == UInt8(ascii: "]") { skipSpace(); return utf8.isEmpty ? strings : nil }
            guard separator == UInt8(ascii: ",") else { return nil }
        }
    }

    /// The JSON text of a string array (what GRDB's Codable encoding stores, give or take
    /// the escaping of "/").
    static func text(_ strings: [String]) -> String {
        var out: [UInt8] = []
        JSONValue.array(strings).appendJSON(to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

/// ISBN → work. Keys are always ISBN-13, so the ISBN-10 of a book finds the same row.
public struct ISBNIndexEntry: Codable, Sendable, Hashable {
    public var isbn: String
    public var workKey: String
    /// "hardcover", "paperback", "ebook", "audiobook" or "unknown".
    public var format: String
    public var publisher: String?
    public var publishDate: String?
    public var indexedAt: Date
    /// The source that described this edition.
    public var apiSource: String
    /// How complete this edition's metadata was (see `BestDataMerge.score`); decides `primaryIsbn`.
    public var metadataScore: Int

    public init(isbn: String, workKey: String, format: String, publisher: String?, publishDate: String?, indexedAt: Date, apiSource: String, metadataScore: Int) {
        self.isbn = isbn
        self.workKey = workKey
        self.format = format
        self.publisher = publisher
        self.publishDate = publishDate
        self.indexedAt = indexedAt
        self.apiSource = apiSource
        self.metadataScore = metadataScore
    }
}

extension ISBNIndexEntry: FetchableRecord, PersistableRecord, StoredRecord {
    public static let databaseTableName = "isbnIndex"
    static let storedTable = "isbnIndex"
    static let storedKey = "isbn"
    public static var databaseSelection: [any SQLSelectable] { [AllColumns(), Column.rowID] }

    public init(row: Row) throws { self = try .strictly(row) }

    init(stored row: inout StoredRow) {
        isbn = row.isbn13("isbn") ?? ""
        workKey = row.text("workKey")
        format = row.optionalText("format") ?? "unknown"
        publisher = row.optionalText("publisher")
        publishDate = row.optionalText("publishDate")
        indexedAt = row.date("indexedAt")
        apiSource = row.optionalText("apiSource") ?? ""
        metadataScore = row.optionalInt("metadataScore") ?? 0
    }
}

public enum ReadingStatus: String, Codable, Sendable, CaseIterable {
    case unread, reading, read, notInterested
}

public enum OwnedFormat: String, Codable, Sendable, CaseIterable {
    case physical, ebook, audiobook
}

/// A book in a user's library (the seed's BookItem). "My Books" are the items with `isOwned`.
/// One item per user and book: `bookId` is the work's key, `isbn` the edition's ISBN-13.
public struct Item: Codable, Sendable, Hashable {
    public var id: String
    public var listId: String
    public var userId: String
    public var bookId: String
    public var isbn: String
    public var title: String
    public var authors: [String]
    public var coverImageUrl: String?
    public var description: String?
    public var pageCount: Int?
    public var genre: String?
    public var categories: [String]?
    public var status: ReadingStatus
    public var liked: Bool
    public var rating: Int?
    public var notes: String?
    public var currentPage: Int?
    public var startedReadingAt: Date?
    public var finishedReadingAt: Date?
    public var addedAt: Date
    public var updatedAt: Date
    public var isOwned: Bool
    public var ownedFormat: OwnedFormat?
    public var ownedAt: Date?
    /// The station that added the book (`--station`; nil: added before stations were recorded).
    public var station: String?

    public init(id: String, listId: String, userId: String, bookId: String, isbn: String, title: String, authors: [String], coverImageUrl: String?, description: String?, pageCount: Int?, genre: String?, categories: [String]?, status: ReadingStatus, liked: Bool, rating: Int?, notes: String?, currentPage: Int?, startedReadingAt: Date?, finishedReadingAt: Date?, addedAt: Date, updatedAt: Date, isOwned: Bool, ownedFormat: OwnedFormat?, ownedAt: Date?, station: String? = nil) {
        self.id = id
        self.listId = listId
        self.userId = userId
        self.bookId = bookId
        self.isbn = isbn
        self.title = title
        self.authors = authors
        self.coverImageUrl = coverImageUrl
        self.description = description
        self.pageCount = pageCount
        self.genre = genre
        self.categories = categories
        self.status = status
        self.liked = liked
        self.rating = rating
        self.notes = notes
        self.currentPage = currentPage
        self.startedReadingAt = startedReadingAt
        self.finishedReadingAt = finishedReadingAt
        self.addedAt = addedAt
        self.updatedAt = updatedAt
        self.isOwned = isOwned
        self.ownedFormat = ownedFormat
        self.ownedAt = ownedAt
        self.station = station
    }
}

extension Item: FetchableRecord, PersistableRecord, StoredRecord {
    public static let databaseTableName = "items"
    static let storedTable = "items"
    static let storedKey = "id"
    public static var databaseSelection: [any SQLSelectable] { [AllColumns(), Column.rowID] }

    public init(row: Row) throws { self = try .strictly(row) }

    /// Read and written by hand (Codable decoding and encoding were most of listing,
    /// exporting and importing 10,000 books); every value read as one that can fail.
    init(stored row: inout StoredRow) {
        id = row.text("id")
        listId = row.text("listId")
        userId = row.text("userId")
        bookId = row.text("bookId")
        isbn = row.isbn13("isbn") ?? ""
        title = row.text("title")
        authors = row.strings("authors")
        coverImageUrl = row.optionalText("coverImageUrl")
        description = row.optionalText("description")
        pageCount = row.optionalInt("pageCount", in: StoredRanges.pageCount)
        genre = row.optionalText("genre")
        categories = row.optionalStrings("categories")
        status = row.choice("status", ReadingStatus.self) ?? .unread
        liked = row.bool("liked")
        rating = row.optionalInt("rating", in: StoredRanges.rating)
        notes = row.optionalText("notes")
        currentPage = row.optionalInt("currentPage", in: StoredRanges.pageCount)
        startedReadingAt = row.optionalDate("startedReadingAt")
        finishedReadingAt = row.optionalDate("finishedReadingAt")
        addedAt = row.date("addedAt")
        updatedAt = row.date("updatedAt")
        isOwned = row.bool("isOwned")
        ownedFormat = row.choice("ownedFormat", OwnedFormat.self, required: false)
        ownedAt = row.optionalDate("ownedAt")
        station = row.optionalText("station")
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["listId"] = listId
        container["userId"] = userId
        container["bookId"] = bookId
        container["isbn"] = isbn
        container["title"] = title
        container["authors"] = JSONColumn.text(authors)
        container["coverImageUrl"] = coverImageUrl
        container["description"] = description
        container["pageCount"] = pageCount
        container["genre"] = genre
        container["categories"] = categories.map(JSONColumn.text)
        container["status"] = status.rawValue
        container["liked"] = liked
        container["rating"] = rating
        container["notes"] = notes
        container["currentPage"] = currentPage
        container["startedReadingAt"] = StoredDate.value(startedReadingAt)
        container["finishedReadingAt"] = StoredDate.value(finishedReadingAt)
        container["addedAt"] = StoredDate.value(addedAt)
        container["updatedAt"] = StoredDate.value(updatedAt)
        container["isOwned"] = isOwned
        container["ownedFormat"] = ownedFormat?.rawValue
        container["ownedAt"] = StoredDate.value(ownedAt)
        container["station"] = station
    }
}

public enum ListType: String, Codable, Sendable {
    case toRead, completed, custom
}

public struct BookList: Codable, Sendable, Hashable {
    public var id: String
    public var name: String
    public var ownerId: String
    public var ownerName: String
    public var description: String?
    public var bannerImageUrl: String?
    public var isPublic: Bool
    /// 6 characters from `BookList.shareCodeCharacters`.
    public var shareCode: String
    public var listType: ListType
    public var isDefault: Bool
    public var itemCount: Int
    public var createdAt: Date
    public var updatedAt: Date

    /// Uppercase alphanumerics without I, O, 0 and 1, which read alike.
    public static let shareCodeCharacters = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")

    public static func randomShareCode() -> String {
        String((0..<6).map { _ in shareCodeCharacters.randomElement()! })
    }

    public init(id: String, name: String, ownerId: String, ownerName: String, description: String?, bannerImageUrl: String?, isPublic: Bool, shareCode: String, listType: ListType, isDefault: Bool, itemCount: Int, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.name = name
        self.ownerId = ownerId
        self.ownerName = ownerName
        self.description = description
        self.bannerImageUrl = bannerImageUrl
        self.isPublic = isPublic
        self.shareCode = shareCode
        self.listType = listType
        self.isDefault = isDefault
        self.itemCount = itemCount
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

extension BookList: FetchableRecord, PersistableRecord, StoredRecord {
    public static let databaseTableName = "lists"
    static let storedTable = "lists"
    static let storedKey = "id"
    public static var databaseSelection: [any SQLSelectable] { [AllColumns(), Column.rowID] }

    public init(row: Row) throws { self = try .strictly(row) }

    init(stored row: inout StoredRow) {
        id = row.text("id")
        name = row.text("name")
        ownerId = row.text("ownerId")
        ownerName = row.optionalText("ownerName") ?? ""
        description = row.optionalText("description")
        bannerImageUrl = row.optionalText("bannerImageUrl")
        isPublic = row.bool("isPublic")
        shareCode = row.optionalText("shareCode") ?? ""
        listType = row.choice("listType", ListType.self) ?? .custom
        isDefault = row.bool("isDefault")
        itemCount = row.count("itemCount")
        createdAt = row.date("createdAt")
        updatedAt = row.date("updatedAt")
    }
}

public struct User: Codable, Sendable, Hashable {
    public var id: String
    public var email: String?
    public var displayName: String
    public var photoURL: String?
    /// "local" for the account rapidscan creates on first run.
    public var authProvider: String
    public var isPro: Bool
    public var createdAt: Date
    public var updatedAt: Date
    public var booksRead: Int
    public var currentlyReading: Int
    public var hasCompletedOnboarding: Bool
    /// Books added to the library by scanning (each `addOwned` that added one).
    public var scanCount: Int
    public var reviewCount: Int
    public var subscriptionUpdatedAt: Date?

    /// Owned books allowed on the free plan; Pro is unlimited.
    public static let freeOwnedLimit = 50

    public init(id: String, email: String?, displayName: String, photoURL: String?, authProvider: String, isPro: Bool, createdAt: Date, updatedAt: Date, booksRead: Int, currentlyReading: Int, hasCompletedOnboarding: Bool, scanCount: Int, reviewCount: Int, subscriptionUpdatedAt: Date?) {
        self.id = id
        self.email = email
        self.displayName = displayName
        self.photoURL = photoURL
        self.authProvider = authProvider
        self.isPro = isPro
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.booksRead = booksRead
        self.currentlyReading = currentlyReading
        self.hasCompletedOnboarding = hasCompletedOnboarding
        self.scanCount = scanCount
        self.reviewCount = reviewCount
        self.subscriptionUpdatedAt = subscriptionUpdatedAt
    }
}

extension User: FetchableRecord, PersistableRecord, StoredRecord {
    public static let databaseTableName = "users"
    static let storedTable = "users"
    static let storedKey = "id"
    public static var databaseSelection: [any SQLSelectable] { [AllColumns(), Column.rowID] }

    public init(row: Row) throws { self = try .strictly(row) }

    init(stored row: inout StoredRow) {
        id = row.text("id")
        email = row.optionalText("email")
        displayName = row.optionalText("displayName") ?? ""
        photoURL = row.optionalText("photoURL")
        authProvider = row.optionalText("authProvider") ?? ""
        isPro = row.bool("isPro")
        createdAt = row.date("createdAt")
        updatedAt = row.date("updatedAt")
        booksRead = row.count("booksRead")
        currentlyReading = row.count("currentlyReading")
        hasCompletedOnboarding = row.bool("hasCompletedOnboarding")
        scanCount = row.count("scanCount")
        reviewCount = row.count("reviewCount")
        subscriptionUpdatedAt = row.optionalDate("subscriptionUpdatedAt")
    }
}

/// What the scan that queued a lookup wanted done once the book is known.
public struct PendingIntent: Codable, Sendable, Hashable {
    /// Add the book to the library as owned when it resolves.
    public var addOwned: Bool
    /// The list to add it to; nil means the default "Want to Read" list.
    public var listId: String?
    public var format: String

    public init(addOwned: Bool, listId: String? = nil, format: String = OwnedFormat.physical.rawValue) {
        self.addOwned = addOwned
        self.listId = listId
        self.format = format
    }

    /// Only resolve the book into the cache (`rapidscan lookup`).
    public static let lookupOnly = PendingIntent(addOwned: false)

    public static func own(listId: String? = nil, format: String = OwnedFormat.physical.rawValue) -> PendingIntent {
        PendingIntent(addOwned: true, listId: listId, format: format)
    }

    /// Two scans of one ISBN queue one row: wanting it owned is never forgotten.
    public func merged(with newer: PendingIntent) -> PendingIntent {
        PendingIntent(
            addOwned: addOwned || newer.addOwned,
            listId: newer.listId ?? listId,
            format: newer.addOwned ? newer.format : format)
    }
}

/// An ISBN whose lookup could not be answered (network, quota, server error): kept until
/// a retry resolves it. One row per ISBN.
public struct PendingLookup: Codable, Sendable, Hashable {
    public var isbn: String
    public var reason: String
    /// The source that could not answer (e.g. "googleBooks").
    public var source: String
    public var attempts: Int
    public var intent: PendingIntent
    public var queuedAt: Date
    public var lastAttemptAt: Date
    public var nextRetryAt: Date

    public init(isbn: String, reason: String, source: String, attempts: Int, intent: PendingIntent, queuedAt: Date, lastAttemptAt: Date, nextRetryAt: Date) {
        self.isbn = isbn
        self.reason = reason
        self.source = source
        self.attempts = attempts
        self.intent = intent
        self.queuedAt = queuedAt
        self.lastAttemptAt = lastAttemptAt
        self.nextRetryAt = nextRetryAt
    }
}

extension PendingLookup: FetchableRecord, PersistableRecord, StoredRecord {
    public static let databaseTableName = "pendingLookups"
    static let storedTable = "pendingLookups"
    static let storedKey = "isbn"

    public init(row: Row) throws { self = try .strictly(row) }

    init(stored row: inout StoredRow) {
        isbn = row.isbn13("isbn") ?? ""
        reason = row.optionalText("reason") ?? ""
        source = row.optionalText("source") ?? ""
        attempts = row.count("attempts")
        // What the scan wanted (own it, which list) cannot be guessed: a row without it is skipped, and kept.
        let intentValue = row.value("intent")
        if let text = String.fromDatabaseValue(intentValue), let intent = try? JSONDecoder().decode(PendingIntent.self, from: Data(text.utf8)) {
            self.intent = intent
        } else {
            row.note("intent", intentValue, "is not a lookup's intent", required: true)
            intent = .lookupOnly
        }
        queuedAt = row.date("queuedAt")
        lastAttemptAt = row.date("lastAttemptAt")
        nextRetryAt = row.date("nextRetryAt")
    }
}

/// A file a scan has finished with, so a resumed run skips it.
public struct ProcessedFile: Codable, Sendable, Hashable {
    /// The station that scanned it ("" for a row from before stations: it counts for every station).
    public var station: String
    public var path: String
    public var size: Int64
    /// Modification time in seconds since 1970, stored as a REAL so it round-trips exactly.
    public var modifiedTime: Double
    public var outcome: String
    public var processedAt: Date

    public var modified: Date { Date(timeIntervalSince1970: modifiedTime) }

    public init(station: String = "", path: String, size: Int64, modifiedTime: Double, outcome: String, processedAt: Date) {
        self.station = station
        self.path = path
        self.size = size
        self.modifiedTime = modifiedTime
        self.outcome = outcome
        self.processedAt = processedAt
    }
}

extension ProcessedFile: FetchableRecord, PersistableRecord, StoredRecord {
    public static let databaseTableName = "processedFiles"
    static let storedTable = "processedFiles"
    static let storedKey = "path"

    public init(row: Row) throws { self = try .strictly(row) }

    init(stored row: inout StoredRow) {
        station = row.text("station")
        path = row.text("path")
        size = Int64(row.int("size"))
        modifiedTime = row.double("modifiedTime")
        outcome = row.optionalText("outcome") ?? ""
        processedAt = row.date("processedAt")
    }
}

public struct CacheStats: Codable, Sendable, Hashable {
    public var works: Int
    /// Sum of `editionCount` over works.
    public var editions: Int
    public var isbnIndexEntries: Int
    public var items: Int
    public var ownedItems: Int
    public var pendingLookups: Int
    public var processedFiles: Int
    /// The database file plus its WAL and shared-memory files.
    public var databaseBytes: Int64
}
