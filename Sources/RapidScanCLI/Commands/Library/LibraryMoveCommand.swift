import ArgumentParser
import Catalogue
import Foundation

/// `rapidscan library move ISBN|QUERY --to LIST`.
struct LibraryMoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "move",
        abstract: "Move books to another list (a book is in one list of your library).",
        discussion: """
        Example:
          rapidscan library move 9780306406157 --to Finished
        """)

    @Argument(help: "An ISBN, or a query.", completion: ValueCompletion.ownedISBNs)
    var query: [String]

    @Option(name: .long, help: "The list (name or id).", completion: ValueCompletion.listNames)
    var to: String

    @Flag(name: .long, help: "Every item that matches, not only owned books.")
    var all = false

    @OptionGroup var library: LibraryOptions

    func run() throws {
        do {
            let catalogue = try library.openCatalogue(try library.settings())
            let items = try selectItems(catalogue, terms: query, ownedOnly: !all)
            guard !items.isEmpty else { throw LibraryError.notInLibrary("'\(query.joined(separator: " "))'") }
            let target = try catalogue.list(named: to)
            for item in items { _ = try catalogue.moveItem(id: item.id, toList: target.id) }
            Console.out("moved \(items.count) \(items.count == 1 ? "book" : "books") to \(target.name).")
        } catch {
            throw LibraryExit.fail(error)
        }
    }
}
