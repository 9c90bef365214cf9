import ArgumentParser
import BookCodes
import BookLookup
import BookMetadata
import Catalogue
import Foundation
import Intake

/// `rapidscan library add ISBN… [--list L] [--status S]`: like a scan without a photo.
/// `--title`/`--author` file a book no source knows by hand (`apiSource: manual`).
struct LibraryAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Look ISBNs up and add them as owned; --title/--author add a book no source knows.",
        discussion: """
        Examples:
          rapidscan library add 9780306406157
          rapidscan library add 9780000000002 --title "Recipes" --author "A. Smith"

        Each ISBN goes through the cache, then the sources, like a scanned barcode: a book you \
        own already (any edition) is reported, the free plan's limit holds. A code no source \
        knows is remembered (`rapidscan library notfound`); add it by hand with \
        `add ISBN --title T --author A`.
        """)

    @Argument(help: "ISBN-10 or ISBN-13 (hyphens allowed).")
    var isbns: [String]

    @Option(name: .long, help: "The list to add to (name or id; default: Want to Read).", completion: ValueCompletion.listNames)
    var list: String?

    @Option(name: .long, help: "Reading status: unread, reading, read, notInterested.", completion: ValueCompletion.readingStatus)
    var status: String?

    @Option(name: .long, help: "Title of a book no source knows (one ISBN only).")
    var title: String?

    @Option(name: .long, help: "Author of a book added by hand (repeat for several).")
    var author: [String] = []

    @Option(name: .customLong("owned-format"), help: "physical, ebook or audiobook.")
    var ownedFormat = "physical"

    @Flag(name: .long, help: "Use the local cache only.")
    var offline = false

    @Flag(name: .long, help: "JSON Lines.")
    var json = false

    @OptionGroup var library: LibraryOptions

    func validate() throws {
        for text in isbns where parseISBN(text) == nil { throw ValidationError("'\(text)' is not a valid ISBN-10 or ISBN-13.") }
        if let status, ReadingStatus(rawValue: status) == nil { throw ValidationError("--status must be unread, reading, read or notInterested, got '\(status)'.") }
        if OwnedFormat(rawValue: ownedFormat) == nil { throw ValidationError("--owned-format must be physical, ebook or audiobook.") }
        if title != nil && isbns.count != 1 { throw ValidationError("--title adds one book by hand: give exactly one ISBN.") }
        if title != nil && author.isEmpty { throw ValidationError("--title needs --author.") }
        if let title, OutsideText.clean(title).trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--title is empty.") }
        if title == nil && !author.isEmpty { throw ValidationError("--author needs --title.") }
    }

    func run() async throws {
        var tally = IntakeTally()
        do {
            let service = try library.openLookupService()
            let catalogue = service.catalogue
            let listId = try list.map { try catalogue.list(named: $0).id }
            let intake = Intake(lookup: service, settings: Intake.Settings(listId: listId, format: ownedFormat, offline: offline, station: try library.stationName()))
            for text in isbns {
                let code = parseISBN(text)!
                var outcome: IntakeOutcome
                if let title {
                    // Pasted text may carry terminal controls: stored clean like a source's.
                    let work = try catalogue.recordManual(isbn: code, title: OutsideText.clean(title),
                                                          authors: author.map { OutsideText.clean($0) })
                    try catalogue.forgetNotFound(isbn: code)
                    outcome = intake.own(code, work: work, source: "manual", from: .typed)
                } else {
                    outcome = await intake.take(code, from: .typed)
                }
                if case .added(let book) = outcome, let status = status.flatMap(ReadingStatus.init), let id = book.itemId {
                    _ = try catalogue.updateItem(id: id, ItemChange(status: status))
                }
                tally.count(outcome)
                report(outcome)
            }
        } catch {
            throw LibraryExit.fail(error)
        }
        try ExitStatus.exit(outcomes: tally.kinds)
    }

    func report(_ outcome: IntakeOutcome) {
        if json { if let text = try? JSONLines.encode(IntakeLine(outcome)) { Console.out(text) }; return }
        if outcome.isSuccess { Console.out(outcome.humanLine) } else { Console.error(outcome.humanLine) }
    }
}
