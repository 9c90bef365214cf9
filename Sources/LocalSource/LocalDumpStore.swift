import Foundation
import GRDB

/// The local source's SQLite file: Open Library editions with an ISBN, their works and
/// authors, keyed by the number in their OL key, plus full-text indexes of titles and
/// author names and one row per dump file loaded (its resume point and counts).
/// Its own file, separate from the library: it can be rebuilt from the dumps at any time.
final class LocalDumpStore: Sendable {
    let path: String
    let writer: any DatabaseWriter
    /// False for a file written before deletes and redirects were kept (read-only opens do not migrate).
    let keepsRetired: Bool

    /// Page cache a connection (KiB): also the most a load's sort keeps in memory.
    static let cacheKiB = 65_536

    /// Opens (creating when `readOnly` is false) the file at `path`.
    init(path: String, readOnly: Bool) throws(DumpError) {
        self.path = path
        var configuration = Configuration()
        configuration.readonly = readOnly
        // A load's last connection closing checkpoints the WAL under an exclusive lock: a reader
        // opening then (a spine search right after a load) waits for it instead of failing "locked".
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            if !readOnly {
                // Only a load writes here. A crash (kill -9) loses at most the last batch, which the resume
                // row (same transaction) says to read again: the OS holds what SQLite wrote, so no fsync is
                // needed for that (a checkpoint's fsyncs stalled the one writer each batch). Power lost
                // mid-load may cost the file, which the dumps rebuild.
                try db.execute(sql: "PRAGMA synchronous = OFF")
                // A load's memory must not grow with the dump (45 million editions): SQLite's part is
                // the page cache plus one sorter at a time, whose in-memory run is capped at the cache
                // size (longer sorts spill to temporary files: on disk, never in memory), and no file
                // pages mapped into memory.
                try db.execute(sql: "PRAGMA temp_store = FILE; PRAGMA mmap_size = 0")
            }
            try db.execute(sql: "PRAGMA cache_size = -\(Self.cacheKiB)")
        }
        do {
            if !readOnly {
                try FileManager.default.createDirectory(
                    at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
            }
            let pool = try DatabasePool(path: path, configuration: configuration)
            writer = pool
            if !readOnly { try Self.migrator.migrate(pool) }
            keepsRetired = try pool.read { try $0.tableExists("retired") }
        } catch {
            throw .database(path: path, reason: "\(error)")
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-dump") { db in
            // Editions: id = the number in /books/OL…M. Lists are kept as text: authorIDs
            // space-separated numbers, subjects one per line.
            try db.execute(sql: """
                CREATE TABLE edition (
                    id INTEGER PRIMARY KEY, revision INTEGER NOT NULL, title TEXT NOT NULL, subtitle TEXT,
                    authorIDs TEXT, byStatement TEXT, workID INTEGER, publisher TEXT, publishDate TEXT,
                    pages INTEGER, coverID INTEGER, language TEXT, format TEXT, description TEXT, subjects TEXT,
                    isbns TEXT NOT NULL);
                CREATE TABLE editionISBN (isbn INTEGER NOT NULL, editionID INTEGER NOT NULL,
                    PRIMARY KEY (isbn, editionID)) WITHOUT ROWID;
                CREATE TABLE work (
                    id INTEGER PRIMARY KEY, revision INTEGER NOT NULL, title TEXT, authorIDs TEXT,
                    subjects TEXT, description TEXT, coverID INTEGER, firstPublishDate TEXT);
                CREATE TABLE author (id INTEGER PRIMARY KEY, revision INTEGER NOT NULL, name TEXT NOT NULL);
                CREATE VIRTUAL TABLE editionTitleSearch USING fts5(title, content='', tokenize='unicode61 remove_diacritics 2');
                CREATE VIRTUAL TABLE authorNameSearch USING fts5(name, content='', tokenize='unicode61 remove_diacritics 2');
                CREATE TABLE dumpFile (
                    identity TEXT PRIMARY KEY, name TEXT NOT NULL, bytes INTEGER NOT NULL,
                    textOffset INTEGER NOT NULL DEFAULT 0, lines INTEGER NOT NULL DEFAULT 0,
                    finished INTEGER NOT NULL DEFAULT 0, editions INTEGER NOT NULL DEFAULT 0,
                    works INTEGER NOT NULL DEFAULT 0, authors INTEGER NOT NULL DEFAULT 0,
                    skipped INTEGER NOT NULL DEFAULT 0, malformed INTEGER NOT NULL DEFAULT 0,
                    newestModified TEXT, startedAt TEXT NOT NULL, finishedAt TEXT);
                """)
        }
        migrator.registerMigration("v2-retired") { db in
            // Deletes and redirects (kind: 0 edition, 1 work, 2 author; target nil for a delete):
            // an older row of the record loaded later does not bring it back.
            try db.execute(sql: """
                CREATE TABLE retired (kind INTEGER NOT NULL, id INTEGER NOT NULL, revision INTEGER NOT NULL, target INTEGER,
                    PRIMARY KEY (kind, id)) WITHOUT ROWID;
                ALTER TABLE dumpFile ADD COLUMN retired INTEGER NOT NULL DEFAULT 0;
                """)
        }
        migrator.registerMigration("v3-deferred-indexes") { db in
            // An index named here ("editions": editionISBN and editionTitleSearch; "authors":
            // authorNameSearch) is not kept up by the loads that run until one finishes, which
            // fills it from the stored rows: what an empty store gets (one sorted pass instead of
            // a random insert per row). A load killed in between leaves it here for the resumed one.
            try db.execute(sql: "CREATE TABLE deferredIndex (name TEXT PRIMARY KEY) WITHOUT ROWID")
        }
        return migrator
    }

    struct DeferredIndexes {
        var editions: Bool
        var authors: Bool
    }

    static func deferredIndexes(_ db: Database) throws -> DeferredIndexes {
        let names = try Set(String.fetchAll(db, sql: "SELECT name FROM deferredIndex"))
        return DeferredIndexes(editions: names.contains("editions"), authors: names.contains("authors"))
    }

    /// At the start of a load: the indexes of a kind with no row stored yet are deferred.
    static func deferIndexesIfEmpty(_ db: Database) throws {
        try db.execute(sql: """
            INSERT OR IGNORE INTO deferredIndex(name) SELECT 'editions' WHERE NOT EXISTS (SELECT 1 FROM edition);
            INSERT OR IGNORE INTO deferredIndex(name) SELECT 'authors' WHERE NOT EXISTS (SELECT 1 FROM author);
            """)
    }

    /// At the end of a load: the deferred indexes rebuilt from the rows stored (in the load's
    /// last transaction, so a kill here leaves them deferred for the resumed run).
    static func fillDeferredIndexes(_ db: Database) throws {
        let deferred = try deferredIndexes(db)
        if deferred.editions {
            // ISBNs are kept space-separated on the edition; sorted, the index is written in order.
            // An edition with one ISBN (most) is read without json_each (0.83 against 1.14 CPU-s
            // for 500,000 editions).
            try db.execute(sql: """
                DELETE FROM editionISBN;
                INSERT INTO editionTitleSearch(editionTitleSearch) VALUES ('delete-all');
                INSERT OR IGNORE INTO editionISBN(isbn, editionID)
                    SELECT CAST(isbns AS INTEGER), id FROM edition WHERE instr(isbns, ' ') = 0
                    UNION ALL
                    SELECT CAST(isbn.value AS INTEGER), edition.id
                    FROM edition, json_each('[' || replace(edition.isbns, ' ', ',') || ']') AS isbn
                    WHERE instr(edition.isbns, ' ') > 0
                    ORDER BY 1, 2;
                INSERT INTO editionTitleSearch(rowid, title)
                    SELECT id, title || coalesce(' ' || subtitle, '') FROM edition;
                DELETE FROM deferredIndex WHERE name = 'editions';
                """)
        }
        if deferred.authors {
            try db.execute(sql: """
                INSERT INTO authorNameSearch(authorNameSearch) VALUES ('delete-all');
                INSERT INTO authorNameSearch(rowid, name) SELECT id, name FROM author;
                DELETE FROM deferredIndex WHERE name = 'authors';
                """)
        }
    }

    /// Indexes only reads need (author search), built once when a load finishes rather than
    /// kept up row by row while it runs; later loads keep them up.
    static func createReadIndexes(_ db: Database) throws {
        try db.execute(sql: """
            CREATE INDEX IF NOT EXISTS editionByAuthors ON edition(authorIDs) WHERE authorIDs IS NOT NULL;
            CREATE INDEX IF NOT EXISTS editionByWork ON edition(workID) WHERE workID IS NOT NULL;
            CREATE INDEX IF NOT EXISTS workByAuthors ON work(authorIDs) WHERE authorIDs IS NOT NULL;
            """)
    }
}

/// A dump file as the store remembers it.
public struct LoadedDumpFile: Sendable, Hashable {
    public var name: String
    public var bytes: Int64
    public var lines: Int
    public var finished: Bool
    public var editions: Int
    public var works: Int
    public var authors: Int
    public var skipped: Int
    public var malformed: Int
    /// The newest `last_modified` among its rows: the dump's date.
    public var newestModified: String?
}

/// What `rapidscan sources` shows for the local source.
public struct LocalSourceState: Sendable, Hashable {
    public var path: String
    public var editions: Int
    public var works: Int
    public var authors: Int
    public var bytes: Int64
    public var files: [LoadedDumpFile]
    /// The newest row date over every file loaded.
    public var dumpDate: String? { files.compactMap(\.newestModified).max().map { String($0.prefix(10)) } }
}
