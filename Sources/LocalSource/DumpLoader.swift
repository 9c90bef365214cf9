import CMalloc
import Dispatch
import Foundation
import GRDB
import WorkerPools

/// Streams Open Library dump files into the local source. Rows are read (inflated, split into
/// lines) on the calling task, parsed in chunks by a `OrderedWorkerPool` (one worker a core)
/// and written by one writer thread while the next batch is parsed; a batch and the file's
/// resume point (text offset, line, counts) are stored in one transaction, so a run stopped
/// anywhere (Ctrl-C, kill -9, power) goes on from the last batch stored. A row whose revision
/// is not newer than the stored one changes nothing, so loading a file again adds nothing;
/// a file already loaded to its end is recognised by its size and sampled bytes and skipped.
/// Into an empty store, the search indexes (ISBNs, title and name words) are filled once at
/// the end of the load instead of row by row (`LocalDumpStore.deferredIndexes`).
public final class DumpLoader: Sendable {
    public struct Progress: Sendable {
        public var file: String
        public var fileBytes: Int64
        public var fileBytesRead: Int64
        public var editions: Int
        public var works: Int
        public var authors: Int
        public var malformed: Int
        public var seconds: Double
    }

    public struct FileReport: Sendable {
        public var file: String
        /// Loaded to its end by an earlier run: nothing read.
        public var alreadyLoaded: Bool
        /// The line a stopped run is resumed after (nil: started at the top).
        public var resumedAfterLine: Int?
        public var lines: Int
        /// Records stored by this run (new, or a newer revision).
        public var editions: Int
        public var works: Int
        public var authors: Int
        /// Deletes and redirects applied (the record gone; a redirect's target answers for it).
        public var retired: Int
        /// Other record types, editions without ISBN, revisions not newer than the stored one.
        public var skipped: Int
        public var malformed: Int
        public var seconds: Double
    }

    /// Rows per transaction.
    public let batchSize: Int
    let store: LocalDumpStore
    private let writeQueue = DispatchQueue(label: "rapidscan.dump-writer")
    /// Rows a parsing worker takes at a time (at most a batch, so small test batches still
    /// store part-way), and how many chunks may be read ahead of the writer. In flight at most:
    /// these chunks' lines (~43 MB of text, holding the ≤ 4 MB inflate blocks they were cut from),
    /// their parsed records, the batch being gathered and the one being written: a fixed budget
    /// whatever the dump's size.
    private static let chunkLines = 2_000, chunksAhead = 16

    /// Opens (creating) the local source at `path`.
    public init(path: String, batchSize: Int = 20_000) throws(DumpError) {
        self.batchSize = max(1, batchSize)
        store = try LocalDumpStore(path: path, readOnly: false)
    }

    public var path: String { store.path }

    /// Loads `file`. `malformed` is called for each malformed row (line, reason); `progress`
    /// after each batch stored.
    public func load(
        file: String, malformed: (Int, String) -> Void = { _, _ in }, progress: (Progress) -> Void = { _ in }
    ) async throws(DumpError) -> FileReport {
        let started = Date()
        let identity = try Self.identity(of: file)
        let name = URL(fileURLWithPath: file).lastPathComponent
        let existing = try stored(identity: identity.key)
        if let existing, existing.finished {
            return FileReport(file: file, alreadyLoaded: true, resumedAfterLine: nil, lines: existing.lines, editions: 0, works: 0,
                              authors: 0, retired: 0, skipped: 0, malformed: 0, seconds: Date().timeIntervalSince(started))
        }
        let reader = try DumpLineReader(path: file)
        if let existing {
            try reader.skip(toOffset: existing.textOffset, lineNumber: existing.lines)
        } else {
            try write { db in
                try db.execute(sql: "INSERT INTO dumpFile(identity, name, bytes, startedAt) VALUES (?, ?, ?, ?)",
                               arguments: [identity.key, name, identity.bytes, Self.timestamp()])
            }
        }
        try write { db in try LocalDumpStore.deferIndexesIfEmpty(db) }
        let before = existing?.counts ?? BatchCounts()
        let chunkLines = min(Self.chunkLines, batchSize)
        let pool = OrderedWorkerPool<[DumpLineReader.Line], ParsedBatch>(
            workers: ProcessInfo.processInfo.activeProcessorCount, name: "dump-parse"
        ) {
            var memo = NormalizedValues()
            return { lines in Self.parse(lines, memo: &memo) }
        }
        defer { pool.cancel() }
        // Where each chunk in the pool ends: a batch's resume point is its last chunk's end.
        var chunkEnds: [(offset: Int64, lines: Int, fileBytes: Int64)] = []
        var readAll = false
        var batch = ParsedBatch(), batchLines = 0
        var writing: Task<Result<BatchCounts, DumpError>, Never>?
        var run = BatchCounts()
        while true {
            while !readAll, chunkEnds.count < Self.chunksAhead {
                let lines = try reader.nextLines(chunkLines)
                if lines.isEmpty {
                    readAll = true
                    pool.finish()
                } else {
                    pool.submit(lines)
                    chunkEnds.append((reader.textOffset, reader.lineNumber, reader.fileBytesRead))
                }
            }
            guard !chunkEnds.isEmpty else { break }
            guard let parsed = await pool.next() else { throw .unreadable(path: file, reason: "the parsing workers stopped") }
            let end = chunkEnds.removeFirst()
            for row in parsed.malformed { malformed(row.line, row.reason) }
            batch.add(parsed)
            batchLines += parsed.lines
            guard batchLines >= batchSize || (readAll && chunkEnds.isEmpty) else { continue }
            // The writer stores this batch while the pool parses the next one.
            if let previous = writing { run.add(try await previous.value.get()) }
            var totals = before
            totals.add(run)
            progress(Progress(file: file, fileBytes: identity.bytes, fileBytesRead: end.fileBytes, editions: totals.editions,
                              works: totals.works, authors: totals.authors, malformed: totals.malformed,
                              seconds: Date().timeIntervalSince(started)))
            let full = batch
            writing = Task { await self.storeOnWriter(full, identity: identity.key, offset: end.offset, lines: end.lines) }
            batch = ParsedBatch()
            batchLines = 0
        }
        if let previous = writing { run.add(try await previous.value.get()) }
        FreedMemory.handBack()
        try write { db in
            try LocalDumpStore.fillDeferredIndexes(db)
            try LocalDumpStore.createReadIndexes(db)
            try db.execute(sql: "UPDATE dumpFile SET finished = 1, finishedAt = ? WHERE identity = ?",
                           arguments: [Self.timestamp(), identity.key])
        }
        return FileReport(file: file, alreadyLoaded: false, resumedAfterLine: existing.map(\.lines), lines: reader.lineNumber,
                          editions: run.editions, works: run.works, authors: run.authors, retired: run.retired, skipped: run.skipped,
                          malformed: run.malformed, seconds: Date().timeIntervalSince(started))
    }

    // MARK: Parsing

    struct ParsedBatch: Sendable {
        var records: [DumpRecord] = []
        var malformed: [MalformedRow] = []
        var newestModified: String?
        /// Dump lines it was parsed from.
        var lines = 0

        mutating func add(_ other: ParsedBatch) {
            records += other.records
            malformed += other.malformed
            lines += other.lines
            if let newest = other.newestModified, newest > (newestModified ?? "") { newestModified = newest }
        }
    }

    /// Parses `lines` in order (one pool worker's chunk).
    static func parse(_ lines: [DumpLineReader.Line], memo: inout NormalizedValues) -> ParsedBatch {
        var batch = ParsedBatch(lines: lines.count)
        batch.records.reserveCapacity(lines.count)
        var newest: ArraySlice<UInt8>?
        for line in lines {
            let (result, modified) = DumpRowParser.parse(line, memo: &memo)
            switch result {
            case .success(let record): batch.records.append(record)
            case .failure(let row): batch.malformed.append(row)
            }
            if let modified, newest.map({ $0.lexicographicallyPrecedes(modified) }) ?? true { newest = modified }
        }
        batch.newestModified = newest.map { String(decoding: $0, as: UTF8.self) }
        return batch
    }

    // MARK: Storing

    struct BatchCounts: Sendable {
        var editions = 0, works = 0, authors = 0, retired = 0, skipped = 0, malformed = 0

        mutating func add(_ other: BatchCounts) {
            retired += other.retired
            editions += other.editions
            works += other.works
            authors += other.authors
            skipped += other.skipped
            malformed += other.malformed
        }
    }

    struct StoredFile {
        var textOffset: Int64
        var lines: Int
        var finished: Bool
        var counts: BatchCounts
    }

    private func stored(identity: String) throws(DumpError) -> StoredFile? {
        do {
            return try store.writer.read { db in
                try Row.fetchOne(db, sql: "SELECT * FROM dumpFile WHERE identity = ?", arguments: [identity]).map { row in
                    StoredFile(textOffset: row["textOffset"], lines: row["lines"], finished: row["finished"],
                               counts: BatchCounts(editions: row["editions"], works: row["works"], authors: row["authors"],
                                                   retired: row["retired"], skipped: row["skipped"], malformed: row["malformed"]))
                }
            }
        } catch {
            throw .database(path: store.path, reason: "\(error)")
        }
    }

    private func write(_ body: (Database) throws -> Void) throws(DumpError) {
        do {
            try store.writer.write(body)
        } catch {
            throw .database(path: store.path, reason: "\(error)")
        }
    }

    /// `store` on the writer thread (SQLite's work off the cooperative pool).
    private func storeOnWriter(_ batch: ParsedBatch, identity: String, offset: Int64, lines: Int) async -> Result<BatchCounts, DumpError> {
        await withCheckedContinuation { continuation in
            writeQueue.async { [self] in
                do throws(DumpError) {
                    continuation.resume(returning: .success(try store(batch, identity: identity, offset: offset, lines: lines)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
    }

    /// One batch and the file's resume point, in one transaction.
    private func store(_ batch: ParsedBatch, identity: String, offset: Int64, lines: Int) throws(DumpError) -> BatchCounts {
        var counts = BatchCounts(malformed: batch.malformed.count)
        try write { db in
            // Most loads have no delete or redirect stored: then no row needs looking up there.
            var anyRetired = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM retired)") ?? true
            let deferred = try LocalDumpStore.deferredIndexes(db)
            // Looked up once a batch: the statement cache hashes the whole SQL text.
            let editionInsert = try db.cachedStatement(sql: Self.editionInsert)
            for record in batch.records {
                switch record {
                case .edition(let edition):
                    if try Self.store(edition, editionInsert, anyRetired, deferred, db) { counts.editions += 1 } else { counts.skipped += 1 }
                case .work(let work): if try Self.store(work, anyRetired, db) { counts.works += 1 } else { counts.skipped += 1 }
                case .author(let author):
                    if try Self.store(author, anyRetired, deferred, db) { counts.authors += 1 } else { counts.skipped += 1 }
                case .retired(let retired):
                    anyRetired = true
                    if try Self.store(retired, deferred, db) { counts.retired += 1 } else { counts.skipped += 1 }
                case .skipped: counts.skipped += 1
                }
            }
            try db.execute(sql: """
                UPDATE dumpFile SET textOffset = ?, lines = ?, editions = editions + ?, works = works + ?,
                    authors = authors + ?, retired = retired + ?, skipped = skipped + ?, malformed = malformed + ?,
                    newestModified = max(coalesce(newestModified, ''), ?)
                WHERE identity = ?
                """, arguments: [offset, lines, counts.editions, counts.works, counts.authors, counts.retired, counts.skipped,
                                 counts.malformed, batch.newestModified ?? "", identity])
        }
        return counts
    }

    private static let editionInsert = "INSERT OR IGNORE INTO " + editionColumns, editionReplace = "REPLACE INTO " + editionColumns
    private static let editionColumns = """
        edition(id, revision, title, subtitle, authorIDs, byStatement, workID, publisher,
            publishDate, pages, coverID, language, format, description, subjects, isbns)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// True when stored (new, or newer than the stored revision). The ISBN and title indexes
    /// are kept up unless they are `deferred` (filled at the end of the load). `editionInsert`:
    /// the statement of `Self.editionInsert`.
    private static func store(_ edition: DumpRecord.Edition, _ editionInsert: Statement, _ anyRetired: Bool,
                              _ deferred: LocalDumpStore.DeferredIndexes, _ db: Database) throws -> Bool {
        // The edition's values, straight through SQLite's API (GRDB's boxing was 10% of a load's CPU).
        func execute(_ statement: Statement) throws {
            let insert = DirectBinding(statement)
            try insert.bind(edition.id, at: 1)
            try insert.bind(edition.revision, at: 2)
            try insert.bind(edition.title, at: 3)
            try insert.bind(edition.subtitle, at: 4)
            try insert.bind(edition.authorIDs, at: 5)
            try insert.bind(edition.byStatement, at: 6)
            try insert.bind(edition.workID, at: 7)
            try insert.bind(edition.publisher, at: 8)
            try insert.bind(edition.publishDate, at: 9)
            try insert.bind(edition.pages, at: 10)
            try insert.bind(edition.coverID, at: 11)
            try insert.bind(edition.language, at: 12)
            try insert.bind(edition.format, at: 13)
            try insert.bind(edition.description, at: 14)
            try insert.bind(edition.subjects, at: 15)
            try insert.bind(joined(edition.isbns), at: 16)
            try insert.execute()
        }
        guard try !(anyRetired && isRetired(.edition, edition.id, edition.revision, db)) else { return false }
        try execute(editionInsert)
        if db.changesCount == 0 {
            // Known already: only a newer revision replaces it (its old ISBNs and title words go).
            guard let old = try Row.fetchOne(db.cachedStatement(sql: "SELECT revision, title, subtitle, isbns FROM edition WHERE id = ?"),
                                             arguments: [edition.id]),
                  edition.revision > (old["revision"] as Int64) else { return false }
            if !deferred.editions { try removeFromIndexes(edition: edition.id, old, db) }
            try execute(db.cachedStatement(sql: editionReplace))
        }
        guard !deferred.editions else { return true }
        let isbnInsert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO editionISBN(isbn, editionID) VALUES (?, ?)")
        for isbn in edition.isbns { try isbnInsert.execute(arguments: [isbn, edition.id]) }
        try db.cachedStatement(sql: "INSERT INTO editionTitleSearch(rowid, title) VALUES (?, ?)")
            .execute(arguments: [edition.id, searchText(edition.title, edition.subtitle)])
        return true
    }

    /// A stored edition's ISBN rows and title words (`old`: its title, subtitle and isbns) go.
    private static func removeFromIndexes(edition id: Int64, _ old: Row, _ db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO editionTitleSearch(editionTitleSearch, rowid, title) VALUES ('delete', ?, ?)")
            .execute(arguments: [id, searchText(old["title"], old["subtitle"])])
        for isbn in (old["isbns"] as String).split(separator: " ").compactMap({ Int64($0) }) {
            try db.cachedStatement(sql: "DELETE FROM editionISBN WHERE isbn = ? AND editionID = ?").execute(arguments: [isbn, id])
        }
    }

    private static func store(_ work: DumpRecord.Work, _ anyRetired: Bool, _ db: Database) throws -> Bool {
        guard try !(anyRetired && isRetired(.work, work.id, work.revision, db)) else { return false }
        try db.cachedStatement(sql: """
            INSERT INTO work(id, revision, title, authorIDs, subjects, description, coverID, firstPublishDate)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET revision = excluded.revision, title = excluded.title,
                authorIDs = excluded.authorIDs, subjects = excluded.subjects, description = excluded.description,
                coverID = excluded.coverID, firstPublishDate = excluded.firstPublishDate
            WHERE excluded.revision > work.revision
            """).execute(arguments: [work.id, work.revision, work.title, joined(work.authorIDs),
                                     lines(work.subjects), work.description,
                                     work.coverID, work.firstPublishDate])
        return db.changesCount > 0
    }

    private static func store(_ author: DumpRecord.Author, _ anyRetired: Bool, _ deferred: LocalDumpStore.DeferredIndexes,
                              _ db: Database) throws -> Bool {
        guard try !(anyRetired && isRetired(.author, author.id, author.revision, db)) else { return false }
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO author(id, revision, name) VALUES (?, ?, ?)")
            .execute(arguments: [author.id, author.revision, author.name])
        if db.changesCount == 0 {
            guard let old = try Row.fetchOne(db.cachedStatement(sql: "SELECT revision, name FROM author WHERE id = ?"), arguments: [author.id]),
                  author.revision > (old["revision"] as Int64) else { return false }
            if !deferred.authors {
                try db.cachedStatement(sql: "INSERT INTO authorNameSearch(authorNameSearch, rowid, name) VALUES ('delete', ?, ?)")
                    .execute(arguments: [author.id, old["name"] as String])
            }
            try db.cachedStatement(sql: "UPDATE author SET revision = ?, name = ? WHERE id = ?")
                .execute(arguments: [author.revision, author.name, author.id])
        }
        guard !deferred.authors else { return true }
        try db.cachedStatement(sql: "INSERT INTO authorNameSearch(rowid, name) VALUES (?, ?)").execute(arguments: [author.id, author.name])
        return true
    }

    /// Whether a delete or redirect at least as new as `revision` retired the record; a newer
    /// record brings it back (the retirement goes).
    private static func isRetired(_ kind: DumpRowParser.Kind, _ id: Int64, _ revision: Int64, _ db: Database) throws -> Bool {
        guard let retiredAt = try Int64.fetchOne(db.cachedStatement(sql: "SELECT revision FROM retired WHERE kind = ? AND id = ?"),
                                                 arguments: [kind.rawValue, id]) else { return false }
        guard revision > retiredAt else { return true }
        try db.cachedStatement(sql: "DELETE FROM retired WHERE kind = ? AND id = ?").execute(arguments: [kind.rawValue, id])
        return false
    }

    /// A delete or redirect newer than the stored record: the record and its index entries go.
    private static func store(_ retired: DumpRecord.Retired, _ deferred: LocalDumpStore.DeferredIndexes, _ db: Database) throws -> Bool {
        let id = retired.id
        switch retired.kind {
        case .edition:
            if let old = try Row.fetchOne(db.cachedStatement(sql: "SELECT revision, title, subtitle, isbns FROM edition WHERE id = ?"), arguments: [id]) {
                guard retired.revision > (old["revision"] as Int64) else { return false }
                if !deferred.editions { try removeFromIndexes(edition: id, old, db) }
                try db.cachedStatement(sql: "DELETE FROM edition WHERE id = ?").execute(arguments: [id])
            }
        case .work:
            if let revision = try Int64.fetchOne(db.cachedStatement(sql: "SELECT revision FROM work WHERE id = ?"), arguments: [id]) {
                guard retired.revision > revision else { return false }
                try db.cachedStatement(sql: "DELETE FROM work WHERE id = ?").execute(arguments: [id])
            }
        case .author:
            if let old = try Row.fetchOne(db.cachedStatement(sql: "SELECT revision, name FROM author WHERE id = ?"), arguments: [id]) {
                guard retired.revision > (old["revision"] as Int64) else { return false }
                if !deferred.authors {
                    try db.cachedStatement(sql: "INSERT INTO authorNameSearch(authorNameSearch, rowid, name) VALUES ('delete', ?, ?)")
                        .execute(arguments: [id, old["name"] as String])
                }
                try db.cachedStatement(sql: "DELETE FROM author WHERE id = ?").execute(arguments: [id])
            }
        }
        if let known = try Int64.fetchOne(db.cachedStatement(sql: "SELECT revision FROM retired WHERE kind = ? AND id = ?"),
                                          arguments: [retired.kind.rawValue, id]), known >= retired.revision { return false }
        try db.cachedStatement(sql: "REPLACE INTO retired(kind, id, revision, target) VALUES (?, ?, ?, ?)")
            .execute(arguments: [retired.kind.rawValue, id, retired.revision, retired.target])
        return true
    }

    static func searchText(_ title: String, _ subtitle: String?) -> String {
        subtitle.map { title + " " + $0 } ?? title
    }

    /// Subjects as stored: one a line (nil: none).
    static func lines(_ texts: [String]) -> String? {
        texts.isEmpty ? nil : texts.joined(separator: "\n")
    }

    /// Ids as stored: space-separated (nil: none).
    static func joined(_ ids: [Int64]) -> String? {
        switch ids.count {
        case 0: nil
        case 1: String(ids[0])
        default: ids.map(String.init).joined(separator: " ")
        }
    }

    static func timestamp() -> String { ISO8601DateFormatter().string(from: Date()) }

    // MARK: File identity

    /// Size plus a hash of the first and last 64 KB: the same dump under another name or
    /// path is the same file; a new month's dump is another.
    static func identity(of file: String) throws(DumpError) -> (key: String, bytes: Int64) {
        guard let handle = FileHandle(forReadingAtPath: file) else {
            throw .unreadable(path: file, reason: DumpLineReader.errnoText())
        }
        defer { try? handle.close() }
        do {
            let size = Int64(try handle.seekToEnd())
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            func mix(_ data: Data?) {
                for byte in data ?? Data() { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            }
            try handle.seek(toOffset: 0)
            mix(try handle.read(upToCount: 65_536))
            try handle.seek(toOffset: UInt64(max(0, size - 65_536)))
            mix(try handle.read(upToCount: 65_536))
            return ("\(size)-\(String(hash, radix: 16))", size)
        } catch {
            throw .unreadable(path: file, reason: "\(error)")
        }
    }
}

/// Memory the streaming part of a load freed, handed back to the system before the
/// end-of-load index fill: glibc keeps freed blocks in each thread's arena, so without this
/// the fill's page cache and sorter come on top of what the parsers and the writer used.
enum FreedMemory {
    static func handBack() {
        #if os(Linux)
        malloc_trim(0)
        #endif
    }
}
