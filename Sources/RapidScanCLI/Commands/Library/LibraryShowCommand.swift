import ArgumentParser
import BookMetadata
import Catalogue
import Foundation

/// `rapidscan library show ISBN|QUERY`: every field of one book, its work's editions, its list.
struct LibraryShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show one book: all its fields, the editions of its work, its list.",
        discussion: """
        Examples:
          rapidscan library show 9780306406157
          rapidscan library show dune herbert
        """)

    @Argument(help: "An ISBN, or a query that matches one book.", completion: ValueCompletion.ownedISBNs)
    var query: [String]

    @Flag(name: .long, help: "JSON (one line).")
    var json = false

    @OptionGroup var library: LibraryOptions

    func run() throws {
        do {
            let catalogue = try library.openCatalogue(try library.settings(), access: .read)
            let items = try selectItems(catalogue, terms: query, ownedOnly: false)
            guard let item = items.first else { throw LibraryError.notInLibrary("'\(query.joined(separator: " "))'") }
            if items.count > 1 {
                Console.error("rapidscan: \(items.count) books match; showing the best match (narrow the query or give an ISBN)")
            }
            let names = try ItemFormatting.listNames(catalogue)
            let work = try catalogue.work(key: item.bookId)
            let editions = try work.map { try catalogue.editions(of: $0) } ?? []
            if json {
                Console.out(try JSONLines.encode(ShowLine(item: ItemLine(item, event: "item", listName: names[item.listId]), work: work, editions: editions.map(\.isbn))))
                return
            }
            var lines = [ItemFormatting.line(item, listName: names[item.listId])]
            func add(_ label: String, _ value: String?) { if let value, !value.isEmpty { lines.append("  \(label): \(value)") } }
            add("id", item.id)
            add("list", names[item.listId])
            add("status", ItemFormatting.statusText(item.status))
            add("rating", item.rating.map { "\($0)/5" })
            add("liked", item.liked ? "yes" : nil)
            add("current page", item.currentPage.map { "\($0)" + (item.pageCount.map { " of \($0)" } ?? "") })
            add("started", item.startedReadingAt?.formatted(.iso8601))
            add("finished", item.finishedReadingAt?.formatted(.iso8601))
            add("added", item.addedAt.formatted(.iso8601))
            add("owned", item.isOwned ? "\(item.ownedFormat?.rawValue ?? "yes")\(item.ownedAt.map { " since " + $0.formatted(.iso8601) } ?? "")" : "no")
            add("station", item.station.map { OutsideText.shown($0) })
            add("notes", item.notes)
            if let work { lines += [BookFormatting.headline(work)] + BookFormatting.details(work, editions: editions) }
            Console.out(lines.joined(separator: "\n"))
        } catch {
            throw LibraryExit.fail(error)
        }
    }
}

struct ShowLine: Encodable {
    var item: ItemLine
    var work: Work?
    var editions: [String]

    enum CodingKeys: String, CodingKey { case schema, event, item, work, editions }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(1, forKey: .schema)
        try container.encode("book", forKey: .event)
        try container.encode(item, forKey: .item)
        try container.encodeIfPresent(work, forKey: .work)
        try container.encode(editions, forKey: .editions)
    }
}
