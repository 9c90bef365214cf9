import ArgumentParser
import BookLookup
import Catalogue
import Foundation

/// `rapidscan library notfound [--retry]`: codes no source knew, remembered.
struct LibraryNotFoundCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notfound",
        abstract: "Codes no source knew (from scans, add and import); --retry asks the sources again.",
        discussion: """
        Examples:
          rapidscan library notfound
          rapidscan library notfound --retry

        Add one by hand with `rapidscan library add ISBN --title T --author A`.
        """)

    @Flag(name: .long, help: "Look each one up again; found books are added as owned.")
    var retry = false

    @Flag(name: .long, help: "JSON Lines.")
    var json = false

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        do {
            let service = try library.openLookupService()
            let catalogue = service.catalogue
            var stillMissing = 0
            for row in try catalogue.notFoundCodes() {
                guard let code = parseISBN(row.isbn) else { continue }
                var event = "notFound"
                if retry, case let .found(work, _) = await service.lookup(code, intent: .own()) {
                    try catalogue.forgetNotFound(isbn: code)
                    if case .libraryFull = try catalogue.addOwned(isbn: code, work: work) { event = "libraryFull" } else { event = "added" }
                } else {
                    stillMissing += 1
                }
                if json {
                    Console.out(try JSONLines.encode(NotFoundLine(event: event, isbn13: row.isbn, file: row.origin, time: row.lastSeenAt, times: row.times)))
                } else {
                    Console.out("\(event == "notFound" ? "not found" : event): \(BookFormatting.hyphenated(row.isbn)) · \(row.origin) · \(ISO8601DateFormatter().string(from: row.lastSeenAt))\(row.times > 1 ? " · seen \(row.times) times" : "")")
                }
            }
            if stillMissing > 0 && retry { throw LibraryExit.noMatch }
        } catch {
            throw LibraryExit.fail(error)
        }
    }
}

struct NotFoundLine: Encodable {
    var schema = JSONSchema.version
    var event: String
    var isbn13: String
    var file: String
    var time: Date
    var times: Int
}
