import ArgumentParser
import BookMetadata
import Catalogue
import Foundation
import LibraryTransfer

/// `rapidscan export --format F [QUERY…] [--list L] [-o FILE]`.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export the library as Firestore documents, CSV, a Goodreads import CSV, rapidscan JSON or MARC records.",
        discussion: """
        Examples:
          rapidscan export --format goodreads -o goodreads.csv
          rapidscan export --format json -o backup.json
          rapidscan export --format marc -o library.mrc

        firestore: one JSON document with the collections works, isbnIndex, items, lists, users \
        (document id → the seed's camelCase fields, timestamps ISO 8601). csv: one row per book \
        with its work's metadata. goodreads: the 24-column CSV Goodreads imports, each book on \
        the exclusive shelf Goodreads uses for it (read, currently-reading; to-read only for \
        a book on Want to Read; unread for an unread book on a list of your own, \
        not-interested), Bookshelves holding its own list and "owned", Owned Copies 1 for an \
        owned book; `rapidscan import` reads the shelves back. json: \
        rapidscan's own versioned format; `rapidscan import` restores it losslessly. marcxml / \
        marc: one MARC 21 record per book (MARCXML, or ISO 2709 in UTF-8) with 020 ISBNs, 100/700 \
        names, 245 title, 264 publisher and year, 300 pages, 650 subjects and 852 holdings (list, \
        status, format), for Koha, Evergreen and other library systems.
        """)

    @Option(name: .long, help: "firestore, csv, goodreads, json, marcxml or marc.", completion: ValueCompletion.exportFormat)
    var format: String

    @Argument(help: "A library query (words and field filters) selecting the books; none exports all.")
    var query: [String] = []

    @Option(name: .long, help: "Only the books in this list (name or id).", completion: ValueCompletion.listNames)
    var list: String?

    @Flag(name: .long, help: "Every item in your lists, not only owned books.")
    var all = false

    @Option(name: [.short, .customLong("output")], help: "Write to this file instead of standard output.")
    var output: String?

    @OptionGroup var library: LibraryOptions

    func validate() throws {
        if ExportFormat(rawValue: format) == nil { throw ValidationError("--format must be firestore, csv, goodreads, json, marcxml or marc, got '\(format)'.") }
        do { _ = try LibraryQuery(terms: query) } catch { throw ValidationError("\(error)") }
    }

    func run() throws {
        do {
            let catalogue = try library.openCatalogue(try library.settings(), access: .read)
            var parsed = try LibraryQuery(terms: query)
            parsed.ownedOnly = !all
            if let list { parsed.list = list }
            let ids = try catalogue.itemIds(matching: parsed)
            let exportFormat = ExportFormat(rawValue: format)!
            let data = try Exporter.export(catalogue, format: exportFormat, itemIds: ids)
            if let output {
                // A regular file is replaced whole; /dev/null, a FIFO or a link's target is written into.
                do { try ExportFile.write(data, to: output) } catch {
                    Console.error("rapidscan: cannot write \(OutsideText.shown(output)): \(error.reason)")
                    throw LibraryExit.badInput
                }
                Console.error("exported \(ids.count) books to \(OutsideText.shown(output)).")
            } else {
                FileHandle.standardOutput.write(data)
                if !exportFormat.isBinary, data.last != UInt8(ascii: "\n") { FileHandle.standardOutput.write(Data("\n".utf8)) }
            }
        } catch {
            throw LibraryExit.fail(error)
        }
    }
}
