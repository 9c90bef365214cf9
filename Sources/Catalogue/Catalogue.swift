import BookCodes
import Foundation
import GRDB

/// The local SQLite database: the work/ISBN cache, the user's library, lookups waiting
/// for a retry, and the files a scan has finished with. In production one `DatabasePool`
/// (WAL mode, readers never block the writer) on a real file, safe to share between tasks
/// and between processes; any GRDB `DatabaseWriter` works (an in-memory `DatabaseQueue` in
/// unit tests), migrated the same way.
public final class Catalogue: Sendable {
    /// The database file (":memory:" or the writer's own path when opened on a writer).
    public let path: String
    /// The local user every library operation applies to.
    public let userId: String
    /// Stored values found damaged (named, each once; the CLI prints them as warnings).
    public let damage: DamageLog
    let writer: any DatabaseWriter

    /// Opens (creating folders and file on first use) and migrates the database, then
    /// makes sure the local user and its two default lists exist.
    ///
    /// `readOnly`: for commands that only read a library on a read-only location (a mount,
    /// a folder the user cannot write): nothing is created, migrated or written, and a write
    /// fails with `.readOnly`.
    public convenience init(path: String, userId: String = "local", displayName: String = "Local user", readOnly: Bool = false,
                            reportDamage: (@Sendable (DamagedValue) -> Void)? = nil) throws(CatalogueError) {
        let damage = DamageLog(report: reportDamage)
        if readOnly {
            self.init(opened: try Self.openReadOnly(path: path), path: path, userId: userId, damage: damage)
            return
        }
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw .cannotOpen(path: path, reason: "cannot create its folder: \(error.localizedDescription)")
        }
        var configuration = Configuration()
        // Another rapidscan process may be writing (a scan while `pending retry` runs).
        configuration.busyMode = .timeout(Self.busyDeadline)
        configuration.label = "rapidscan"
        // Keep the WAL small: checkpoint every ~400 KB (not SQLite's 4 MB) and truncate it
        // to 1 MB after, so a nearly full disk is not eaten by the log.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 100; PRAGMA journal_size_limit = 1048576")
        }
        let pool: DatabasePool
        do {
            // Checked on a read-only connection first: opening the pool already writes to the
            // file's header, and a newer rapidscan's database must not be touched at all.
            if FileManager.default.fileExists(atPath: path) { try Self.refuseNewerVersion(path: path) }
            pool = try DatabasePool(path: path, configuration: configuration)
            try Self.prepare(pool, path: path, userId: userId, displayName: displayName, newerChecked: true)
        } catch let error as CatalogueError {
            throw error
        } catch {
            // Opening writes too (WAL, shared memory, migrations): a full disk says so.
            if let failure = error as? DatabaseError, failure.resultCode == .SQLITE_FULL
                || (failure.resultCode == .SQLITE_IOERR && (CatalogueError.freeSpace(near: path) ?? .max) < 1 << 20) {
                throw .diskFull(path: path, walBytes: CatalogueError.fileSize(path + "-wal"), freeBytes: CatalogueError.freeSpace(near: path))
            }
            throw .cannotOpen(path: path, reason: CatalogueError.describe(error))
        }
        self.init(opened: pool, path: path, userId: userId, damage: damage)
    }

    /// Opens on any writer (its file, or memory), with the same migrations and local user
    /// as `init(path:)`. The writer's configuration is the caller's.
    public convenience init(writer: any DatabaseWriter, userId: String = "local", displayName: String = "Local user",
                            reportDamage: (@Sendable (DamagedValue) -> Void)? = nil) throws(CatalogueError) {
        do {
            try Self.prepare(writer, path: writer.path, userId: userId, displayName: displayName)
        } catch let error as CatalogueError {
            throw error
        } catch {
            throw .cannotOpen(path: writer.path, reason: CatalogueError.describe(error))
        }
        self.init(opened: writer, path: writer.path, userId: userId, damage: DamageLog(report: reportDamage))
    }

    /// A new, empty catalogue in memory: for tests where a file adds nothing (no WAL, no
    /// second process, no permissions, no disk).
    public static func inMemory(userId: String = "local", displayName: String = "Local user",
                                reportDamage: (@Sendable (DamagedValue) -> Void)? = nil) throws(CatalogueError) -> Catalogue {
        var configuration = Configuration()
        configuration.label = "rapidscan"
        let queue: DatabaseQueue
        do { queue = try DatabaseQueue(configuration: configuration) } catch {
            throw .cannotOpen(path: ":memory:", reason: CatalogueError.describe(error))
        }
        return try Catalogue(writer: queue, userId: userId, displayName: displayName, reportDamage: reportDamage)
    }

    private init(opened writer: any DatabaseWriter, path: String, userId: String, damage: DamageLog) {
        self.writer = writer
        self.path = path
        self.userId = userId
        self.damage = damage
    }

    /// Migrates and creates the local user, checked with a read first: an open that has
    /// nothing to change writes nothing (no commit, no fsync), which keeps `library list` quick.
    /// A database a newer rapidscan made is refused before anything is written (`newerChecked`:
    /// the caller refused it already, before the pool switched the file to WAL).
    private static func prepare(_ writer: any DatabaseWriter, path: String, userId: String, displayName: String,
                                newerChecked: Bool = false) throws {
        let (ready, newer) = try writer.read { db in
            (try Schema.migrator.hasCompletedMigrations(db) && User.exists(db, key: userId),
             newerChecked ? nil : try Schema.newerVersion(db))
        }
        if let newer { throw CatalogueError.newerVersion(path: path, detail: newer) }
        if !ready {
            try Schema.migrator.migrate(writer)
            try writer.write { db in try createLocalUser(db, id: userId, displayName: displayName, now: Date()) }
        }
    }

    private static func refuseNewerVersion(path: String) throws {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "rapidscan"
        let newer = try DatabaseQueue(path: path, configuration: configuration).read { db in try Schema.newerVersion(db) }
        if let newer { throw CatalogueError.newerVersion(path: path, detail: newer) }
    }

    private static func openReadOnly(path: String) throws(CatalogueError) -> any DatabaseWriter {
        guard FileManager.default.fileExists(atPath: path) else {
            throw .cannotOpen(path: path, reason: "no such file (a read-only location cannot hold a new library)")
        }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "rapidscan"
        // A WAL database needs its -shm file; where none exists and none can be created (a
        // folder nothing can write), SQLite reads only with `immutable=1`, right there since no
        // writer can exist. Anywhere else a scan may be writing at this moment, and an immutable
        // reader would neither see its WAL nor lock against its checkpoint. A WAL holding pages
        // not yet checkpointed in a folder nothing can write (a crash, then the folder made
        // read-only) cannot be read in place at all: it is read from a private copy.
        let walBytes = CatalogueError.fileSize(path + "-wal")
        let folderWritable = FileManager.default.isWritableFile(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path)
        do {
            let reader: any DatabaseWriter
            if walBytes > 0 && !folderWritable {
                reader = try Self.privateCopy(of: path)
            } else {
                reader = try DatabasePool(path: folderWritable ? path : "file:" + Self.uriEscaped(path) + "?immutable=1", configuration: configuration)
            }
            let (current, newer) = try reader.read { db in (try Schema.migrator.hasCompletedMigrations(db), try Schema.newerVersion(db)) }
            if let newer { throw CatalogueError.newerVersion(path: path, detail: newer) }
            guard current else {
                throw CatalogueError.cannotOpen(path: path, reason: "it was made by an older rapidscan; "
                    + "open it once where it can be written to upgrade it")
            }
            return reader
        } catch let error as CatalogueError {
            throw error
        } catch {
            throw .cannotOpen(path: path, reason: CatalogueError.describe(error) + " (opened read-only)")
        }
    }

    /// The database and its WAL copied into a private temporary folder, opened there (SQLite
    /// replays the WAL into the copy), then backed up into memory and the copy removed: the
    /// reading command sees every committed page and leaves no file behind. The memory copy
    /// refuses writes (`query_only`), as a read-only open would.
    private static func privateCopy(of path: String) throws -> DatabaseQueue {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rapidscan-read-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("library.sqlite").path
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
        var configuration = Configuration()
        configuration.label = "rapidscan"
        let memory = try DatabaseQueue(configuration: configuration)
        try DatabaseQueue(path: copy, configuration: configuration).backup(to: memory)
        try memory.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA query_only = 1") }
        return memory
    }

    /// A file path inside a `file:` URI: `%`, `?` and `#` would otherwise be read as URI syntax.
    private static func uriEscaped(_ path: String) -> String {
        path.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "?", with: "%3f")
            .replacingOccurrences(of: "#", with: "%23")
    }

    private static func createLocalUser(_ db: Database, id: String, displayName: String, now: Date) throws {
        guard try !User.exists(db, key: id) else { return }
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
        do { return try writer.read(body) } catch { throw CatalogueError(error) }
    }

    /// A write that found the database busy (another process) waits SQLite's busy time-out,
    /// one that found a table locked is retried until `busyDeadline`; one that found the disk full checkpoints and truncates the WAL (which
    /// otherwise keeps the space) and is tried once more, then says how much space it needs.
    func write<T>(_ body: (Database) throws -> T) throws(CatalogueError) -> T {
        let deadline = Date().addingTimeInterval(Self.busyDeadline)
        var reclaimed = false
        while true {
            do { return try writer.write(body) } catch let error as DatabaseError {
                switch error.resultCode {
                // BUSY has already waited SQLite's busy time-out (the same 15 s); a LOCKED
                // table (no busy handler) is retried here within that time.
                case .SQLITE_LOCKED where Date() < deadline:
                    Thread.sleep(forTimeInterval: 0.05)
                case .SQLITE_FULL where !reclaimed, .SQLITE_IOERR where !reclaimed && Self.diskIsFull(path):
                    reclaimed = true
                    truncateWAL()
                case .SQLITE_IOERR where Self.diskIsFull(path):
                    throw CatalogueError.diskFull(path: path, walBytes: CatalogueError.fileSize(path + "-wal"),
                                                  freeBytes: CatalogueError.freeSpace(near: path))
                default:
                    throw CatalogueError(error, path: path)
                }
            } catch {
                throw CatalogueError(error, path: path)
            }
        }
    }

    static let busyDeadline: TimeInterval = 15

    /// A write error with under 64 KB free is the disk being full (SQLite may say IOERR).
    static func diskIsFull(_ path: String) -> Bool { (CatalogueError.freeSpace(near: path) ?? .max) < 64 << 10 }

    /// Moves the WAL's pages into the database and truncates the WAL to zero bytes.
    func truncateWAL() {
        _ = try? writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
    }

    public func lists() throws(CatalogueError) -> [BookList] {
        try read { db in try stored(BookList.self, db, sql: """
                SELECT rowid, * FROM lists WHERE ownerId = ?
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
    /// SQLite's own verdicts, kept so each gets a message the user can act on.
    case busy(path: String)
    case readOnly(path: String)
    case diskFull(path: String, walBytes: Int64, freeBytes: Int64?)
    /// A stored value the operation needs cannot be read (see `DamagedValue`).
    case damaged(DamagedValue)
    /// The database was made by a newer rapidscan (migrations this one does not know, or a
    /// newer `user_version`): never written by this one.
    case newerVersion(path: String, detail: String)

    init(_ error: any Error, path: String? = nil) {
        if let error = error as? CatalogueError {
            self = error
            return
        }
        if let error = error as? DatabaseError, let path {
            switch error.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                self = .busy(path: path)
                return
            case .SQLITE_READONLY:
                self = .readOnly(path: path)
                return
            case .SQLITE_FULL:
                self = .diskFull(path: path, walBytes: Self.fileSize(path + "-wal"), freeBytes: Self.freeSpace(near: path))
                return
            default: break
            }
        }
        self = .database(Self.describe(error))
    }

    static func fileSize(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    static func freeSpace(near path: String) -> Int64? {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return ((try? FileManager.default.attributesOfFileSystem(forPath: folder))?[.systemFreeSize] as? NSNumber)?.int64Value
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            return error.message ?? "\(error.resultCode)"
        }
        return "\(error)"
    }

    private static func size(_ bytes: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file)
    }

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason): "cannot open the database \(path): \(reason)"
        case let .unknownList(id): "no list with id '\(id)'"
        case let .invalidFormat(format):
            "'\(format)' is not an owned format (use \(OwnedFormat.allCases.map(\.rawValue).joined(separator: ", ")))"
        case let .database(message): "database error: \(message)"
        case let .busy(path):
            "the database \(path) stayed locked by another process for \(Int(Catalogue.busyDeadline)) s; nothing was written, try again"
        case let .readOnly(path):
            "the database \(path) is read-only (check the file's and its folder's permissions); nothing was written"
        case let .diskFull(path, walBytes, free):
            "the disk holding \(path) is full\(free.map { " (\(Self.size($0)) free)" } ?? ""); nothing was written. "
                + "Free at least \(Self.size(max(1 << 20, walBytes * 2))) and run again"
        case let .damaged(value): "a stored value cannot be read: \(value)"
        case let .newerVersion(path, detail):
            "the database \(path) was made by a newer rapidscan (\(detail)); this version does not open it, "
                + "so nothing was read or written. Use that newer rapidscan, or `rapidscan export` the library with it "
                + "and `rapidscan import` the export here with --db pointing at a new file"
        }
    }
}
