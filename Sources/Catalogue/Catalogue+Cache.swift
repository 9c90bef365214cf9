import BookCodes
import BookMetadata
import Foundation
import GRDB

// The work/ISBN cache: isbnIndex → works, filled by `record` as sources answer.
extension Catalogue {

    /// The work an ISBN belongs to, or nil when the cache has never seen it. One indexed join.
    public func work(forISBN isbn: ISBN13) throws(CatalogueError) -> Work? {
        try read { db in
            try storedOne(Work.self, db, sql: """
                SELECT works.rowid, works.* FROM isbnIndex JOIN works ON works.workKey = isbnIndex.workKey
                WHERE isbnIndex.isbn = ?
                """, arguments: [isbn.digits], cached: true)
        }
    }

    public func work(key: String) throws(CatalogueError) -> Work? {
        try read { db in try self.work(key: key, db) }
    }

    /// The isbnIndex rows of a work's editions, primary edition first.
    public func editions(of work: Work) throws(CatalogueError) -> [ISBNIndexEntry] {
        let entries = try read { db in
            try stored(ISBNIndexEntry.self, db, sql: "SELECT rowid, * FROM isbnIndex WHERE workKey = ?", arguments: [work.workKey], cached: true)
        }
        return entries.sorted { lhs, rhs in
            (lhs.isbn == work.primaryIsbn ? 0 : 1, lhs.isbn) < (rhs.isbn == work.primaryIsbn ? 0 : 1, rhs.isbn)
        }
    }

    public func isbnIndexEntry(_ isbn: ISBN13) throws(CatalogueError) -> ISBNIndexEntry? {
        try read { db in try self.indexEntry(isbn.digits, db) }
    }

    /// Works whose title starts with `title`, ignoring case and a leading "The", "A" or
    /// "An" on either side ("great gatsby" finds "The Great Gatsby"); `author`, when
    /// given, must appear in the authors (case-insensitive). Most editions first.
    public func searchWorks(title: String, author: String? = nil, limit: Int = 20) throws(CatalogueError) -> [Work] {
        let query = title.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !query.isEmpty, limit > 0 else { return [] }
        let withoutArticle = WorkKey.removingLeadingArticle(query.lowercased())
        let prefixes = [withoutArticle] + ["the ", "a ", "an "].map { $0 + withoutArticle }
        // Range scans on the NOCASE title index; U+10FFFF sorts after any continuation.
        var conditions = prefixes.map { _ in "(title >= ? AND title < ?)" }.joined(separator: " OR ")
        var arguments: [any DatabaseValueConvertible] = prefixes.flatMap { [$0, $0 + "\u{10FFFF}"] }
        if let author = author?.trimmingCharacters(in: .whitespaces), !author.isEmpty {
            conditions = "(\(conditions)) AND instr(lower(authors), lower(?)) > 0"
            arguments.append(author)
        }
        arguments.append(limit)
        let sql = "SELECT rowid, * FROM works WHERE \(conditions) ORDER BY editionCount DESC, title LIMIT ?"
        return try read { db in try stored(Work.self, db, sql: sql, arguments: StatementArguments(arguments)) }
    }

    /// Files what a source said about `isbn` into the cache, in one transaction: the
    /// work it belongs to (the one its ISBN is already indexed under, else the one its
    /// workKey names, else a new one) improved by best-data merge, and its isbnIndex row.
    @discardableResult
    public func record(_ edition: EditionMetadata, for isbn: ISBN13, now: Date = Date()) throws(CatalogueError) -> Work {
        try write { db in try self.record(edition, isbn: isbn.digits, db: db, now: now) }
    }

    /// Files a search result: indexed under its ISBN when it has a valid one, otherwise
    /// as a work without editions (a later scan of one of its ISBNs completes it).
    @discardableResult
    public func recordSearchResult(_ edition: EditionMetadata, now: Date = Date()) throws(CatalogueError) -> Work {
        let isbn = [edition.isbn13, edition.isbn10].lazy.compactMap { $0 }
            .compactMap { try? ISBN13(validating: $0) }.first
        return try write { db in try self.record(edition, isbn: isbn?.digits, db: db, now: now) }
    }

    /// Fills the cache with many editions in one transaction (imports, benchmarks).
    public func recordAll(_ editions: [(EditionMetadata, ISBN13)], now: Date = Date()) throws(CatalogueError) {
        try write { db in
            for (edition, isbn) in editions { _ = try self.record(edition, isbn: isbn.digits, db: db, now: now) }
        }
    }

    func record(_ edition: EditionMetadata, isbn: String?, db: Database, now: Date) throws -> Work {
        let edition = StoredFieldLimits.apply(to: edition)
        let indexed = try isbn.flatMap { try self.indexEntry($0, db) }
        let existing: Work?
        if let indexed, let work = try self.work(key: indexed.workKey, db) {
            existing = work
        } else {
            existing = try self.work(key: WorkKey(edition: edition, isbn: isbn).rawValue, db)
        }
        let score = BestDataMerge.score(edition)
        let work: Work
        if let existing {
            let primaryScore = existing.primaryIsbn == isbn
                ? -1
                : try self.indexEntry(existing.primaryIsbn, db)?.metadataScore ?? -1
            work = BestDataMerge.merge(existing, with: edition, isbn: isbn, isBetterEdition: score > primaryScore, now: now)
        } else {
            work = BestDataMerge.newWork(from: edition, isbn: isbn, workKey: WorkKey(edition: edition, isbn: isbn), now: now)
        }
        // A row found damaged (and so not read) is replaced by what the source says now.
        if existing == nil { try Self.insertOrReplaceDamaged(work, db) } else { try work.update(db) }
        if let isbn {
            let entry = ISBNIndexEntry(
                isbn: isbn, workKey: work.workKey, format: BookFormat.stored(edition.format),
                publisher: BestDataMerge.cleaned(edition.publisher),
                publishDate: PublishDate(parsing: edition.publishDate)?.text,
                indexedAt: indexed?.indexedAt ?? now, apiSource: edition.apiSource, metadataScore: score)
            if indexed == nil { try Self.insertOrReplaceDamaged(entry, db) } else { try entry.update(db) }
        }
        // As stored (dates at the database's millisecond precision), so it equals later reads.
        return try self.work(key: work.workKey, db) ?? work
    }

    /// Inserts a cache row; one already under its key that could not be read (damaged) is
    /// overwritten in place (an update, never a delete that would cascade to its editions).
    static func insertOrReplaceDamaged(_ record: some PersistableRecord, _ db: Database) throws {
        do { try record.insert(db) } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
            try record.update(db)
        }
    }

    // Cached statements: filling or reading the cache runs these thousands of times.
    func work(key: String, _ db: Database) throws -> Work? {
        try storedOne(Work.self, db, sql: "SELECT rowid, * FROM works WHERE workKey = ?", arguments: [key], cached: true)
    }

    func indexEntry(_ isbn: String, _ db: Database) throws -> ISBNIndexEntry? {
        try storedOne(ISBNIndexEntry.self, db, sql: "SELECT rowid, * FROM isbnIndex WHERE isbn = ?", arguments: [isbn], cached: true)
    }
}

/// Longest text kept per field: a source's reply is not trusted to be sane (a 50 MB
/// description would otherwise land in `works` and every `items` row copying it).
public enum StoredFieldLimits {
    public static let title = 1_000
    public static let description = 20_000
    public static let shortText = 2_000
    public static let listCount = 50

    public static func apply(to edition: EditionMetadata) -> EditionMetadata {
        var edition = edition
        edition.title = cap(edition.title, title)
        edition.subtitle = edition.subtitle.map { cap($0, title) }
        edition.authors = edition.authors.prefix(listCount).map { cap($0, shortText) }
        edition.categories = edition.categories.prefix(listCount).map { cap($0, shortText) }
        edition.description = edition.description.map { cap($0, description) }
        edition.coverImageUrl = edition.coverImageUrl.flatMap { $0.utf8.count > shortText ? nil : $0 }
        edition.publishDate = edition.publishDate.map { cap($0, shortText) }
        edition.publisher = edition.publisher.map { cap($0, shortText) }
        edition.language = edition.language.map { cap($0, shortText) }
        edition.format = edition.format.map { cap($0, shortText) }
        return edition
    }

    /// At most `limit` characters, cut at a character boundary with an ellipsis.
    static func cap(_ text: String, _ limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }
}

extension Catalogue {
    /// The cached works of many ISBNs in one read (a batch import asks for a chunk at once),
    /// keyed by ISBN-13 digits; ISBNs the cache has never seen are absent.
    public func works(forISBNs isbns: [ISBN13]) throws(CatalogueError) -> [String: Work] {
        guard !isbns.isEmpty else { return [:] }
        return try read { db in
            var found: [String: Work] = [:]
            // SQLite's default limit on bound variables is 32766; a chunk stays far below in slices.
            for start in stride(from: 0, to: isbns.count, by: 500) {
                let slice = isbns[start..<min(start + 500, isbns.count)]
                let rows = try Row.fetchCursor(db, sql: """
                    SELECT isbnIndex.isbn AS requestedIsbn, works.rowid, works.* FROM isbnIndex JOIN works ON works.workKey = isbnIndex.workKey
                    WHERE isbnIndex.isbn IN (\(databaseQuestionMarks(count: slice.count)))
                    """, arguments: StatementArguments(slice.map(\.digits)))
                while let row = try rows.next() {
                    guard let isbn = try row.decode(String?.self, forColumn: "requestedIsbn"), let work = decoded(Work.self, row) else { continue }
                    found[isbn] = work
                }
            }
            return found
        }
    }
}
