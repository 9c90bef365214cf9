import BookCodes
import Catalogue
import Foundation

extension PostgresCatalogue: PendingLookupQueue {
    public func enqueuePending(isbn: ISBN13, reason: String, source: String, nextRetryAt: Date, intent: PendingIntent, now: Date) throws(CatalogueError) -> PendingLookup {
        try write { db in
            let existing = try db.record(PendingLookup.self, "WHERE isbn = $1 FOR UPDATE", [isbn.digits])
            let row = PendingLookup.queued(existing, isbn: isbn, reason: reason, source: source, nextRetryAt: nextRetryAt, intent: intent, now: now)
            try db.save(row)
            return row
        }
    }

    public func pendingLookups(dueBefore: Date?) throws(CatalogueError) -> [PendingLookup] {
        try read { db in
            if let dueBefore {
                return try db.records(PendingLookup.self, "WHERE \"nextRetryAt\" <= $1 ORDER BY \"nextRetryAt\", isbn", [RecordCoding.text(dueBefore)])
            }
            return try db.records(PendingLookup.self, "ORDER BY \"nextRetryAt\", isbn")
        }
    }

    public func pendingLookup(isbn: ISBN13) throws(CatalogueError) -> PendingLookup? {
        try read { db in try db.record(PendingLookup.self, "WHERE isbn = $1", [isbn.digits]) }
    }

    public func removePending(isbn: ISBN13) throws(CatalogueError) {
        try write { db in _ = try db.run("DELETE FROM pending_lookups WHERE isbn = $1", [isbn.digits]) }
    }
}

extension PostgresCatalogue: ResumeStore {
    public func importBooks(_ books: [ImportedBook], fileHash: String, doneLines: [(Int, String)], station: String, now: Date) throws(CatalogueError) -> [AddOutcome] {
        let userId = userId
        return try write { db in
            let outcomes = try Self.file(books.map { Filing($0, userId: userId) }, userId: userId, station: station, now: now, db)
            var lines = doneLines
            for (book, outcome) in zip(books, outcomes) {
                switch outcome {
                case .added: lines.append((book.line, "added"))
                case .alreadyOwned: lines.append((book.line, "alreadyPresent"))
                case .libraryFull: break
                }
            }
            if !lines.isEmpty {
                _ = try db.run("""
                    INSERT INTO imported_rows (station, "fileHash", line, outcome)
                    SELECT $4, $1, line, outcome FROM unnest($2::int[], $3::text[]) AS done(line, outcome)
                    ON CONFLICT (station, "fileHash", line) DO UPDATE SET outcome = EXCLUDED.outcome
                    """, [fileHash, "{" + lines.map { String($0.0) }.joined(separator: ",") + "}", Self.textArray(lines.map(\.1)), station])
            }
            return outcomes
        }
    }

    // A station's resume rows, and those from before stations were recorded ('': they count for every station).
    public func importedLines(fileHash: String, station: String) throws(CatalogueError) -> Set<Int> {
        try read { db in
            Set(try db.run("SELECT line FROM imported_rows WHERE \"fileHash\" = $1 AND station IN ($2, '')", [fileHash, station])
                .compactMap { $0[0].flatMap { Int($0) } })
        }
    }

    public func isProcessed(path: String, size: Int64, modified: Date, station: String) throws(CatalogueError) -> Bool {
        guard let row = try processedFile(path: path, station: station) else { return false }
        return row.size == size && abs(row.modifiedTime - modified.timeIntervalSince1970) < 0.000_001
    }

    /// The station's row for `path`, else one from before stations were recorded.
    public func processedFile(path: String, station: String) throws(CatalogueError) -> ProcessedFile? {
        try read { db in
            try db.record(ProcessedFile.self, "WHERE path = $1 AND station IN ($2, '') ORDER BY station DESC", [path, station])
        }
    }

    public func markProcessed(path: String, size: Int64, modified: Date, outcome: String, station: String, now: Date) throws(CatalogueError) {
        try write { db in
            try db.save(ProcessedFile(station: station, path: path, size: size, modifiedTime: modified.timeIntervalSince1970,
                                      outcome: outcome, processedAt: now))
        }
    }
}

extension PostgresCatalogue: NotFoundStore {
    public func rememberNotFound(isbn: ISBN13, origin: String, now: Date) throws(CatalogueError) {
        try write { db in
            _ = try db.run("""
                INSERT INTO not_found_codes (isbn, origin, "firstSeenAt", "lastSeenAt", times) VALUES ($1, $2, $3, $3, 1)
                ON CONFLICT (isbn) DO UPDATE SET origin = EXCLUDED.origin, "lastSeenAt" = EXCLUDED."lastSeenAt",
                    times = not_found_codes.times + 1
                """, [isbn.digits, origin, RecordCoding.text(now)])
        }
    }

    public func forgetNotFound(isbn: ISBN13) throws(CatalogueError) {
        try write { db in _ = try db.run("DELETE FROM not_found_codes WHERE isbn = $1", [isbn.digits]) }
    }

    public func notFoundCodes() throws(CatalogueError) -> [NotFoundCode] {
        try read { db in try db.records(NotFoundCode.self, "ORDER BY \"lastSeenAt\" DESC, isbn") }
    }
}

extension PostgresCatalogue: StoreStatistics {
    public var latestSchemaVersion: String { PostgresSchema.migrations.last.map { "\($0.version)-\($0.name)" } ?? "" }

    /// The last migration applied, named as the SQLite catalogue names its own ("3-stations" style: version-name).
    public func schemaVersion() throws(CatalogueError) -> String {
        try read { db in
            (try db.run("SELECT version::text || '-' || name FROM rapidscan_migrations ORDER BY version DESC LIMIT 1", []).first?.first ?? nil) ?? ""
        }
    }

    public func stats() throws(CatalogueError) -> CacheStats {
        let userId = userId
        return try read { db in
            let json = try db.run("""
                SELECT jsonb_build_object(
                    'works', (SELECT count(*) FROM works),
                    'editions', (SELECT coalesce(sum("editionCount"), 0) FROM works),
                    'isbnIndexEntries', (SELECT count(*) FROM isbn_index),
                    'items', coalesce((SELECT "itemTotal" FROM users WHERE id = $1), 0),
                    'ownedItems', coalesce((SELECT "ownedTotal" FROM users WHERE id = $1), 0),
                    'pendingLookups', (SELECT count(*) FROM pending_lookups),
                    'processedFiles', (SELECT count(*) FROM processed_files),
                    'databaseBytes', pg_database_size(current_database()))
                """, [userId]).first?.first ?? nil
            return try RecordCoding.decoder().decode(CacheStats.self, from: Data((json ?? "").utf8))
        }
    }
}
