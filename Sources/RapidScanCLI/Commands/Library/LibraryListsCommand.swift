import ArgumentParser
import Catalogue
import Foundation

/// `rapidscan library lists [create|rename|delete]`.
struct LibraryListsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lists",
        abstract: "Show your lists; create, rename or delete custom lists (Pro).",
        discussion: """
        Examples:
          rapidscan library lists
          rapidscan library lists create "Lent out"

        The default lists (Want to Read, Finished) cannot be deleted; the free plan has no custom lists.
        """,
        subcommands: [Show.self, Create.self, Rename.self, Delete.self],
        defaultSubcommand: Show.self)

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Every list with its book count.",
                                                        discussion: "Example:\n  rapidscan library lists show")
        @Flag(name: .long, help: "JSON Lines.") var json = false
        @OptionGroup var library: LibraryOptions

        func run() throws {
            do {
                let catalogue = try library.openCatalogue(try library.settings(), access: .read)
                for list in try catalogue.lists() {
                    if json {
                        Console.out(try JSONLines.encode(ListLine(list)))
                    } else {
                        Console.out("\(list.name) · \(list.itemCount) \(list.itemCount == 1 ? "book" : "books") · \(ListFormatting.kind(list))")
                    }
                }
            } catch { throw LibraryExit.fail(error) }
        }
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create", abstract: "Create a custom list (Pro).",
                                                        discussion: "Example:\n  rapidscan library lists create \"Lent out\" --description \"books friends have\"")
        @Argument(help: "The list's name.") var name: String
        @Option(name: .long, help: "A description.") var description: String?
        @OptionGroup var library: LibraryOptions

        func validate() throws {
            if name.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("The list name is empty.") }
        }

        func run() throws {
            do {
                let list = try library.openCatalogue(try library.settings()).createList(name: name, description: description)
                Console.out("created \(list.name) (share code \(list.shareCode)).")
            } catch { throw LibraryExit.fail(error) }
        }
    }

    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rename", abstract: "Rename a list.",
                                                        discussion: "Example:\n  rapidscan library lists rename \"Lent out\" \"Borrowed\"")
        @Argument(help: "The list (name or id).", completion: ValueCompletion.listNames) var list: String
        @Argument(help: "The new name.") var name: String
        @OptionGroup var library: LibraryOptions

        func validate() throws {
            if name.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("The new name is empty.") }
        }

        func run() throws {
            do {
                let renamed = try library.openCatalogue(try library.settings()).renameList(list, to: name)
                Console.out("renamed to \(renamed.name).")
            } catch { throw LibraryExit.fail(error) }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a custom list; its books move to Want to Read.",
                                                        discussion: "Example:\n  rapidscan library lists delete \"Borrowed\"")
        @Argument(help: "The list (name or id).", completion: ValueCompletion.listNames) var list: String
        @OptionGroup var library: LibraryOptions

        func run() throws {
            do {
                let moved = try library.openCatalogue(try library.settings()).deleteList(list)
                Console.out("deleted \(list); \(moved) \(moved == 1 ? "book" : "books") moved to Want to Read.")
            } catch { throw LibraryExit.fail(error) }
        }
    }
}

struct ListLine: Encodable {
    var schema = JSONSchema.version
    var event = "list"
    var id: String
    var name: String
    var listType: String
    var isDefault: Bool
    var itemCount: Int
    var shareCode: String

    init(_ list: BookList) {
        id = list.id
        name = list.name
        listType = list.listType.rawValue
        isDefault = list.isDefault
        itemCount = list.itemCount
        shareCode = list.shareCode
    }
}

/// A list's kind in words; the ids (`local_toRead`, `toRead`) stay in `--json`.
enum ListFormatting {
    static func kind(_ list: BookList) -> String {
        switch list.listType {
        case .toRead, .completed: "default list"
        case .custom: "your list, share code \(list.shareCode)"
        }
    }
}
