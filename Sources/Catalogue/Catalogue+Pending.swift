import BookCodes
import Foundation
import GRDB

// Lookups a source could not answer, kept (one row per ISBN) until a retry resolves them.
extension Catalogue {

    /// Queues `isbn`, or updates its row: one more attempt, the latest reason and next
    /// retry time, and the intents merged (a wish to own it is never dropped).
    @discardableResult
    public func enqueuePending(isbn: ISBN13, reason: String, source: String, nextRetryAt: Date, intent: PendingIntent = .lookupOnly, now: Date = Date()) throws(CatalogueError) -> PendingLookup {
        try write { db in
            let existing = try storedOne(PendingLookup.self, db, sql: "SELECT rowid, * FROM pendingLookups WHERE isbn = ?", arguments: [isbn.digits])
            let row = PendingLookup.queued(existing, isbn: isbn, reason: reason, source: source, nextRetryAt: nextRetryAt, intent: intent, now: now)
            try row.save(db)
            return row
        }
    }

    /// Rows due at `dueBefore` (all rows when nil), earliest retry first.
    public func pendingLookups(dueBefore: Date? = nil) throws(CatalogueError) -> [PendingLookup] {
        try read { db in
            if let dueBefore {
                return try stored(PendingLookup.self, db, sql: "SELECT rowid, * FROM pendingLookups WHERE nextRetryAt <= ? ORDER BY nextRetryAt, isbn",
                                  arguments: [dueBefore])
            }
            return try stored(PendingLookup.self, db, sql: "SELECT rowid, * FROM pendingLookups ORDER BY nextRetryAt, isbn")
        }
    }

    public func pendingLookup(isbn: ISBN13) throws(CatalogueError) -> PendingLookup? {
        try read { db in try storedOne(PendingLookup.self, db, sql: "SELECT rowid, * FROM pendingLookups WHERE isbn = ?", arguments: [isbn.digits]) }
    }

    public func removePending(isbn: ISBN13) throws(CatalogueError) {
        try write { db in _ = try PendingLookup.deleteOne(db, key: isbn.digits) }
    }
}

// Which files a scan has finished with, so an interrupted run resumes where it stopped.
extension Catalogue {

    /// True when `path` was processed with this exact size and modification time
    /// (a file edited since is scanned again).
    /// Per station: another station's file of the same path is not this one's.
    public func isProcessed(path: String, size: Int64, modified: Date, station: String = Station.hostName) throws(CatalogueError) -> Bool {
        guard let row = try processedFile(path: path, station: station) else { return false }
        return row.size == size && abs(row.modifiedTime - modified.timeIntervalSince1970) < 0.000_001
    }

    /// The station's row for `path`, else one from before stations were recorded.
    public func processedFile(path: String, station: String = Station.hostName) throws(CatalogueError) -> ProcessedFile? {
        try read { db in
            try storedOne(ProcessedFile.self, db, sql: "SELECT rowid, * FROM processedFiles WHERE path = ? AND station IN (?, ?) ORDER BY station DESC LIMIT 1",
                          arguments: [path, station, Station.unrecorded])
        }
    }

    public func markProcessed(path: String, size: Int64, modified: Date, outcome: String, station: String = Station.hostName, now: Date = Date()) throws(CatalogueError) {
        try write { db in
            try ProcessedFile(station: station, path: path, size: size, modifiedTime: modified.timeIntervalSince1970,
                              outcome: outcome, processedAt: now).save(db)
        }
    }
}
