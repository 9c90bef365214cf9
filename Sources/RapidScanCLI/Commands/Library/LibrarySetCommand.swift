import ArgumentParser
import Catalogue
import Foundation

/// `rapidscan library set ISBN --status read --rating 4 …`.
struct LibrarySetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set a book's status, rating, liked, notes, current page or owned format.",
        discussion: """
        Examples:
          rapidscan library set 9780306406157 --status reading --page 120
          rapidscan library set "dune" --rating 5

        Status follows the reading-progress rules: reading sets the start date, read the \
        finish date, unread clears both; your books-read and currently-reading counts follow.
        """)

    @Argument(help: "An ISBN, or a query that matches one book.", completion: ValueCompletion.ownedISBNs)
    var query: [String]

    @Option(name: .long, help: "unread, reading, read or notInterested.", completion: ValueCompletion.readingStatus)
    var status: String?

    @Option(name: .long, help: "1 to 5, or 0 to clear.")
    var rating: Int?

    @Option(name: .long, help: "yes or no.")
    var liked: String?

    @Option(name: .long, help: "Notes (empty to clear).")
    var notes: String?

    @Option(name: .long, help: "Current page (0 or more).")
    var page: Int?

    @Option(name: .customLong("owned-format"), help: "physical, ebook or audiobook.", completion: ValueCompletion.ownedFormat)
    var ownedFormat: String?

    @Flag(name: .long, help: "JSON (one line).")
    var json = false

    @OptionGroup var library: LibraryOptions

    func validate() throws {
        if let status, ReadingStatus(rawValue: status) == nil { throw ValidationError("--status must be unread, reading, read or notInterested, got '\(status)'.") }
        if let rating, !(0...5).contains(rating) { throw ValidationError("--rating must be from 1 to 5 (0 clears), got \(rating).") }
        if let liked, !["yes", "no", "true", "false"].contains(liked.lowercased()) { throw ValidationError("--liked must be yes or no, got '\(liked)'.") }
        if let page, page < 0 { throw ValidationError("--page must be 0 or more, got \(page).") }
        if let ownedFormat, OwnedFormat(rawValue: ownedFormat) == nil { throw ValidationError("--owned-format must be physical, ebook or audiobook.") }
        if [status, liked, notes, ownedFormat].allSatisfy({ $0 == nil }) && rating == nil && page == nil {
            throw ValidationError("Nothing to set: give --status, --rating, --liked, --notes, --page or --owned-format.")
        }
    }

    func run() throws {
        do {
            let catalogue = try library.openCatalogue(try library.settings())
            let items = try selectItems(catalogue, terms: query, ownedOnly: false)
            guard let item = items.first else { throw LibraryError.notInLibrary("'\(query.joined(separator: " "))'") }
            guard items.count == 1 else {
                Console.error("rapidscan: \(items.count) books match '\(query.joined(separator: " "))'; give an ISBN or a narrower query")
                throw LibraryExit.badInput
            }
            let change = ItemChange(
                status: status.flatMap(ReadingStatus.init),
                rating: rating.map { $0 == 0 ? Int?.none : $0 },
                liked: liked.map { ["yes", "true"].contains($0.lowercased()) },
                notes: notes.map { $0.isEmpty ? String?.none : $0 },
                currentPage: page.map { Optional($0) },
                ownedFormat: ownedFormat.flatMap(OwnedFormat.init))
            let updated = try catalogue.updateItem(id: item.id, change)
            let names = try ItemFormatting.listNames(catalogue)
            if json {
                Console.out(ItemLine(updated, event: "updated", listName: names[updated.listId]).jsonText)
            } else {
                Console.out(ItemFormatting.line(updated, listName: names[updated.listId]))
            }
        } catch {
            throw LibraryExit.fail(error)
        }
    }
}
