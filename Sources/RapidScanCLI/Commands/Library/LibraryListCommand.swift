import ArgumentParser
import Catalogue
import Foundation

/// `rapidscan library list [QUERY…]`: owned books (or every item with `--all`).
struct LibraryListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List owned books matching a query (every item, owned or not, with --all).",
        discussion: """
        Examples:
          rapidscan library list
          rapidscan library list author:tolkien --sort added --limit 10
          rapidscan library list --format '{isbn}\\t{title}' status:unread
        """)

    @Argument(help: "Words and field filters (author: isbn: status: list: station: added:); none lists everything.")
    var query: [String] = []

    @Flag(name: .long, help: "Every item in your lists, not only owned books.")
    var all = false

    @Option(name: .long, help: "Sort by title, author, added, rating (highest first) or status (default: best match with words, else added).",
            completion: ValueCompletion.librarySort)
    var sort: String?

    @Flag(name: .long, help: "Reverse the sort.")
    var reverse = false

    @Option(name: .long, help: "At most this many books.")
    var limit: Int?

    @Option(name: .long, help: "A line template: {title} {authors} {isbn} {isbn10} {status} {rating} {list} {added} {notes} {id} {work}.")
    var format: String?

    @Flag(name: .long, help: "One JSON object per book (JSON Lines).")
    var json = false

    @OptionGroup var library: LibraryOptions

    func validate() throws {
        if let sort, LibraryQuery.Sort(rawValue: sort) == nil {
            throw ValidationError("--sort must be one of \(LibraryQuery.Sort.allCases.map(\.rawValue).joined(separator: ", ")), got '\(sort)'.")
        }
        if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more, got \(limit).") }
        do { _ = try LibraryQuery(terms: query) } catch { throw ValidationError("\(error)") }
    }

    func run() throws {
        do {
            let catalogue = try library.openCatalogue(try library.settings(), access: .read)
            var parsed = try LibraryQuery(terms: query)
            parsed.ownedOnly = !all
            if let sort { parsed.sort = LibraryQuery.Sort(rawValue: sort)! }
            // Ratings read best first, as in every catalogue; --reverse turns any sort round.
            parsed.descending = (parsed.sort == .rating) != reverse
            parsed.limit = limit
            let items = try catalogue.items(matching: parsed)
            // Every book the query matches: the rows printed, unless --limit cut them short.
            let total = limit.map { items.count >= $0 } == true ? try catalogue.count(matching: parsed) : items.count
            let names = try ItemFormatting.listNames(catalogue)
            var lines: [String] = []
            lines.reserveCapacity(items.count)
            for item in items {
                if json {
                    lines.append(ItemLine(item, event: "item", listName: names[item.listId]).jsonText)
                } else if let format {
                    lines.append(ItemFormatting.template(format, item, listName: names[item.listId]))
                } else {
                    lines.append(ItemFormatting.line(item, listName: names[item.listId]))
                }
            }
            if json {
                lines.append(ListSummaryLine(count: items.count, matched: total).jsonText)
            } else if format == nil {
                // With --limit, how many there are in all: "3 of 120 books owned."
                let shown = total == items.count ? "\(total)" : "\(items.count) of \(total)"
                lines.append("\(shown) \(total == 1 ? "book" : "books")\(all ? " (all items)" : " owned")\(query.isEmpty ? "" : " matching").")
            }
            if !lines.isEmpty { Console.out(lines.joined(separator: "\n")) }
        } catch {
            throw LibraryExit.fail(error)
        }
    }
}

struct ListSummaryLine: Encodable {
    var schema = JSONSchema.version
    var event = "summary"
    /// The books printed.
    var count: Int
    /// Every book the query matches (more than `count` when --limit cut the list; `list` only).
    var matched: Int?

    /// `JSONLines.encode(self)`, byte for byte, without an encoder (keys in byte order).
    var jsonText: String {
        "{\"count\":\(count),\"event\":" + ItemLine.jsonString(event) + (matched.map { ",\"matched\":\($0)" } ?? "")
            + ",\"schema\":\(schema)}"
    }
}
