@testable import Catalogue
import Foundation
import GRDB
import Testing

/// A shipped migration is never edited: changes go in a new migration. This freezes what
/// v1 creates, so an edit to it fails here instead of leaving users' databases behind.
@Suite struct SchemaTests {
    @Test func migrationV1IsFrozen() throws {
        let queue = try DatabaseQueue()
        try Schema.migrator.migrate(queue, upTo: "v1")
        let schema = try queue.read { db in
            try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'grdb_%' ORDER BY name")
        }
        #expect(schema == Self.v1)
    }

    @Test func migrationsAreRegisteredInOrder() throws {
        #expect(Schema.migrator.migrations.first == "v1")
    }

    /// "v3-stations" keeps every resume row of a library from before stations: recorded as
    /// station "", they count for whichever station the library's one machine now runs as.
    @Test func resumeRowsFromBeforeStationsCountForEveryStation() throws {
        let queue = try DatabaseQueue()
        try Schema.migrator.migrate(queue, upTo: "v2-library")
        try queue.write { db in
            try db.execute(sql: "INSERT INTO processedFiles (path, size, modifiedTime, outcome, processedAt) VALUES ('/photos/a.jpg', 10, 5.0, 'added', '2026-01-01 00:00:00.000')")
            try db.execute(sql: "INSERT INTO importedRows (fileHash, line, outcome) VALUES ('hash', 2, 'added')")
        }
        let catalogue = try Catalogue(writer: queue)
        #expect(try queue.read { db in try Schema.migrator.appliedIdentifiers(db) }.contains("v3-stations"))
        #expect(try catalogue.isProcessed(path: "/photos/a.jpg", size: 10, modified: Date(timeIntervalSince1970: 5), station: "desk-1"))
        #expect(try catalogue.processedFile(path: "/photos/a.jpg", station: "desk-2")?.station == "")
        #expect(try catalogue.importedLines(fileHash: "hash", station: "desk-1") == [2])
        // The station's own row wins over the old one once it has scanned the file again.
        try catalogue.markProcessed(path: "/photos/a.jpg", size: 11, modified: Date(timeIntervalSince1970: 5), outcome: "nothing", station: "desk-1")
        #expect(try catalogue.processedFile(path: "/photos/a.jpg", station: "desk-1")?.size == 11)
        #expect(try catalogue.processedFile(path: "/photos/a.jpg", station: "desk-2")?.size == 10)
    }

    static let v1: [String] = [
        "CREATE TABLE \"isbnIndex\" (\"isbn\" TEXT PRIMARY KEY NOT NULL, \"workKey\" TEXT NOT NULL REFERENCES \"works\"(\"workKey\") ON DELETE CASCADE ON UPDATE CASCADE, \"format\" TEXT NOT NULL, \"publisher\" TEXT, \"publishDate\" TEXT, \"indexedAt\" DATETIME NOT NULL, \"apiSource\" TEXT NOT NULL, \"metadataScore\" INTEGER NOT NULL)",
        "CREATE INDEX \"isbnIndex_on_workKey\" ON \"isbnIndex\"(\"workKey\")",
        "CREATE TABLE \"items\" (\"id\" TEXT PRIMARY KEY NOT NULL, \"listId\" TEXT NOT NULL REFERENCES \"lists\"(\"id\") ON DELETE CASCADE, \"userId\" TEXT NOT NULL REFERENCES \"users\"(\"id\") ON DELETE CASCADE, \"bookId\" TEXT NOT NULL, \"isbn\" TEXT NOT NULL, \"title\" TEXT NOT NULL, \"authors\" TEXT NOT NULL, \"coverImageUrl\" TEXT, \"description\" TEXT, \"pageCount\" INTEGER, \"genre\" TEXT, \"categories\" TEXT, \"status\" TEXT NOT NULL, \"liked\" BOOLEAN NOT NULL, \"rating\" INTEGER, \"notes\" TEXT, \"currentPage\" INTEGER, \"startedReadingAt\" DATETIME, \"finishedReadingAt\" DATETIME, \"addedAt\" DATETIME NOT NULL, \"updatedAt\" DATETIME NOT NULL, \"isOwned\" BOOLEAN NOT NULL, \"ownedFormat\" TEXT, \"ownedAt\" DATETIME, UNIQUE (\"userId\", \"isbn\"))",
        "CREATE INDEX \"items_on_listId\" ON \"items\"(\"listId\")",
        "CREATE INDEX \"items_on_userId_bookId\" ON \"items\"(\"userId\", \"bookId\")",
        "CREATE INDEX \"items_on_userId_isOwned\" ON \"items\"(\"userId\", \"isOwned\")",
        "CREATE TABLE \"lists\" (\"id\" TEXT PRIMARY KEY NOT NULL, \"name\" TEXT NOT NULL, \"ownerId\" TEXT NOT NULL REFERENCES \"users\"(\"id\") ON DELETE CASCADE, \"ownerName\" TEXT NOT NULL, \"description\" TEXT, \"bannerImageUrl\" TEXT, \"isPublic\" BOOLEAN NOT NULL, \"shareCode\" TEXT NOT NULL UNIQUE, \"listType\" TEXT NOT NULL, \"isDefault\" BOOLEAN NOT NULL, \"itemCount\" INTEGER NOT NULL, \"createdAt\" DATETIME NOT NULL, \"updatedAt\" DATETIME NOT NULL)",
        "CREATE INDEX \"lists_on_ownerId\" ON \"lists\"(\"ownerId\")",
        "CREATE TABLE \"pendingLookups\" (\"isbn\" TEXT PRIMARY KEY NOT NULL, \"reason\" TEXT NOT NULL, \"source\" TEXT NOT NULL, \"attempts\" INTEGER NOT NULL, \"intent\" TEXT NOT NULL, \"queuedAt\" DATETIME NOT NULL, \"lastAttemptAt\" DATETIME NOT NULL, \"nextRetryAt\" DATETIME NOT NULL)",
        "CREATE INDEX \"pendingLookups_on_nextRetryAt\" ON \"pendingLookups\"(\"nextRetryAt\")",
        "CREATE TABLE \"processedFiles\" (\"path\" TEXT PRIMARY KEY NOT NULL, \"size\" INTEGER NOT NULL, \"modifiedTime\" DOUBLE NOT NULL, \"outcome\" TEXT NOT NULL, \"processedAt\" DATETIME NOT NULL)",
        "CREATE TABLE \"users\" (\"id\" TEXT PRIMARY KEY NOT NULL, \"email\" TEXT, \"displayName\" TEXT NOT NULL, \"photoURL\" TEXT, \"authProvider\" TEXT NOT NULL, \"isPro\" BOOLEAN NOT NULL, \"createdAt\" DATETIME NOT NULL, \"updatedAt\" DATETIME NOT NULL, \"booksRead\" INTEGER NOT NULL, \"currentlyReading\" INTEGER NOT NULL, \"hasCompletedOnboarding\" BOOLEAN NOT NULL, \"scanCount\" INTEGER NOT NULL, \"reviewCount\" INTEGER NOT NULL, \"subscriptionUpdatedAt\" DATETIME)",
        "CREATE TABLE \"works\" (\"workKey\" TEXT PRIMARY KEY NOT NULL, \"title\" TEXT NOT NULL COLLATE NOCASE, \"authors\" TEXT NOT NULL, \"primaryAuthor\" TEXT NOT NULL, \"coverImageUrl\" TEXT, \"description\" TEXT, \"genre\" TEXT, \"categories\" TEXT NOT NULL, \"pageCount\" INTEGER, \"publishDate\" TEXT, \"publisher\" TEXT, \"language\" TEXT NOT NULL, \"editions\" TEXT NOT NULL, \"primaryIsbn\" TEXT NOT NULL, \"editionCount\" INTEGER NOT NULL, \"apiSource\" TEXT NOT NULL, \"createdAt\" DATETIME NOT NULL, \"updatedAt\" DATETIME NOT NULL, \"totalReaders\" INTEGER NOT NULL DEFAULT 0, \"averageRating\" DOUBLE, \"ratingsCount\" INTEGER NOT NULL DEFAULT 0)",
        "CREATE INDEX \"works_on_title\" ON \"works\"(\"title\")",
    ]
}
