import Foundation
import GRDB

/// User text turned into a safe FTS5 MATCH expression. Quotes, parentheses, colons,
/// `*`, `-`, `AND`/`OR`/`NOT` in what the user (or OCR) typed are never FTS syntax:
/// the text is split into words at anything that is not a letter or digit, and each
/// word becomes a quoted prefix term.
public struct SearchText: Sendable, Hashable {
    public let words: [String]

    public init(_ text: String) {
        var words: [String] = []
        var current = ""
        for scalar in text.unicodeScalars {
            if CharacterSet.alphanumerics.contains(scalar) {
                current.unicodeScalars.append(scalar)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        self.words = words
    }

    public var isEmpty: Bool { words.isEmpty }

    /// Every word must match (as a prefix of some indexed word).
    public var allWords: String { words.map { "\"\($0)\"*" }.joined(separator: " ") }

    /// Any word may match; bm25 ranks rows matching more (and rarer) words first.
    public var anyWord: String { words.map { "\"\($0)\"*" }.joined(separator: " OR ") }
}

// Full-text search over the cache's works and the user's items (FTS5, "v2-search").
extension Catalogue {

    /// Works whose title, authors or publisher contain the words of `text` (each word
    /// matching the beginning of a word, in any order, case and accents ignored), best
    /// bm25 match first; title words weigh most, then authors. When no work has every
    /// word (noisy OCR, a misspelt word), works matching any of them are returned,
    /// still ranked, so a caller must confirm a match before trusting it.
    public func searchWorks(_ text: String, limit: Int = 20) throws(CatalogueError) -> [Work] {
        let search = SearchText(text)
        guard !search.isEmpty, limit > 0 else { return [] }
        let sql = """
            SELECT works.rowid, works.* FROM worksSearch
            JOIN works ON works.workKey = worksSearch.workKey
            WHERE worksSearch MATCH ?
            ORDER BY bm25(worksSearch, 0.0, 10.0, 5.0, 1.0), works.editionCount DESC
            LIMIT ?
            """
        return try read { db in
            let all = try stored(Work.self, db, sql: sql, arguments: [search.allWords, limit])
            if !all.isEmpty || search.words.count == 1 { return all }
            return try stored(Work.self, db, sql: sql, arguments: [search.anyWord, limit])
        }
    }
}
