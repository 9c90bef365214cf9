import BookCodes
import BookMetadata
import Foundation
import GRDB
import MetadataSources

/// Open Library's records from its dumps, loaded by `rapidscan sources load` into a file on
/// this machine: asked before any network source and with `--offline`. ISBN lookups read
/// two indexed rows (edition, work) and the authors' names; title search uses the
/// full-text index of edition titles, authors' names checked after.
public struct LocalDumpSource: MetadataSource {
    /// The name in `apiSource`, the breaker, `[sources] order` and `[sources.localDump]`.
    public static let sourceName = "localDump"
    public let name = Self.sourceName
    public let isLocal = true
    /// Open Library's own records: what its search would answer, this answers (`SpineSession` asks no second time afar).
    public var catalogue: String { OpenLibrarySource.sourceName }
    public let path: String
    /// Cover images are Open Library's (`covers.openlibrary.org/b/id/N-L.jpg`).
    public let coversURL: URL
    private let store: LocalDumpStore

    /// Opens the file at `path` read-only; fails when it is missing or not a local source.
    public init(path: String, coversURL: URL = OpenLibrarySource.Settings.defaultCoversURL) throws(DumpError) {
        guard FileManager.default.fileExists(atPath: path) else { throw .database(path: path, reason: "no such file; load a dump with `rapidscan sources load FILE`") }
        self.path = path
        self.coversURL = coversURL
        store = try LocalDumpStore(path: path, readOnly: true)
    }

    public func edition(isbn: ISBN13) async throws(SourceError) -> EditionMetadata? {
        guard let key = Int64(isbn.digits) else { return nil }
        return try read { db in
            let row = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT edition.* FROM editionISBN JOIN edition ON edition.id = editionISBN.editionID
                WHERE editionISBN.isbn = ? ORDER BY edition.revision DESC, edition.id LIMIT 1
                """), arguments: [key])
            return try row.map { try metadata($0, isbn: isbn, db) }
        }
    }

    /// Editions whose title (and subtitle) has every word of `title`, by relevance, one per
    /// work; with `author`, only those with an author sharing a word of it. A reading that is
    /// only a name (no title, or a "title" no edition has) is tried as an author: that
    /// author's editions (`search(author:limit:)`). A spine reading that finds neither (a junk
    /// word, a word cut short or run into the next) gets `closestTitles`: the editions sharing
    /// most of its words, as the services rank them.
    public func search(title: String, author: String?, limit: Int) async throws(SourceError) -> [EditionMetadata] {
        let titleQuery = Self.matchQuery(title)
        guard limit > 0 else { return [] }
        guard !titleQuery.isEmpty else { return try await search(author: author ?? "", limit: limit) }
        let wantedNames = Self.words(author ?? "").filter { $0.count >= 3 }
        let found: [EditionMetadata] = try read { db in
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT edition.* FROM editionTitleSearch JOIN edition ON edition.id = editionTitleSearch.rowid
                WHERE editionTitleSearch MATCH ? ORDER BY editionTitleSearch.rank LIMIT ?
                """), arguments: [titleQuery, max(limit * 5, 50)])
            return try onePerWork(rows, limit: limit, db) { edition in
                guard !wantedNames.isEmpty else { return true }
                let names = Set(edition.authors.flatMap { Self.words($0) })
                return wantedNames.contains(where: names.contains)
            }
        }
        guard found.isEmpty else { return found }
        if author == nil {
            let byName = try await search(author: title, limit: limit)
            guard byName.isEmpty else { return byName }
        }
        let closest = try closestTitles(title, wantedNames: wantedNames, limit: limit)
        guard closest.isEmpty else { return closest }
        if author == nil {
            let named = try await namedAuthorsTitles(title, limit: limit)
            guard named.isEmpty else { return named }
        }
        // Last, a word read a letter off ("BLOOOSWORN"): the titles holding a word one edit from
        // it. After the author's titles: "SHARPE The Girlg" finds Sharpe's *The Girls I've Been*,
        // where "girls" one letter off "girlg" would bring titles that merely share it.
        return try closestTitles(title, wantedNames: wantedNames, limit: limit, tolerant: true)
    }

    /// A spine reading that holds an author's surname and a word or two of the title, too few
    /// for `closestTitles` ("HARLOW Minigr Rider"): the editions of the authors one of its words
    /// names whose title shares another of its words (the first three letters at least: OCR
    /// misreads a word's end). What is only a name finds nothing here: a name alone picks no book.
    func namedAuthorsTitles(_ reading: String, limit: Int) async throws(SourceError) -> [EditionMetadata] {
        let readWords = Array(Set(Self.words(reading).filter { $0.count >= 3 && !Self.stopWords.contains($0) && !$0.contains(where: \.isHanOrKana) }))
        guard readWords.count >= 2 else { return [] }
        var found: [EditionMetadata] = []
        var works = Set<String>()
        for name in readWords.filter({ $0.count >= 4 }).sorted() {
            let others = readWords.filter { $0 != name }
            for edition in try await search(author: name, limit: Self.booksPerNamedAuthor) {
                // The name must be the author's, not a word of the title shared by chance.
                guard edition.authors.contains(where: { Self.words($0).contains(name) }) else { continue }
                let titleWords = Self.words(edition.title).filter { !Self.stopWords.contains($0) }
                guard others.contains(where: { word in titleWords.contains { Self.sharesStart(word, $0) } }) else { continue }
                guard works.insert(edition.title.lowercased() + "|" + edition.authors.joined(separator: ",")).inserted else { continue }
                found.append(edition)
                if found.count == limit { return found }
            }
        }
        return found
    }

    /// An author's editions looked through for a title word (`namedAuthorsTitles`).
    static let booksPerNamedAuthor = 60

    /// `word` read without its first letter or two, lost at a spine's edge ("agon Rider" of Dragon Rider, "IONBOY"):
    /// four letters read at least.
    static func lostItsStart(_ read: String, _ word: String) -> Bool {
        read.count >= 4 && word.count - read.count <= 2 && word.count > read.count && word.hasSuffix(read)
    }

    /// The same word, or one read with its end wrong or cut: the first three letters (and all of the shorter word's, to four);
    /// or read without its start (`lostItsStart`).
    static func sharesStart(_ read: String, _ word: String) -> Bool {
        if read == word || lostItsStart(read, word) { return true }
        let common = zip(read, word).prefix { $0 == $1 }.count
        return common >= 3 && common >= min(4, min(read.count, word.count))
    }

    /// Editions sharing words with a reading that not every word of finds: any of its words
    /// (a word of four letters or more also as the start of a longer one: OCR cuts words short)
    /// fetched by bm25, then ranked by the share of the reading's words the title has and of
    /// the title's words the reading has (bm25's order among equals); with `wantedNames`, only
    /// editions by an author sharing one of them (the caller asks again without). A title must share
    /// two of the reading's words (not counting "the", "of"…), or be one word of four letters or
    /// more that the reading has: one shared word is no match. The spine matcher's guards judge what comes back.
    /// Chinese and Japanese, written without spaces, are one index term a run: a run is looked
    /// up by each of its two-character pieces as the start of a term (a title read with junk
    /// around it or cut short), and compared character by character.
    /// `tolerant` (asked when nothing shares the words as read): the reading's longest words of
    /// five letters or more also find, and stand for, title words one letter off (`oneEditApart`:
    /// "bloooswom" for Bloodsworn, "nwind" for Unwind), looked up as every such word. The matcher sees the letters
    /// read, not the title's: a word off by a letter is never an exact title read.
    func closestTitles(_ reading: String, wantedNames: [String], limit: Int, tolerant: Bool = false) throws(SourceError) -> [EditionMetadata] {
        let readWords = Self.words(reading)
        let readingWords = Array(Set(Self.comparedWords(readWords).filter { ($0.count >= 2 || Self.isIdeographic($0)) && !Self.stopWords.contains($0) })).sorted()
        guard !readingWords.isEmpty else { return [] }
        var termList = readWords.filter { $0.count >= 2 && !Self.stopWords.contains($0) && !$0.contains(where: \.isHanOrKana) }
            .map { $0.count >= 4 ? "\"\($0)\"*" : "\"\($0)\"" }
        for run in readWords.flatMap(Self.ideographicRuns) where run.count >= 2 {
            for start in 0..<(run.count - 1) { termList.append("\"\(String(run[start...(start + 1)]))\"*") }
        }
        let offWords = tolerant ? Self.tolerantWords(readWords) : []
        guard !tolerant || !offWords.isEmpty else { return [] }
        guard !termList.isEmpty else { return [] }
        let nearTerms = offWords.flatMap(Self.oneEditAway).map { "\"\($0)\"" }
        let terms = (Array(Set(termList)).sorted().prefix(60) + Set(nearTerms).sorted()).joined(separator: " OR ")
        return try read { db in
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT edition.* FROM editionTitleSearch JOIN edition ON edition.id = editionTitleSearch.rowid
                WHERE editionTitleSearch MATCH ? ORDER BY editionTitleSearch.rank LIMIT 200
                """), arguments: [terms])
            var scored: [(score: Double, order: Int, row: Row)] = []
            for (order, row) in rows.enumerated() {
                let titleWords = Self.comparedWords(Self.words(DumpLoader.searchText(row["title"], row["subtitle"]))).filter { !Self.stopWords.contains($0) }
                guard !titleWords.isEmpty else { continue }
                let stands = { (read: String, word: String) in
                    Self.readWord(read, stands: word) || (offWords.contains(read) && Self.oneEditApart(read, word))
                }
                let shared = readingWords.filter { word in titleWords.contains { stands(word, $0) } }
                // A spine shows the main title: a subtitle or a series in brackets ("The Host (The
                // Host, #1)", "Prodigy (Legend, #2)") need not be read for the title to be whole.
                let mainWords = Self.comparedWords(Self.words(Self.mainTitle(row["title"]))).filter { !Self.stopWords.contains($0) }
                let compared = mainWords.isEmpty ? titleWords : mainWords
                let covered = compared.filter { word in readingWords.contains { stands($0, word) } }
                let wholeTitle = covered.count == compared.count
                guard shared.count >= 2 || (wholeTitle && compared.count == 1 && compared[0].count >= 4) else { continue }
                var score = Double(shared.count) / Double(readingWords.count) + Double(covered.count) / Double(compared.count)
                if !wantedNames.isEmpty {
                    // As in the all-words search, an author named must be the edition's.
                    let names = Set(try authorWords(row, db))
                    guard wantedNames.contains(where: names.contains) else { continue }
                }
                scored.append((score, order, row))
            }
            scored.sort { ($0.score, -$0.order) > ($1.score, -$1.order) }
            return try onePerWork(scored.map(\.row), limit: limit, db) { _ in true }
        }
    }

    /// Whether a word read stands for a title's word (`closestTitles`): the same, either cut short
    /// (four letters kept), or read without its start (`lostItsStart`).
    static func readWord(_ read: String, stands word: String) -> Bool {
        read == word || (read.count >= 4 && word.hasPrefix(read)) || (word.count >= 4 && read.hasPrefix(word)) || lostItsStart(read, word)
    }

    /// The words a tolerant search looks up one letter off: the two longest of five letters or more
    /// (letters only; not Chinese or Japanese).
    /// Five: `nwind` (*Unwind* read without its first letter, minhan_img1539) is found; four-letter words are left as read.
    static let tolerantLetters = 5

    static func tolerantWords(_ readWords: [String]) -> [String] {
        let long = Set(readWords.filter { $0.count >= Self.tolerantLetters && $0.allSatisfy { $0.isASCII && $0.isLetter } })
        return long.sorted { ($0.count, $1) > ($1.count, $0) }.prefix(2).map { $0 }
    }

    /// Every word one letter off `word` (a letter changed, left out, added, or two swapped), a to z.
    static func oneEditAway(_ word: String) -> [String] {
        let letters = Array(word), alphabet = Array("abcdefghijklmnopqrstuvwxyz")
        var out: [String] = []
        for index in 0...letters.count {
            for letter in alphabet { out.append(String(letters[..<index] + [letter] + letters[index...])) }
            guard index < letters.count else { break }
            out.append(String(letters[..<index] + letters[(index + 1)...]))
            for letter in alphabet where letter != letters[index] {
                var changed = letters
                changed[index] = letter
                out.append(String(changed))
            }
            if index + 1 < letters.count, letters[index] != letters[index + 1] {
                var swapped = letters
                swapped.swapAt(index, index + 1)
                out.append(String(swapped))
            }
        }
        return out
    }

    /// Whether `read` and `word` differ by one letter changed, left out, added, or two swapped.
    static func oneEditApart(_ read: String, _ word: String) -> Bool {
        let a = Array(read), b = Array(word)
        guard a != b, abs(a.count - b.count) <= 1 else { return false }
        let start = zip(a, b).prefix { $0 == $1 }.count
        let end = zip(a.reversed(), b.reversed()).prefix { $0 == $1 }.count
        if a.count != b.count { return start + end >= min(a.count, b.count) }
        if start + end >= a.count - 1 { return true }
        return start + end == a.count - 2 && a[start] == b[start + 1] && a[start + 1] == b[start]
    }

    /// A title without its subtitle after a colon or its series in brackets ("Prodigy (Legend, #2)" -> "Prodigy").
    static func mainTitle(_ title: String) -> String {
        let main = title.prefix { $0 != ":" && $0 != "(" }
        return main.trimmingCharacters(in: .whitespaces).isEmpty ? title : String(main)
    }

    static func isIdeographic(_ word: String) -> Bool {
        word.count == 1 && word.first!.isHanOrKana
    }

    /// The runs of Han or kana characters in a word, each as its characters.
    static func ideographicRuns(_ word: String) -> [[Character]] {
        word.split(whereSeparator: { !$0.isHanOrKana }).map(Array.init)
    }

    /// Words as compared: a Han or kana character is a word of its own ("hadoop生态系统" -> hadoop 生 态 系 统).
    static func comparedWords(_ words: [String]) -> [String] {
        words.flatMap { word -> [String] in
            guard word.contains(where: \.isHanOrKana) else { return [word] }
            var out: [String] = [], latin = ""
            for character in word {
                if character.isHanOrKana {
                    if !latin.isEmpty { out.append(latin); latin = "" }
                    out.append(String(character))
                } else {
                    latin.append(character)
                }
            }
            return latin.isEmpty ? out : out + [latin]
        }
    }

    /// Words too common to say two titles are the same book ("the", "of"; a few languages').
    static let stopWords: Set<String> = ["the", "a", "an", "of", "and", "in", "on", "to", "for", "with", "at", "by", "from",
                                         "de", "la", "le", "les", "el", "los", "et", "und", "der", "die", "das", "y", "i", "il",
                                         "的", "与", "和", "及", "之"]

    /// The words of an edition's authors' names (on the edition; its work's when it names none).
    private func authorWords(_ row: Row, _ db: Database) throws -> [String] {
        var ids = Self.ids(row["authorIDs"])
        if ids.isEmpty, let workID = row["workID"] as Int64? {
            ids = Self.ids(try String.fetchOne(db.cachedStatement(sql: "SELECT authorIDs FROM work WHERE id = ?"),
                                               arguments: [try resolved(.work, workID, db)]))
        }
        var words: [String] = []
        for id in ids.prefix(5) {
            if let name = try String.fetchOne(db.cachedStatement(sql: "SELECT name FROM author WHERE id = ?"),
                                              arguments: [try resolved(.author, id, db)]) {
                words += Self.words(name)
            }
        }
        return words
    }

    /// The editions of the authors named `name` (every word of it in the author's name): those
    /// whose first-named author they are, on the edition or on its work; one per work, at most
    /// `limit`. Authors redirected to them count as them. Fast once a load has finished (its
    /// indexes are built at the end of a load).
    public func search(author name: String, limit: Int) async throws(SourceError) -> [EditionMetadata] {
        let nameQuery = Self.matchQuery(name)
        guard !nameQuery.isEmpty, limit > 0 else { return [] }
        return try read { db in
            var authorIDs = try Int64.fetchAll(db.cachedStatement(sql: """
                SELECT rowid FROM authorNameSearch WHERE authorNameSearch MATCH ? ORDER BY rank LIMIT 10
                """), arguments: [nameQuery])
            if store.keepsRetired, !authorIDs.isEmpty {
                authorIDs += try Int64.fetchAll(db, sql: "SELECT id FROM retired WHERE kind = 2 AND target IN (\(authorIDs.map { _ in "?" }.joined(separator: ",")))",
                                                arguments: StatementArguments(authorIDs))
            }
            var rows: [Row] = []
            for id in authorIDs {
                // First-named: the id alone, or the id and a space then the others (an index range).
                let arguments: StatementArguments = ["\(id)", "\(id) ", "\(id)!", limit * 3]
                rows += try Row.fetchAll(db.cachedStatement(sql: """
                    SELECT * FROM edition WHERE authorIDs = ?1 OR (authorIDs >= ?2 AND authorIDs < ?3) ORDER BY id LIMIT ?4
                    """), arguments: arguments)
                // Editions that name no author take their work's (works redirected to it count as it).
                var workIDs = try Int64.fetchAll(db.cachedStatement(sql: """
                    SELECT id FROM work WHERE authorIDs = ?1 OR (authorIDs >= ?2 AND authorIDs < ?3) ORDER BY id LIMIT ?4
                    """), arguments: arguments)
                if store.keepsRetired, !workIDs.isEmpty {
                    workIDs += try Int64.fetchAll(db, sql: "SELECT id FROM retired WHERE kind = 1 AND target IN (\(workIDs.map { _ in "?" }.joined(separator: ",")))",
                                                  arguments: StatementArguments(workIDs))
                }
                for workID in workIDs {
                    rows += try Row.fetchAll(db.cachedStatement(sql: """
                        SELECT * FROM edition WHERE workID = ? AND authorIDs IS NULL ORDER BY id LIMIT 3
                        """), arguments: [workID])
                }
            }
            return try onePerWork(rows, limit: limit, db) { _ in true }
        }
    }

    /// The first of `rows` per work (or per title and authors when the work is unknown) that `keep` accepts.
    private func onePerWork(_ rows: [Row], limit: Int, _ db: Database, keep: (EditionMetadata) -> Bool) throws -> [EditionMetadata] {
        var found: [EditionMetadata] = []
        var works = Set<String>()
        for row in rows {
            let isbns = (row["isbns"] as String? ?? "").split(separator: " ").compactMap { try? ISBN13(validating: String($0)) }
            guard let isbn = isbns.first else { continue }
            let edition = try metadata(row, isbn: isbn, db)
            guard keep(edition) else { continue }
            let workKey = (row["workID"] as Int64?).map { "w\($0)" } ?? edition.title.lowercased() + "|" + edition.authors.joined(separator: ",")
            guard works.insert(workKey).inserted else { continue }
            found.append(edition)
            if found.count == limit { break }
        }
        return found
    }

    /// Counts and the files loaded, for `rapidscan sources`.
    public func state() throws(DumpError) -> LocalSourceState {
        do {
            return try store.writer.read { db in
                let files = try Row.fetchAll(db, sql: "SELECT * FROM dumpFile ORDER BY startedAt").map { row in
                    LoadedDumpFile(name: row["name"], bytes: row["bytes"], lines: row["lines"], finished: row["finished"],
                                   editions: row["editions"], works: row["works"], authors: row["authors"],
                                   skipped: row["skipped"], malformed: row["malformed"], newestModified: row["newestModified"])
                }
                let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? nil
                return LocalSourceState(
                    path: path,
                    editions: try Int.fetchOne(db, sql: "SELECT count(*) FROM edition") ?? 0,
                    works: try Int.fetchOne(db, sql: "SELECT count(*) FROM work") ?? 0,
                    authors: try Int.fetchOne(db, sql: "SELECT count(*) FROM author") ?? 0,
                    bytes: size ?? 0, files: files)
            }
        } catch {
            throw .database(path: path, reason: "\(error)")
        }
    }

    // MARK: Reading

    private func read<T>(_ body: (Database) throws -> T) throws(SourceError) -> T {
        do {
            return try store.writer.read(body)
        } catch {
            // Not a network failure: the breaker treats it as a source that cannot answer.
            throw .badResponse("local source \(path): \(error)")
        }
    }

    private func metadata(_ row: Row, isbn: ISBN13, _ db: Database) throws -> EditionMetadata {
        let workID = try (row["workID"] as Int64?).map { try resolved(.work, $0, db) }
        let work = try workID.flatMap { try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM work WHERE id = ?"), arguments: [$0]) }
        let editionAuthors = Self.ids(row["authorIDs"])
        let authorIDs = editionAuthors.isEmpty ? Self.ids(work?["authorIDs"]) : editionAuthors
        var authors: [String] = []
        // Five different names: an author listed twice (or redirected to another listed) once.
        for id in authorIDs where authors.count < 5 {
            let id = try resolved(.author, id, db)
            if let name = try String.fetchOne(db.cachedStatement(sql: "SELECT name FROM author WHERE id = ?"), arguments: [id]),
               !authors.contains(name) {
                authors.append(name)
            }
        }
        if authors.isEmpty, let byStatement: String = row["byStatement"] {
            authors = [byStatement.trimmingCharacters(in: CharacterSet(charactersIn: "."))]
        }
        let subjects: String? = row["subjects"] ?? work?["subjects"]
        let coverID: Int? = row["coverID"] ?? work?["coverID"]
        return EditionMetadata(
            isbn13: isbn.digits,
            isbn10: isbn.isbn10?.digits,
            title: row["title"],
            subtitle: row["subtitle"],
            authors: authors,
            description: row["description"] ?? work?["description"],
            coverImageUrl: coverID.map { coversURL.absoluteString + "/b/id/\($0)-L.jpg" },
            categories: subjects.map { $0.split(separator: "\n").map(String.init) } ?? [],
            pageCount: row["pages"],
            publishDate: row["publishDate"] ?? work?["firstPublishDate"],
            publisher: row["publisher"],
            language: row["language"],
            format: row["format"],
            apiSource: name)
    }

    /// The record a redirect (or a chain of them, a few long) points to; `id` when none does.
    private func resolved(_ kind: DumpRowParser.Kind, _ id: Int64, _ db: Database) throws -> Int64 {
        guard store.keepsRetired else { return id }
        var current = id
        for _ in 0..<5 {
            guard let target = try Int64.fetchOne(db.cachedStatement(sql: "SELECT target FROM retired WHERE kind = ? AND id = ?"),
                                                  arguments: [kind.rawValue, current]) else { break }
            current = target
        }
        return current
    }

    static func ids(_ text: String?) -> [Int64] {
        (text ?? "").split(separator: " ").compactMap { Int64($0) }
    }

    /// Lower-cased letters and digits, split at everything else (as FTS5's unicode61 splits).
    static func words(_ text: String) -> [String] {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .split { !$0.isLetter && !$0.isNumber }.map(String.init)
    }

    /// Every word of `text` as a quoted FTS5 term (AND): no FTS syntax gets through.
    static func matchQuery(_ text: String) -> String {
        words(text).map { "\"\($0)\"" }.joined(separator: " ")
    }
}
