import ArgumentParser
import BookLookup
import Catalogue
import Foundation
import MetadataSources

/// `rapidscan search TITLE [--author A]`: the cache first, then the sources.
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search books by title (and author): the local cache first, then Google Books and Open Library.",
        discussion: """
        Example:
          rapidscan search "the hobbit" --author tolkien

        The cache matches a case-insensitive title prefix, ignoring a leading "The", "A" or \
        "An". When it has nothing, each source is asked in order and its results are stored \
        in the cache.

        Exit status: 0 books found, 2 none found, 3 none found and some source could not \
        answer, 1 the database or config could not be used.
        """)

    @Argument(help: "The title, or its beginning.")
    var title: String

    @Option(name: .long, help: "Only books by this author (any part of the name).")
    var author: String?

    @Option(name: .long, help: "At most this many books.")
    var limit = 20

    @Flag(name: .long, help: "Search the local cache only.")
    var offline = false

    @Flag(name: .long, help: "One JSON object per work (JSON Lines).")
    var json = false

    @OptionGroup var library: LibraryOptions

    func validate() throws {
        if title.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("The title is empty.") }
        if !(1...100).contains(limit) { throw ValidationError("--limit must be from 1 to 100, got \(limit).") }
    }

    func run() async throws {
        let service = try library.openLookupService()
        let outcome = await service.search(title: title, author: author, offline: offline, limit: limit)
        for work in outcome.works {
            if json {
                try JSONLines.write(SearchLine(source: outcome.source?.name ?? "", work: work))
            } else {
                print(BookFormatting.headline(work))
                BookFormatting.details(work, editions: try service.catalogue.editions(of: work)).forEach { print($0) }
            }
        }
        for failure in outcome.failures { Console.error("\(SourceDisplayName.of(failure.source)) could not answer: \(failure.error)") }
        if !json {
            print(outcome.works.isEmpty ? "No books found." : "\(outcome.works.count) found (from \(outcome.source?.displayName ?? "?")).")
        }
        fflush(nil)
        if outcome.works.isEmpty { throw ExitCode(outcome.failures.isEmpty ? 2 : 3) }
    }
}

struct SearchLine: Encodable {
    var source: String
    var work: Work
}
