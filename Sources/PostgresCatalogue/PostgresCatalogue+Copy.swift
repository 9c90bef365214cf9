import Catalogue
import Foundation

// The PostgreSQL catalogue read and replaced whole (`database copy`). Rows are written in
// batches of a few hundred through `jsonb_populate_recordset` (one round trip each), inside
// one transaction: a failure part way leaves the database as it was.
extension PostgresCatalogue: WholeCatalogueStore {
    public func contents() throws(CatalogueError) -> CatalogueContents {
        try read { db in
            var contents = CatalogueContents()
            contents.users = try db.records(User.self, "ORDER BY \"createdAt\", id")
            contents.lists = try db.records(BookList.self, "ORDER BY \"createdAt\", id")
            contents.works = try db.records(Work.self, "ORDER BY \"workKey\"")
            contents.isbnIndex = try db.records(ISBNIndexEntry.self, "ORDER BY isbn")
            contents.items = try db.records(Item.self, "ORDER BY \"addedAt\", id")
            contents.pendingLookups = try db.records(PendingLookup.self, "ORDER BY isbn")
            contents.processedFiles = try db.records(ProcessedFile.self, "ORDER BY station, path")
            contents.notFoundCodes = try db.records(NotFoundCode.self, "ORDER BY isbn")
            contents.importedRows = try db.run("SELECT station, \"fileHash\", line, outcome FROM imported_rows ORDER BY station, \"fileHash\", line", [])
                .map { row in
                    guard let line = row[2].flatMap({ Int($0) }) else { throw UnreadableRow(table: "imported_rows", detail: "file \(row[1] ?? "?")") }
                    return ImportedRowRecord(station: row[0] ?? "", fileHash: row[1] ?? "", line: line, outcome: row[3] ?? "")
                }
            contents.spineReplies = try db.run("""
                SELECT photo_hash, reader, file, readings, input_tokens, output_tokens, truncated, created_at
                FROM spine_replies ORDER BY photo_hash, reader
                """, []).map { row in
                guard let readings = row[3].flatMap({ Data(base64Encoded: $0) }), let input = row[4].flatMap({ Int($0) }),
                      let output = row[5].flatMap({ Int($0) }), let created = row[7].flatMap({ Double($0) }) else {
                    throw UnreadableRow(table: "spine_replies", detail: "photo \(row[0] ?? "?")")
                }
                return SpineReplyRecord(photoHash: row[0] ?? "", reader: row[1] ?? "", file: row[2] ?? "", readings: readings, inputTokens: input,
                                        outputTokens: output, truncated: row[6] == "t", createdAt: Date(timeIntervalSince1970: created))
            }
            contents.spineRecords = try db.run("SELECT \(Self.readingColumns) FROM spine_readings ORDER BY id", []).map(Self.spineRecord)
            return contents
        }
    }

    public func holdsLibrary() throws(CatalogueError) -> Bool {
        try read { db in
            try db.count("""
                SELECT (SELECT count(*) FROM works) + (SELECT count(*) FROM isbn_index) + (SELECT count(*) FROM items)
                    + (SELECT count(*) FROM pending_lookups) + (SELECT count(*) FROM processed_files) + (SELECT count(*) FROM imported_rows)
                    + (SELECT count(*) FROM not_found_codes) + (SELECT count(*) FROM spine_replies) + (SELECT count(*) FROM spine_readings)
                    + (SELECT count(*) FROM lists WHERE NOT "isDefault")
                """) > 0
        }
    }

    public func replaceContents(with contents: CatalogueContents, progress: (CopyProgress) -> Void) throws(CatalogueError) {
        try write { db in
            // Other stations wait on the tables' lock until the copy commits or rolls back.
            _ = try db.run("""
                TRUNCATE items, lists, users, isbn_index, works, pending_lookups, processed_files, imported_rows, not_found_codes,
                    spine_readings, spine_replies RESTART IDENTITY
                """, [])
            try Self.insertAll("users", contents.users, db, progress: progress)
            try Self.insertAll("lists", contents.lists, db, progress: progress)
            try Self.insertAll("works", contents.works, db, progress: progress) { work in
                [("foldedTitle", SearchFolding.fold(work.title)), ("foldedAuthors", SearchFolding.fold(work.authors.joined(separator: " "))),
                 ("foldedPublisher", SearchFolding.fold(work.publisher ?? ""))]
            }
            try Self.insertAll("ISBN index", contents.isbnIndex, db, progress: progress)
            try Self.insertAll("items", contents.items, db, progress: progress) { item in
                [("foldedTitle", SearchFolding.fold(item.title)), ("foldedAuthors", SearchFolding.fold(item.authors.joined(separator: " "))),
                 ("foldedNotes", SearchFolding.fold(item.notes ?? ""))]
            }
            try Self.insertAll("pending lookups", contents.pendingLookups, db, progress: progress)
            try Self.insertAll("scanned files", contents.processedFiles, db, progress: progress)
            try Self.inBatches("import rows", contents.importedRows, progress: progress) { batch in
                _ = try db.run("""
                    INSERT INTO imported_rows (station, "fileHash", line, outcome)
                    SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[])
                    """, [Self.textArray(batch.map(\.station)), Self.textArray(batch.map(\.fileHash)),
                          "{" + batch.map { String($0.line) }.joined(separator: ",") + "}", Self.textArray(batch.map(\.outcome))])
            }
            try Self.insertAll("not-found codes", contents.notFoundCodes, db, progress: progress)
            try CopyReport.insert("spine replies", contents.spineReplies, progress: progress) { reply in
                _ = try db.run("""
                    INSERT INTO spine_replies (photo_hash, reader, file, readings, input_tokens, output_tokens, truncated, created_at)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                    """, [reply.photoHash, reply.reader, reply.file, reply.readings.base64EncodedString(), String(reply.inputTokens),
                          String(reply.outputTokens), RecordCoding.text(reply.truncated), RecordCoding.text(reply.createdAt)])
            }
            try CopyReport.insert("spine readings", contents.spineRecords, progress: progress) { record in
                let authors = String(decoding: try JSONEncoder().encode(record.authors), as: UTF8.self)
                _ = try db.run("""
                    INSERT INTO spine_readings (id, photo_hash, reader, reading_index, file, text, decision, distance, work_key, isbn13,
                        title, authors, status, reason, updated_at, box)
                    VALUES (coalesce($1::bigint, nextval(pg_get_serial_sequence('spine_readings', 'id'))), $2, $3, $4, $5, $6, $7, $8,
                        $9, $10, $11, $12::jsonb, $13, $14, $15, $16)
                    """, [record.id.map { String($0) }, record.photoHash, record.reader, String(record.index), record.file, record.text,
                          record.decision, String(record.distance), record.workKey, record.isbn13, record.title, authors,
                          record.status.rawValue, record.reason, RecordCoding.text(record.updatedAt), record.box?.storedText])
            }
            // The next reading saved takes an id after the copied ones.
            _ = try db.run("""
                SELECT setval(pg_get_serial_sequence('spine_readings', 'id'), coalesce(max(id), 0) + 1, false) FROM spine_readings
                """, [])
        }
    }

    static let copyBatch = 500

    private static func inBatches<Row>(_ table: String, _ rows: [Row], progress: (CopyProgress) -> Void, _ write: (ArraySlice<Row>) throws -> Void) throws {
        var done = 0
        while done < rows.count {
            let batch = rows[done..<min(rows.count, done + copyBatch)]
            try write(batch)
            done += batch.count
            progress(CopyProgress(table: table, done: done, total: rows.count))
        }
        if rows.isEmpty { progress(CopyProgress(table: table, done: 0, total: 0)) }
    }

    /// Inserts records as they are (every column, ids and dates kept), `extra` adding columns
    /// outside the value (folded search text), a batch per statement.
    private static func insertAll<R: PostgresRecord>(_ table: String, _ values: [R], _ db: PostgresConnection, progress: (CopyProgress) -> Void,
                                                     extra: (R) -> [(column: String, value: String)] = { _ in [] }) throws {
        let encoder = RecordCoding.encoder()
        let quoted = R.columns.map { "\"\($0)\"" }
        try inBatches(table, values, progress: progress) { batch in
            var extraColumns: [String] = []
            var objects: [String] = []
            for value in batch {
                var json = String(decoding: try encoder.encode(value), as: UTF8.self)
                let added = extra(value)
                extraColumns = added.map { "\"\($0.column)\"" }
                if !added.isEmpty, json.hasSuffix("}") {
                    let fields = try added.map { column, text in
                        "\"\(column)\":" + String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
                    }
                    json = String(json.dropLast()) + (json == "{}" ? "" : ",") + fields.joined(separator: ",") + "}"
                }
                objects.append(json)
            }
            let columns = (quoted + extraColumns).joined(separator: ", ")
            _ = try db.run("""
                INSERT INTO \(R.table) (\(columns))
                SELECT \(columns) FROM jsonb_populate_recordset(NULL::\(R.table), $1::jsonb)
                """, ["[" + objects.joined(separator: ",") + "]"])
        }
    }
}
