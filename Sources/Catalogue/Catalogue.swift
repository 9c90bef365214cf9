import BookCodes
import Foundation
import GRDB

/// The local SQLite database: the work/ISBN cache, the user's library, lookups waiting
/// for a retry, and the files a scan has finished with. One `DatabasePool` (WAL mode,
/// readers never block the writer) on a real file, safe to share between tasks and
/// between processes.
public final class Catalogue: Sendable {
    public let path: String
    /// The local user every library operation applies to.
    public let userId: String
    let pool: DatabasePool

    /// Opens (creating folders and file on first use) and migrates the database, then
    /// makes sure the local user and its two default lists exist.
    public init(path: String, userId: String = "local", displayName: String = "Local user") throws(CatalogueError) {
        self.path = path
        self.userId = userId
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw .cannotOpen(path: path, reason: "cannot create its folder: \(error.localizedDescription)")
        }
        var configuration = Configuration()
        // Another rapidscan process may be writing (a scan while `pending retry` runs).
        configuration.busyMode = .timeout(15)
        configuration.label = "rapidscan"
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            try Schema.migrator.migrate(pool)
            try pool.write { db in try Self.createLocalUser(db, id: userId, displayName: displayName, now: Date()) }
        } catch {
            throw .cannotOpen(path: path, reason: CatalogueError.describe(error))
        }
    }

    private static func createLocalUser(_ db: Database, id: String, displayName: String, now: Date) throws {
        guard try User.fetchOne(db, key: id) == nil else { return }
        try User(
            id: id, email: nil, displayName: displayName, photoURL: nil, authProvider: "local",
            isPro: false, createdAt: now, updatedAt: now, booksRead: 0, currentlyReading: 0,
            hasCompletedOnboarding: false, scanCount: 0, reviewCount: 0, subscriptionUpdatedAt: nil
        ).insert(db)
        for (type, name) in [(ListType.toRead, "Want to Read"), (.completed, "Finished")] {
            try BookList(
                id: "\(id)_\(type.rawValue)", name: name, ownerId: id, ownerName: displayName,
                description: nil, bannerImageUrl: nil, isPublic: false, shareCode: try uniqueShareCode(db),
                listType: type, isDefault: true, itemCount: 0, createdAt: now, updatedAt: now
            ).insert(db)
        }
    }

    private static func uniqueShareCode(_ db: Database) throws -> String {
        while true {
            let code = BookList.randomShareCode()
            if try !BookList.filter(Column("shareCode") == code).isEmpty(db) { continue }
            return code
        }
    }

    /// The default "Want to Read" list: `{userId}_toRead`.
    public var defaultListId: String { "\(userId)_\(ListType.toRead.rawValue)" }

    // Every public operation maps GRDB's errors to CatalogueError in one place.
    func read<T>(_ body: (Database) throws -> T) throws(CatalogueError) -> T {
        do { return try pool.read(body) } catch { throw CatalogueError(error) }
    }

    func write<T>(_ body: (Database) throws -> T) throws(CatalogueError) -> T {
        do { return try pool.write(body) } catch { throw CatalogueError(error) }
    }

    public func lists() throws(CatalogueError) -> [BookList] {
        try read { db in try BookList.fetchAll(db, sql: """
                SELECT * FROM lists WHERE ownerId = ?
                ORDER BY isDefault DESC, listType = 'completed', createdAt, name
                """, arguments: [userId]) }
    }

    public func stats() throws(CatalogueError) -> CacheStats {
        let userId = userId
        var stats = try read { db in
            CacheStats(
                works: try Work.fetchCount(db),
                editions: try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(editionCount), 0) FROM works") ?? 0,
                isbnIndexEntries: try ISBNIndexEntry.fetchCount(db),
                items: try Item.filter(Column("userId") == userId).fetchCount(db),
                ownedItems: try Item.filter(Column("userId") == userId && Column("isOwned") == true).fetchCount(db),
                pendingLookups: try PendingLookup.fetchCount(db),
                processedFiles: try ProcessedFile.fetchCount(db),
                databaseBytes: 0)
        }
        stats.databaseBytes = ["", "-wal", "-shm"].reduce(Int64(0)) { total, suffix in
            let attributes = try? FileManager.default.attributesOfItem(atPath: path + suffix)
            return total + ((attributes?[.size] as? NSNumber)?.int64Value ?? 0)
        }
        return stats
    }
}

/// What went wrong with the database, in words a user can act on.
public enum CatalogueError: Error, Sendable, CustomStringConvertible, Equatable {
    case cannotOpen(path: String, reason: String)
    case unknownList(String)
    case invalidFormat(String)
    case database(String)

    init(_ error: any Error) {
        if let error = error as? CatalogueError { self = error } else { self = .database(Self.describe(error)) }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            return error.message ?? "\(error.resultCode)"
        }
        return "\(error)"
    }

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason): "cannot open the database \(path): \(reason)"
        case let .unknownList(id): "no list with id '\(id)'"
        case let .invalidFormat(format):
            "'\(format)' is not an owned format (use \(OwnedFormat.allCases.map(\.rawValue).joined(separator: ", ")))"
        case let .database(message): "database error: \(message)"
        }
    }
}
