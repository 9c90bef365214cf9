import Foundation
import GRDB

// The SQLite catalogue read and replaced whole (`database copy`).
extension Catalogue: WholeCatalogueStore {
    public func contents() throws(CatalogueError) -> CatalogueContents {
        try read { db in
            var contents = CatalogueContents()
            contents.users = try stored(User.self, db, sql: "SELECT rowid, * FROM users ORDER BY createdAt, id")
            contents.lists = try stored(BookList.self, db, sql: "SELECT rowid, * FROM lists ORDER BY createdAt, id")
            contents.works = try stored(Work.self, db, sql: "SELECT rowid, * FROM works ORDER BY workKey")
            contents.isbnIndex = try stored(ISBNIndexEntry.self, db, sql: "SELECT rowid, * FROM isbnIndex ORDER BY isbn")
            contents.items = try stored(Item.self, db, sql: "SELECT rowid, * FROM items ORDER BY addedAt, id")
            contents.pendingLookups = try stored(PendingLookup.self, db, sql: "SELECT rowid, * FROM pendingLookups ORDER BY isbn")
            contents.processedFiles = try stored(ProcessedFile.self, db, sql: "SELECT rowid, * FROM processedFiles ORDER BY station, path")
            contents.notFoundCodes = try stored(NotFoundCode.self, db, sql: "SELECT rowid, * FROM notFoundCodes ORDER BY isbn")
            contents.spineReplies = try stored(SpineReplyRecord.self, db, sql: "SELECT rowid, * FROM spineReplies ORDER BY photoHash, reader")
            contents.spineRecords = try stored(SpineRecord.self, db, sql: "SELECT rowid, * FROM spineReadings ORDER BY id")
            let rows = try Row.fetchCursor(db, sql: "SELECT rowid, * FROM importedRows ORDER BY station, fileHash, line")
            while let row = try rows.next() {
                var stored = StoredRow(row, table: "importedRows", keyColumn: "fileHash")
                let record = ImportedRowRecord(station: stored.optionalText("station") ?? "", fileHash: stored.text("fileHash"),
                                               line: stored.int("line"), outcome: stored.optionalText("outcome") ?? "")
                stored.problems.forEach(damage.record)
                if !stored.skipped { contents.importedRows.append(record) }
            }
            return contents
        }
    }

    public func holdsLibrary() throws(CatalogueError) -> Bool {
        try read { db in
            for table in ["works", "isbnIndex", "items", "pendingLookups", "processedFiles", "importedRows", "notFoundCodes",
                          "spineReplies", "spineReadings"] where try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0 > 0 {
                return true
            }
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM lists WHERE NOT isDefault") ?? 0 > 0
        }
    }

    public func replaceContents(with contents: CatalogueContents, progress: (CopyProgress) -> Void) throws(CatalogueError) {
        try write { db in
            // Rows that refer to others go first (the foreign keys hold at every statement).
            for table in ["items", "lists", "users", "isbnIndex", "works", "pendingLookups", "processedFiles", "importedRows",
                          "notFoundCodes", "spineReadings", "spineReplies"] {
                try db.execute(sql: "DELETE FROM \(table)")
            }
            try CopyReport.insert("users", contents.users, progress: progress) { try $0.insert(db) }
            try CopyReport.insert("lists", contents.lists, progress: progress) { try $0.insert(db) }
            try CopyReport.insert("works", contents.works, progress: progress) { try $0.insert(db) }
            try CopyReport.insert("ISBN index", contents.isbnIndex, progress: progress) { try $0.insert(db) }
            try CopyReport.insert("items", contents.items, progress: progress) { try $0.insert(db) }
            try CopyReport.insert("pending lookups", contents.pendingLookups, progress: progress) { try $0.insert(db) }
            try CopyReport.insert("scanned files", contents.processedFiles, progress: progress) { try $0.insert(db) }
            try CopyReport.insert("import rows", contents.importedRows, progress: progress) { row in
                try db.execute(sql: "INSERT INTO importedRows (station, fileHash, line, outcome) VALUES (?, ?, ?, ?)",
                               arguments: [row.station, row.fileHash, row.line, row.outcome])
            }
            try CopyReport.insert("not-found codes", contents.notFoundCodes, progress: progress) { try $0.insert(db) }
            try CopyReport.insert("spine replies", contents.spineReplies, progress: progress) { reply in
                try db.execute(sql: """
                    INSERT INTO spineReplies (photoHash, reader, file, readings, inputTokens, outputTokens, truncated, createdAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [reply.photoHash, reply.reader, reply.file, reply.readings, reply.inputTokens, reply.outputTokens,
                                     reply.truncated, reply.createdAt])
            }
            try CopyReport.insert("spine readings", contents.spineRecords, progress: progress) { record in
                let authors = String(decoding: try JSONEncoder().encode(record.authors), as: UTF8.self)
                try db.execute(sql: """
                    INSERT INTO spineReadings (id, photoHash, reader, readingIndex, file, text, decision, distance, workKey, isbn13,
                        title, authors, status, reason, updatedAt, box)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [record.id, record.photoHash, record.reader, record.index, record.file, record.text, record.decision,
                                     record.distance, record.workKey, record.isbn13, record.title, authors, record.status.rawValue,
                                     record.reason, record.updatedAt, record.box?.storedText])
            }
        }
    }
}

/// Writes a table's rows one by one, reporting progress every few hundred rows and at its end.
public enum CopyReport {
    static let every = 500

    public static func insert<Row>(_ table: String, _ rows: [Row], progress: (CopyProgress) -> Void, _ write: (Row) throws -> Void) throws {
        for (index, row) in rows.enumerated() {
            try write(row)
            if (index + 1) % every == 0 { progress(CopyProgress(table: table, done: index + 1, total: rows.count)) }
        }
        progress(CopyProgress(table: table, done: rows.count, total: rows.count))
    }
}
