import BookCodes
import Catalogue
import Foundation
import MetadataSources

/// How the catalogue's records print: one block per work for people, JSON for scripts.
enum BookFormatting {
    /// "Crafting Interpreters — Robert Nystrom (2021)"
    static func headline(_ work: Work) -> String {
        var line = work.title
        let authors = work.authors.isEmpty ? work.primaryAuthor : work.authors.joined(separator: ", ")
        if !authors.isEmpty { line += " — " + authors }
        if let date = work.publishDate { line += " (\(date.prefix(4)))" }
        return line
    }

    /// The work's details and editions, indented under a headline.
    static func details(_ work: Work, editions: [ISBNIndexEntry]) -> [String] {
        var facts = ["work \(work.workKey)"]
        if let publisher = work.publisher { facts.append(publisher) }
        if let pages = work.pageCount { facts.append("\(pages) pages") }
        facts.append("from \(SourceDisplayName.of(work.apiSource))")
        var lines = ["  " + facts.joined(separator: " · ")]
        if !work.categories.isEmpty { lines.append("  categories: " + work.categories.joined(separator: ", ")) }
        if let cover = work.coverImageUrl { lines.append("  cover: " + cover) }
        let editionTexts = editions.map { entry in
            var text = hyphenated(entry.isbn)
            var notes: [String] = []
            if entry.isbn == work.primaryIsbn { notes.append("primary") }
            if entry.format != "unknown" { notes.append(entry.format) }
            if let date = entry.publishDate { notes.append(date) }
            if !notes.isEmpty { text += " (" + notes.joined(separator: ", ") + ")" }
            return text
        }
        if !editionTexts.isEmpty {
            lines.append("  editions (\(work.editionCount)): " + editionTexts.joined(separator: "; "))
        }
        return lines
    }

    static func hyphenated(_ digits: String) -> String {
        (try? ISBN13(validating: digits))?.hyphenated ?? digits
    }
}
