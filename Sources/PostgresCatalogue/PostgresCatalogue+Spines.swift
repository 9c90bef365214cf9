import BookMetadata
import Catalogue
import Foundation

extension PostgresCatalogue: SpineStore {
    public func spineReply(photoHash: String, reader: String) throws(CatalogueError) -> SpineReplyRecord? {
        try read { db in
            guard let row = try db.run("""
                SELECT photo_hash, reader, file, readings, input_tokens, output_tokens, truncated, created_at
                FROM spine_replies WHERE photo_hash = $1 AND reader = $2
                """, [photoHash, reader]).first else { return nil }
            guard let readings = row[3].flatMap({ Data(base64Encoded: $0) }), let input = row[4].flatMap({ Int($0) }),
                  let output = row[5].flatMap({ Int($0) }), let created = row[7].flatMap({ Double($0) }) else {
                throw UnreadableRow(table: "spine_replies", detail: "photo \(photoHash)")
            }
            return SpineReplyRecord(photoHash: photoHash, reader: reader, file: row[2] ?? "", readings: readings, inputTokens: input,
                                    outputTokens: output, truncated: row[6] == "t", createdAt: Date(timeIntervalSince1970: created))
        }
    }

    public func saveSpineReply(_ reply: SpineReplyRecord) throws(CatalogueError) {
        try write { db in
            _ = try db.run("""
                INSERT INTO spine_replies (photo_hash, reader, file, readings, input_tokens, output_tokens, truncated, created_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                ON CONFLICT (photo_hash, reader) DO UPDATE SET file = EXCLUDED.file, readings = EXCLUDED.readings,
                    input_tokens = EXCLUDED.input_tokens, output_tokens = EXCLUDED.output_tokens, truncated = EXCLUDED.truncated,
                    created_at = EXCLUDED.created_at
                """, [reply.photoHash, reply.reader, reply.file, reply.readings.base64EncodedString(), String(reply.inputTokens),
                      String(reply.outputTokens), RecordCoding.text(reply.truncated), RecordCoding.text(reply.createdAt)])
        }
    }

    static let readingColumns = """
        id, photo_hash, reader, reading_index, file, text, decision, distance, work_key, isbn13, title, authors::text, status, reason, updated_at,
        box
        """

    static func spineRecord(_ row: [String?]) throws -> SpineRecord {
        guard let id = row[0].flatMap({ Int64($0) }), let index = row[3].flatMap({ Int($0) }), let distance = row[7].flatMap({ Double($0) }),
              let status = row[12].flatMap(SpineRecord.Status.init(rawValue:)), let updated = row[14].flatMap({ Double($0) }) else {
            throw UnreadableRow(table: "spine_readings", detail: "id \(row[0] ?? "?")")
        }
        let authors = row[11].flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
        return SpineRecord(id: id, photoHash: row[1] ?? "", reader: row[2] ?? "", index: index, file: row[4] ?? "", text: row[5] ?? "",
                           decision: row[6] ?? "", distance: distance, workKey: row[8], isbn13: row[9], title: row[10], authors: authors,
                           status: status, reason: row[13], updatedAt: Date(timeIntervalSince1970: updated),
                           // A damaged box is none: the review page shows the whole photo.
                           box: row[15].flatMap(SpineBox.init(storedText:)))
    }

    public func spineRecords(photoHash: String, reader: String) throws(CatalogueError) -> [Int: SpineRecord] {
        try read { db in
            let records = try db.run("SELECT \(Self.readingColumns) FROM spine_readings WHERE photo_hash = $1 AND reader = $2",
                                     [photoHash, reader]).map(Self.spineRecord)
            return Dictionary(records.map { ($0.index, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    public func saveSpineRecord(_ record: SpineRecord) throws(CatalogueError) -> SpineRecord {
        try write { db in
            let authors = String(decoding: try JSONEncoder().encode(record.authors), as: UTF8.self)
            let row = try db.run("""
                INSERT INTO spine_readings (photo_hash, reader, reading_index, file, text, decision, distance, work_key, isbn13, title,
                    authors, status, reason, updated_at, box)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, $13, $14, $15)
                ON CONFLICT (photo_hash, reader, reading_index) DO UPDATE SET file = EXCLUDED.file, text = EXCLUDED.text,
                    decision = EXCLUDED.decision, distance = EXCLUDED.distance, work_key = EXCLUDED.work_key, isbn13 = EXCLUDED.isbn13,
                    title = EXCLUDED.title, authors = EXCLUDED.authors, status = EXCLUDED.status, reason = EXCLUDED.reason,
                    updated_at = EXCLUDED.updated_at, box = EXCLUDED.box
                RETURNING \(Self.readingColumns)
                """, [record.photoHash, record.reader, String(record.index), record.file, record.text, record.decision,
                      String(record.distance), record.workKey, record.isbn13, record.title, authors, record.status.rawValue,
                      record.reason, RecordCoding.text(record.updatedAt), record.box?.storedText])
            return try row.first.map(Self.spineRecord) ?? record
        }
    }

    public func spineReviews() throws(CatalogueError) -> [SpineRecord] {
        try read { db in
            try db.run("SELECT \(Self.readingColumns) FROM spine_readings WHERE status = 'review' ORDER BY id", []).map(Self.spineRecord)
        }
    }

    public func setSpineStatus(id: Int64, _ status: SpineRecord.Status, now: Date) throws(CatalogueError) {
        try write { db in
            _ = try db.run("UPDATE spine_readings SET status = $1, updated_at = $2 WHERE id = $3",
                           [status.rawValue, RecordCoding.text(now), String(id)])
        }
    }
}
