import BookCodes
import BookMetadata
import Catalogue
import Foundation

// The work cache and its ISBN index: what one station looked up is a cache hit for all.
extension PostgresCatalogue: WorkCache {
    public func work(forISBN isbn: ISBN13) throws(CatalogueError) -> Work? {
        try read { db in
            try db.record(Work.self, "WHERE r.\"workKey\" = (SELECT \"workKey\" FROM isbn_index WHERE isbn = $1)", [isbn.digits])
        }
    }

    public func work(key: String) throws(CatalogueError) -> Work? {
        try read { db in try db.record(Work.self, "WHERE \"workKey\" = $1", [key]) }
    }

    public func works(forISBNs isbns: [ISBN13]) throws(CatalogueError) -> [String: Work] {
        guard !isbns.isEmpty else { return [:] }
        return try read { db in
            // One statement, the ISBNs as one array parameter.
            let rows = try db.run("""
                SELECT i.isbn, to_jsonb(r) FROM isbn_index AS i JOIN works AS r ON r."workKey" = i."workKey"
                WHERE i.isbn = ANY($1::text[])
                """, [Self.textArray(isbns.map(\.digits))])
            let decoder = RecordCoding.decoder()
            var found: [String: Work] = [:]
            for row in rows {
                guard let isbn = row[0], let json = row[1] else { continue }
                found[isbn] = try decoder.decode(Work.self, from: Data(json.utf8))
            }
            return found
        }
    }

    public func editions(of work: Work) throws(CatalogueError) -> [ISBNIndexEntry] {
        let entries = try read { db in try db.records(ISBNIndexEntry.self, "WHERE \"workKey\" = $1", [work.workKey]) }
        return entries.sorted { lhs, rhs in
            (lhs.isbn == work.primaryIsbn ? 0 : 1, lhs.isbn) < (rhs.isbn == work.primaryIsbn ? 0 : 1, rhs.isbn)
        }
    }

    public func isbnIndexEntry(_ isbn: ISBN13) throws(CatalogueError) -> ISBNIndexEntry? {
        try read { db in try db.record(ISBNIndexEntry.self, "WHERE isbn = $1", [isbn.digits]) }
    }

    public func record(_ edition: EditionMetadata, for isbn: ISBN13, now: Date) throws(CatalogueError) -> Work {
        try write { db in try Self.record(edition, isbn: isbn.digits, now: now, db) }
    }

    public func recordSearchResult(_ edition: EditionMetadata, now: Date) throws(CatalogueError) -> Work {
        let isbn = [edition.isbn13, edition.isbn10].lazy.compactMap { $0 }.compactMap { try? ISBN13(validating: $0) }.first
        return try write { db in try Self.record(edition, isbn: isbn?.digits, now: now, db) }
    }

    public func recordAll(_ editions: [(EditionMetadata, ISBN13)], now: Date) throws(CatalogueError) {
        try write { db in
            for (edition, isbn) in editions { _ = try Self.record(edition, isbn: isbn.digits, now: now, db) }
        }
    }

    public func recordManual(isbn: ISBN13, title: String, authors: [String], publisher: String?, publishDate: String?, pageCount: Int?, now: Date) throws(CatalogueError) -> Work {
        try record(EditionMetadata(
            isbn13: isbn.digits, title: title, authors: authors, description: nil, coverImageUrl: nil,
            categories: [], pageCount: pageCount, publishDate: publishDate, publisher: publisher, format: nil,
            apiSource: "manual"), for: isbn, now: now)
    }

    /// The SQLite catalogue's rule (Catalogue+Cache `record`): the work the ISBN is indexed
    /// under, else the one its work key names, else a new one, improved by best-data merge.
    /// The work's row is locked while it merges, so two stations filing editions of one work
    /// at once both land in it.
    static func record(_ edition: EditionMetadata, isbn: String?, now: Date, _ db: PostgresConnection) throws -> Work {
        let edition = StoredFieldLimits.apply(to: edition)
        let workKey = WorkKey(edition: edition, isbn: isbn)
        // Serialises filing of one work key (a new work has no row to lock yet).
        _ = try db.run("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [workKey.rawValue])
        let indexed = try isbn.flatMap { try db.record(ISBNIndexEntry.self, "WHERE isbn = $1 FOR UPDATE", [$0]) }
        var existing: Work?
        if let indexed { existing = try db.record(Work.self, "WHERE \"workKey\" = $1 FOR UPDATE", [indexed.workKey]) }
        if existing == nil { existing = try db.record(Work.self, "WHERE \"workKey\" = $1 FOR UPDATE", [workKey.rawValue]) }
        let score = BestDataMerge.score(edition)
        let work: Work
        if let existing {
            let primaryScore = existing.primaryIsbn == isbn
                ? -1
                : try db.record(ISBNIndexEntry.self, "WHERE isbn = $1", [existing.primaryIsbn])?.metadataScore ?? -1
            work = BestDataMerge.merge(existing, with: edition, isbn: isbn, isBetterEdition: score > primaryScore, now: now)
        } else {
            work = BestDataMerge.newWork(from: edition, isbn: isbn, workKey: workKey, now: now)
        }
try db.save(work, extra: folded(work))
        if let isbn {
            try db.save(ISBNIndexEntry(
                isbn: isbn, workKey: work.workKey, format: BookFormat.stored(edition.format),
                publisher: BestDataMerge.cleaned(edition.publisher),
                publishDate: PublishDate(parsing: edition.publishDate)?.text,
                indexedAt: indexed?.indexedAt ?? now, apiSource: edition.apiSource, metadataScore: score))
        }
        return try db.record(Work.self, "WHERE \"workKey\" = $1", [work.workKey]) ?? work
    }

    public func searchWorks(title: String, author: String?, limit: Int) throws(CatalogueError) -> [Work] {
        let query = title.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !query.isEmpty, limit > 0 else { return [] }
        let withoutArticle = WorkKey.removingLeadingArticle(query.lowercased())
        let prefixes = [withoutArticle] + ["the ", "a ", "an "].map { $0 + withoutArticle }
        var parameters: [String?] = prefixes.map { Self.likePrefix($0) }
        var conditions = "(" + prefixes.indices.map { "lower(r.title) LIKE $\($0 + 1)" }.joined(separator: " OR ") + ")"
        if let author = author?.trimmingCharacters(in: .whitespaces), !author.isEmpty {
            parameters.append(author)
            conditions += " AND strpos(lower(r.authors::text), lower($\(parameters.count))) > 0"
        }
        parameters.append(String(limit))
        let sql = "WHERE \(conditions) ORDER BY r.\"editionCount\" DESC, lower(r.title) COLLATE \"C\" LIMIT $\(parameters.count)"
        return try read { db in try db.records(Work.self, sql, parameters) }
    }

    public func searchWorks(_ text: String, limit: Int) throws(CatalogueError) -> [Work] {
        guard let all = SearchFolding.prefixQuery(text, joiner: " & "), limit > 0 else { return [] }
        let any = SearchFolding.prefixQuery(text, joiner: " | ") ?? all
        let sql = """
            WHERE r.search @@ to_tsquery('simple', $1)
            ORDER BY ts_rank('{0.1, 0.0, 0.5, 1.0}', r.search, to_tsquery('simple', $1)) DESC, r."editionCount" DESC, r."workKey"
            LIMIT $2
            """
        return try read { db in
            let found = try db.records(Work.self, sql, [all, String(limit)])
            // When no work has every word (OCR noise), any word, still ranked.
            if !found.isEmpty || all == any { return found }
            return try db.records(Work.self, sql, [any, String(limit)])
        }
    }

    public func allWorkSummaries() throws(CatalogueError) -> [(workKey: String, title: String, authors: [String], isbn: String)] {
        try read { db in
            try db.run("SELECT \"workKey\", title, authors::text, \"primaryIsbn\" FROM works", []).compactMap { row in
                guard let key = row[0], let title = row[1] else { return nil }
                let authors = row[2].flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
                return (key, title, authors, row[3] ?? "")
            }
        }
    }

    /// The folded search text stored beside a work (title, authors, publisher).
    static func folded(_ work: Work) -> [(column: String, value: String?)] {
        [("foldedTitle", SearchFolding.fold(work.title)), ("foldedAuthors", SearchFolding.fold(work.authors.joined(separator: " "))),
         ("foldedPublisher", SearchFolding.fold(work.publisher ?? ""))]
    }

    /// A LIKE pattern matching text that starts with `prefix` (its `%`, `_` and `\` literal).
    static func likePrefix(_ prefix: String) -> String { likeLiteral(prefix) + "%" }

    /// `text` as a LIKE pattern that matches it literally (its `%`, `_` and `\` escaped).
    static func likeLiteral(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }

    /// A PostgreSQL array literal of texts, every element quoted.
    static func textArray(_ values: [String]) -> String {
        "{" + values.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
            .joined(separator: ",") + "}"
    }
}
