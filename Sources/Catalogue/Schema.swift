import BookCodes
import GRDB

/// Migrations are registered once, in order, and never edited after they ship: a change
/// to the schema is a new migration appended below.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1", migrate: createTables)
        migrator.registerMigration("v2-spines", migrate: SpinesMigration.migrate)
        migrator.registerMigration("v2-search", migrate: createSearchIndexes)
        migrator.registerMigration("v2-library", migrate: createLibraryTables)
        migrator.registerMigration("v3-stations", migrate: StationsMigration.migrate)
        migrator.registerMigration("v4-spine-boxes", migrate: SpinesMigration.addBoxes)
        return migrator
    }

    /// The `user_version` this rapidscan writes (it has never set one). A larger one, or a
    /// migration this version does not know, means a newer rapidscan made the file.
    static let userVersion = 0

    /// Why the database is from a newer rapidscan, or nil when it is not.
    static func newerVersion(_ db: Database) throws -> String? {
        let stored = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        if stored > userVersion { return "user_version \(stored); this rapidscan knows \(userVersion)" }
        let known = Set(migrator.migrations)
        let unknown = try migrator.appliedIdentifiers(db).filter { !known.contains($0) }.sorted()
        guard !unknown.isEmpty else { return nil }
        return "migration\(unknown.count == 1 ? "" : "s") \(unknown.map { "'\($0)'" }.joined(separator: ", ")) unknown to this rapidscan"
    }

    private static func createTables(_ db: Database) throws {
        try db.create(table: "works") { t in
            t.primaryKey("workKey", .text)
            // NOCASE so a case-insensitive title prefix search can use the index below.
            t.column("title", .text).notNull().collate(.nocase)
            t.column("authors", .jsonText).notNull()
            t.column("primaryAuthor", .text).notNull()
            t.column("coverImageUrl", .text)
            t.column("description", .text)
            t.column("genre", .text)
            t.column("categories", .jsonText).notNull()
            t.column("pageCount", .integer)
            t.column("publishDate", .text)
            t.column("publisher", .text)
            t.column("language", .text).notNull()
            t.column("editions", .jsonText).notNull()
            t.column("primaryIsbn", .text).notNull()
            t.column("editionCount", .integer).notNull()
            t.column("apiSource", .text).notNull()
            t.column("createdAt", .datetime).notNull()
            t.column("updatedAt", .datetime).notNull()
            t.column("totalReaders", .integer).notNull().defaults(to: 0)
            t.column("averageRating", .double)
            t.column("ratingsCount", .integer).notNull().defaults(to: 0)
        }
        try db.create(index: "works_on_title", on: "works", columns: ["title"])

        try db.create(table: "isbnIndex") { t in
            t.primaryKey("isbn", .text)
            t.column("workKey", .text).notNull().indexed()
                .references("works", onDelete: .cascade, onUpdate: .cascade)
            t.column("format", .text).notNull()
            t.column("publisher", .text)
            t.column("publishDate", .text)
            t.column("indexedAt", .datetime).notNull()
            t.column("apiSource", .text).notNull()
            t.column("metadataScore", .integer).notNull()
        }

        try db.create(table: "users") { t in
            t.primaryKey("id", .text)
            t.column("email", .text)
            t.column("displayName", .text).notNull()
            t.column("photoURL", .text)
            t.column("authProvider", .text).notNull()
            t.column("isPro", .boolean).notNull()
            t.column("createdAt", .datetime).notNull()
            t.column("updatedAt", .datetime).notNull()
            t.column("booksRead", .integer).notNull()
            t.column("currentlyReading", .integer).notNull()
            t.column("hasCompletedOnboarding", .boolean).notNull()
            t.column("scanCount", .integer).notNull()
            t.column("reviewCount", .integer).notNull()
            t.column("subscriptionUpdatedAt", .datetime)
        }

        try db.create(table: "lists") { t in
            t.primaryKey("id", .text)
            t.column("name", .text).notNull()
            t.column("ownerId", .text).notNull().indexed().references("users", onDelete: .cascade)
            t.column("ownerName", .text).notNull()
            t.column("description", .text)
            t.column("bannerImageUrl", .text)
            t.column("isPublic", .boolean).notNull()
            t.column("shareCode", .text).notNull().unique()
            t.column("listType", .text).notNull()
            t.column("isDefault", .boolean).notNull()
            t.column("itemCount", .integer).notNull()
            t.column("createdAt", .datetime).notNull()
            t.column("updatedAt", .datetime).notNull()
        }

        try db.create(table: "items") { t in
            t.primaryKey("id", .text)
            t.column("listId", .text).notNull().indexed().references("lists", onDelete: .cascade)
            t.column("userId", .text).notNull().references("users", onDelete: .cascade)
            t.column("bookId", .text).notNull()
            t.column("isbn", .text).notNull()
            t.column("title", .text).notNull()
            t.column("authors", .jsonText).notNull()
            t.column("coverImageUrl", .text)
            t.column("description", .text)
            t.column("pageCount", .integer)
            t.column("genre", .text)
            t.column("categories", .jsonText)
            t.column("status", .text).notNull()
            t.column("liked", .boolean).notNull()
            t.column("rating", .integer)
            t.column("notes", .text)
            t.column("currentPage", .integer)
            t.column("startedReadingAt", .datetime)
            t.column("finishedReadingAt", .datetime)
            t.column("addedAt", .datetime).notNull()
            t.column("updatedAt", .datetime).notNull()
            t.column("isOwned", .boolean).notNull()
            t.column("ownedFormat", .text)
            t.column("ownedAt", .datetime)
            // A book is in a user's library once, whichever photo or list it came from.
            t.uniqueKey(["userId", "isbn"])
        }
        try db.create(index: "items_on_userId_bookId", on: "items", columns: ["userId", "bookId"])
        try db.create(index: "items_on_userId_isOwned", on: "items", columns: ["userId", "isOwned"])

        try db.create(table: "pendingLookups") { t in
            t.primaryKey("isbn", .text)
            t.column("reason", .text).notNull()
            t.column("source", .text).notNull()
            t.column("attempts", .integer).notNull()
            t.column("intent", .jsonText).notNull()
            t.column("queuedAt", .datetime).notNull()
            t.column("lastAttemptAt", .datetime).notNull()
            t.column("nextRetryAt", .datetime).notNull().indexed()
        }

        try db.create(table: "processedFiles") { t in
            t.primaryKey("path", .text)
            t.column("size", .integer).notNull()
            t.column("modifiedTime", .double).notNull()
            t.column("outcome", .text).notNull()
            t.column("processedAt", .datetime).notNull()
        }
    }
}
