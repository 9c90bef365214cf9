import ArgumentParser
import Catalogue
import Foundation

/// `rapidscan library remove ISBN|QUERY [--yes]`.
struct LibraryRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove books (by ISBN or query) from the library; list counts follow.",
        discussion: """
        Example:
          rapidscan library remove 9780306406157

        More than one match asks for confirmation on a terminal; elsewhere it needs --yes.
        """)

    @Argument(help: "An ISBN, or a query (words and field filters).", completion: ValueCompletion.ownedISBNs)
    var query: [String]

    @Flag(name: .long, help: "Remove every item in your lists that matches, not only owned books.")
    var all = false

    @Flag(name: [.short, .long], help: "Do not ask; remove every match.")
    var yes = false

    @Flag(name: .long, help: "JSON Lines.")
    var json = false

    @OptionGroup var library: LibraryOptions

    func run() throws {
        do {
            let catalogue = try library.openCatalogue(try library.settings())
            let items = try selectItems(catalogue, terms: query, ownedOnly: !all)
            guard !items.isEmpty else { throw LibraryError.notInLibrary("'\(query.joined(separator: " "))'") }
            if items.count > 1 && !yes {
                guard isatty(STDIN_FILENO) == 1 else {
                    Console.error("rapidscan: \(items.count) books match '\(query.joined(separator: " "))'; add --yes to remove them all")
                    throw LibraryExit.badInput
                }
                let names = try ItemFormatting.listNames(catalogue)
                for item in items { Console.error("  " + ItemFormatting.line(item, listName: names[item.listId])) }
                Console.error("Remove these \(items.count) books? [y/N] ")
                guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                    Console.error("Nothing removed.")
                    return
                }
            }
            let removed = try catalogue.removeItems(ids: items.map(\.id))
            for item in items {
                if json { Console.out(ItemLine(item, event: "removed").jsonText) } else { Console.out("removed: \(item.title) (\(item.isbn))") }
            }
            if json { Console.out(try JSONLines.encode(ListSummaryLine(event: "summary", count: removed))) }
        } catch {
            throw LibraryExit.fail(error)
        }
    }
}
