import ArgumentParser
import BookCodes
import Catalogue
import Foundation

/// `rapidscan library …`: see, find, fix and remove the books you own, and manage lists
/// (modelled on `beet ls/modify/remove` and `calibredb list/add/remove/set_metadata`).
struct LibraryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library",
        abstract: "List, show, add, remove and edit the books in your library, and manage lists.",
        discussion: """
        Examples:
          rapidscan library tolkien
          rapidscan library list status:read --sort rating
          rapidscan library set 9780306406157 --status read --rating 5

        A QUERY is words matched anywhere in title, authors and notes (each word as the start \
        of a word, in any order) plus field filters: author:NAME isbn:DIGITS status:unread|reading|read|notInterested \
        list:NAME added:2024 added:2024-01..2024-06-30.

        Exit status: 0 done, 1 a value could not be used (or the library's rules refuse it), \
        2 nothing matched, 5 the library is full (free plan), 64 usage error, 70 database error.
        """,
        subcommands: [
            LibraryListCommand.self, LibraryShowCommand.self, LibraryAddCommand.self,
            LibraryRemoveCommand.self, LibrarySetCommand.self, LibraryMoveCommand.self, LibraryListsCommand.self, LibraryNotFoundCommand.self,
        ],
        defaultSubcommand: LibraryListCommand.self)
}

/// The library commands' rows of the one exit table (`ExitStatus`), and their error report.
enum LibraryExit {
    static let badInput = ExitStatus.inputError
    static let noMatch = ExitStatus.notFound
    static let database = ExitStatus.failure

    /// Prints the error on stderr and returns the exit code its kind calls for.
    static func fail(_ error: any Error) -> ExitCode {
        if let code = error as? ExitCode { return code }
        Console.error("rapidscan: \(error)")
        switch error {
        case let error as LibraryError:
            if case .catalogue = error { return database }
            if case .notInLibrary = error { return noMatch }
            return badInput
        case is LibraryQuery.ParseError: return badInput
        default: return database
        }
    }
}

/// One item as `--json` prints it: the docs/CLI.md shared names plus the seed's item fields.
struct ItemLine: Encodable {
    var schema = JSONSchema.version
    var event: String
    var id: String
    var isbn13: String
    var isbn10: String?
    var title: String
    var authors: [String]
    var workKey: String
    var listId: String
    var listName: String?
    var status: String
    var liked: Bool
    var rating: Int?
    var notes: String?
    var currentPage: Int?
    var startedReadingAt: Date?
    var finishedReadingAt: Date?
    var addedAt: Date
    var isOwned: Bool
    var ownedFormat: String?
    var ownedAt: Date?
    /// The station that added it (absent for books added before stations were recorded).
    var station: String?

    init(_ item: Item, event: String, listName: String? = nil) {
        self.event = event
        id = item.id
        isbn13 = item.isbn
        isbn10 = (try? ISBN13(validating: item.isbn))?.isbn10?.digits
        title = item.title
        authors = item.authors
        workKey = item.bookId
        listId = item.listId
        self.listName = listName
        status = item.status.rawValue
        liked = item.liked
        rating = item.rating
        notes = item.notes
        currentPage = item.currentPage
        startedReadingAt = item.startedReadingAt
        finishedReadingAt = item.finishedReadingAt
        addedAt = item.addedAt
        isOwned = item.isOwned
        ownedFormat = item.ownedFormat?.rawValue
        ownedAt = item.ownedAt
        station = item.station
    }

    /// This line as `JSONLines.encode(self)` writes it, byte for byte (keys in byte order,
    /// absent values left out, dates as ISO 8601), written directly: JSONEncoder boxing each
    /// field was a quarter of a 180-book `library list --json`'s CPU after the connection.
    var jsonText: String {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        func key(_ name: String) {
            out.append(out.isEmpty ? UInt8(ascii: "{") : UInt8(ascii: ","))
            JSONValue.appendString(name, to: &out)
            out.append(UInt8(ascii: ":"))
        }
        func add(_ name: String, _ value: String?) {
            guard let value else { return }
            key(name)
            JSONValue.appendString(value, to: &out, asJSONEncoder: true)
        }
        func add(_ name: String, _ value: Int?) {
            guard let value else { return }
            key(name)
            out += String(value).utf8
        }
        func add(_ name: String, _ value: Bool) {
            key(name)
            out += (value ? "true" : "false").utf8
        }
        // JSONEncoder's `.iso8601`.
        func add(_ name: String, _ value: Date?) { add(name, value?.formatted(.iso8601)) }
        add("addedAt", addedAt)
        key("authors")
        out.append(UInt8(ascii: "["))
        for (index, author) in authors.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.appendString(author, to: &out, asJSONEncoder: true)
        }
        out.append(UInt8(ascii: "]"))
        add("currentPage", currentPage)
        add("event", event)
        add("finishedReadingAt", finishedReadingAt)
        add("id", id)
        add("isOwned", isOwned)
        add("isbn10", isbn10)
        add("isbn13", isbn13)
        add("liked", liked)
        add("listId", listId)
        add("listName", listName)
        add("notes", notes)
        add("ownedAt", ownedAt)
        add("ownedFormat", ownedFormat)
        add("rating", rating)
        add("schema", schema)
        add("startedReadingAt", startedReadingAt)
        add("station", station)
        add("status", status)
        add("title", title)
        add("workKey", workKey)
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// A JSON string as JSONEncoder writes it.
    static func jsonString(_ text: String) -> String {
        var out: [UInt8] = []
        JSONValue.appendString(text, to: &out, asJSONEncoder: true)
        return String(decoding: out, as: UTF8.self)
    }
}

enum ItemFormatting {
    /// "Dune — Frank Herbert · 978-0-441-01359-3 · read ★★★★☆ · Finished"
    static func line(_ item: Item, listName: String?) -> String {
        var parts = [item.title + (item.authors.isEmpty ? "" : " — " + item.authors.joined(separator: ", "))]
        parts.append(BookFormatting.hyphenated(item.isbn))
        var status = statusText(item.status)
        if let rating = item.rating { status += " " + String(repeating: "★", count: rating) + String(repeating: "☆", count: 5 - rating) }
        if item.liked { status += " ♥" }
        parts.append(status)
        if let listName { parts.append(listName) }
        if !item.isOwned { parts.append("not owned") }
        return parts.joined(separator: " · ")
    }

    /// `--format` templates: `{title}`, `{authors}`, `{isbn}`, `{isbn10}`, `{status}`, `{rating}`,
    /// `{list}`, `{added}` (YYYY-MM-DD), `{notes}`, `{id}`, `{work}`; `\t` and `\n` are escapes.
    static func template(_ template: String, _ item: Item, listName: String?) -> String {
        let day = ISO8601DateFormatter.string(from: item.addedAt, timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate])
        let values: [String: String] = [
            "title": item.title, "authors": item.authors.joined(separator: ", "), "isbn": item.isbn,
            "isbn10": (try? ISBN13(validating: item.isbn))?.isbn10?.digits ?? "", "status": item.status.rawValue,
            "rating": item.rating.map(String.init) ?? "", "list": listName ?? item.listId, "added": day,
            "notes": item.notes ?? "", "id": item.id, "work": item.bookId,
        ]
        var output = template.replacingOccurrences(of: "\\t", with: "\t").replacingOccurrences(of: "\\n", with: "\n")
        for (key, value) in values { output = output.replacingOccurrences(of: "{\(key)}", with: value) }
        return output
    }

    /// A reading status as people read it ("not interested"); `--json` and `--format` keep the id.
    static func statusText(_ status: ReadingStatus) -> String {
        status == .notInterested ? "not interested" : status.rawValue
    }

    static func listNames(_ catalogue: any CatalogueStore) throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: try catalogue.lists().map { ($0.id, $0.name) })
    }
}

/// An ISBN-10 or ISBN-13 argument, hyphens and spaces allowed.
func parseISBN(_ text: String) -> ISBN13? {
    let cleaned = text.filter { !$0.isWhitespace && $0 != "-" }
    if let code = try? ISBN13(validating: cleaned) { return code }
    return (try? ISBN10(validating: cleaned))?.isbn13
}

/// The items an `ISBN` argument or a query selects.
func selectItems(_ catalogue: any CatalogueStore, terms: [String], ownedOnly: Bool) throws -> [Item] {
    if terms.count == 1, let code = parseISBN(terms[0]) {
        return try catalogue.item(isbn: code).map { [$0] } ?? []
    }
    var query = try LibraryQuery(terms: terms)
    query.ownedOnly = ownedOnly
    return try catalogue.items(matching: query)
}
