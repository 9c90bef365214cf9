import BookCodes
import Catalogue
import Foundation

public enum ExportFormat: String, Sendable, CaseIterable {
    case firestore, csv, goodreads, json, marcxml, marc

    /// Whether the export is bytes rather than text (nothing may follow its last record).
    public var isBinary: Bool { self == .marc }
}

/// rapidscan's own export: versioned, and restored losslessly by `import`.
public struct RapidScanExport: Codable, Sendable {
    public static let currentVersion = 1
    public var rapidscanExport: Int
    public var exportedAt: Date
    public var works: [Work]
    public var isbnIndex: [ISBNIndexEntry]
    public var lists: [BookList]
    public var items: [Item]
}

/// One formatter each, shared: making one per date dominated large exports and restores.
enum ISODates {
    nonisolated(unsafe) static let fractional: ISO8601DateFormatter = {
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return iso
    }()
    nonisolated(unsafe) static let whole = ISO8601DateFormatter()
}

/// Writes the library (or the items a query selected) in one of the export formats.
public enum Exporter {
    public static func export(_ catalogue: any CatalogueStore, format: ExportFormat, itemIds: [String]? = nil, now: Date = Date()) throws -> Data {
        let snapshot = try catalogue.snapshot(itemIds: itemIds)
        switch format {
        case .json: return try json(snapshot, now: now)
        case .csv: return try csv(snapshot)
        case .goodreads: return try goodreads(snapshot)
        case .firestore: return try firestore(catalogue, snapshot)
        case .marcxml: return marcXML(snapshot)
        case .marc: return marc(snapshot)
        }
    }

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ISODates.fractional.string(from: date))
        }
        return encoder
    }

    static func json(_ snapshot: LibrarySnapshot, now: Date) throws -> Data {
        try encoder().encode(RapidScanExport(
            rapidscanExport: RapidScanExport.currentVersion, exportedAt: now, works: snapshot.works,
            isbnIndex: snapshot.isbnIndex, lists: snapshot.lists, items: snapshot.items))
    }

    /// Reads a rapidscan JSON export back (dates ISO 8601 with or without fractions).
    public static func decodeJSON(_ data: Data) throws -> RapidScanExport {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            if let date = ISODates.fractional.date(from: text) ?? ISODates.whole.date(from: text) { return date }
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 date: \(text)"))
        }
        let export = try decoder.decode(RapidScanExport.self, from: data)
        guard export.rapidscanExport <= RapidScanExport.currentVersion else {
            throw ImportError.malformed("export", "version \(export.rapidscanExport) is newer than this rapidscan reads (\(RapidScanExport.currentVersion))")
        }
        return export
    }

    /// One JSON document: each collection maps document ids to their fields (keys sorted,
    /// two-space indentation, as JSONEncoder's pretty printing lays it out).
    static func firestore(_ catalogue: any CatalogueStore, _ snapshot: LibrarySnapshot) throws -> Data {
        let plan: [(ExportCollection, [String])] = [
            (.works, snapshot.works.map(\.workKey)),
            (.isbnIndex, snapshot.isbnIndex.map(\.isbn)),
            (.items, snapshot.items.map(\.id)),
            (.lists, snapshot.lists.map(\.id)),
            (.users, [snapshot.user.id]),
        ].sorted { $0.0.rawValue < $1.0.rawValue }
        var out: [UInt8] = []
        out.reserveCapacity(snapshot.items.count * 2048)
        out += "{".utf8
        for (tableIndex, (collection, ids)) in plan.enumerated() {
            out += (tableIndex == 0 ? "\n  " : ",\n  ").utf8
            JSONValue.appendString(collection.rawValue, to: &out)
            out += " : {".utf8
            let documents = try catalogue.documents(collection, keys: ids)
            for (documentIndex, document) in documents.enumerated() {
                out += (documentIndex == 0 ? "\n    " : ",\n    ").utf8
                JSONValue.appendString(document.id, to: &out)
                out += " : {".utf8
                for (fieldIndex, field) in document.fields.sorted(by: { $0.key < $1.key }).enumerated() {
                    out += (fieldIndex == 0 ? "\n      " : ",\n      ").utf8
                    JSONValue.appendString(field.key, to: &out)
                    out += " : ".utf8
                    field.value.appendJSON(to: &out)
                }
                out += (document.fields.isEmpty ? "}" : "\n    }").utf8
            }
            out += (documents.isEmpty ? "}" : "\n  }").utf8
        }
        out += "\n}".utf8
        return Data(out)
    }

    /// RFC 4180 text, fields quoted only when they hold a quote, comma or line break.
    /// Written here rather than through CSV.swift's writer (reading stays with CSV.swift):
    /// that writer tests each field with five Foundation substring searches and writes one
    /// scalar at a time, 0.9 s of a 10,000-book export's 1.7 s. Cells of `textColumns`
    /// (header names) are protected against formula injection (`CSVCell`); numbers, dates
    /// and ISBN cells are written as they are.
    static func writeCSV(header: [String], rows: [[String]], textColumns: Set<String> = []) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(rows.count * 256)
        let isText = header.map(textColumns.contains)
        func append(_ row: [String], protecting: Bool) {
            for (index, cell) in row.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                let field = protecting && isText[safe: index] == true ? CSVCell.protected(cell) : cell
                let bytes = field.utf8
                if bytes.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) {
                    out.append(UInt8(ascii: "\""))
                    for byte in bytes {
                        if byte == UInt8(ascii: "\"") { out.append(byte) }
                        out.append(byte)
                    }
                    out.append(UInt8(ascii: "\""))
                } else {
                    out.append(contentsOf: bytes)
                }
            }
            out.append(UInt8(ascii: "\n"))
        }
        append(header, protecting: false)
        for row in rows { append(row, protecting: true) }
        return Data(out)
    }

    static func day(_ date: Date?, separator: String = "-") -> String {
        guard let date else { return "" }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d\(separator)%02d\(separator)%02d", parts.year!, parts.month!, parts.day!)
    }

    static let csvHeader = ["isbn13", "isbn10", "title", "authors", "publisher", "publishDate", "pageCount", "categories",
                            "language", "list", "status", "rating", "liked", "currentPage", "isOwned", "ownedFormat",
                            "addedAt", "startedReadingAt", "finishedReadingAt", "notes", "workKey"]

    /// Free text from sources, import files and people; the other columns are numbers,
    /// dates, ISBNs and fixed words.
    static let csvTextColumns: Set = ["title", "authors", "publisher", "categories", "language", "list", "notes"]

    static func csv(_ snapshot: LibrarySnapshot) throws -> Data {
        let works = Dictionary(uniqueKeysWithValues: snapshot.works.map { ($0.workKey, $0) })
        let lists = Dictionary(uniqueKeysWithValues: snapshot.lists.map { ($0.id, $0.name) })
        let iso = ISODates.whole
        let rows = snapshot.items.map { item -> [String] in
            let work = works[item.bookId]
            return [
                item.isbn, (try? ISBN13(validating: item.isbn))?.isbn10?.digits ?? "", item.title,
                item.authors.joined(separator: "; "), work?.publisher ?? "", work?.publishDate ?? "",
                (item.pageCount ?? work?.pageCount).map(String.init) ?? "", (item.categories ?? work?.categories ?? []).joined(separator: "; "),
                work?.language ?? "", lists[item.listId] ?? item.listId, item.status.rawValue, item.rating.map(String.init) ?? "",
                item.liked ? "true" : "false", item.currentPage.map(String.init) ?? "", item.isOwned ? "true" : "false",
                item.ownedFormat?.rawValue ?? "", iso.string(from: item.addedAt), item.startedReadingAt.map(iso.string) ?? "",
                item.finishedReadingAt.map(iso.string) ?? "", item.notes ?? "", item.bookId,
            ]
        }
        return writeCSV(header: csvHeader, rows: rows, textColumns: csvTextColumns)
    }

    static let goodreadsHeader = ["Book Id", "Title", "Author", "Author l-f", "Additional Authors", "ISBN", "ISBN13", "My Rating",
                                  "Average Rating", "Publisher", "Binding", "Number of Pages", "Year Published",
                                  "Original Publication Year", "Date Read", "Date Added", "Bookshelves",
                                  "Bookshelves with positions", "Exclusive Shelf", "My Review", "Spoiler", "Private Notes",
                                  "Read Count", "Owned Copies"]

    /// Goodreads' ISBN cells stay `="…"` (its own way of keeping leading zeros).
    static let goodreadsTextColumns: Set = ["Title", "Author", "Author l-f", "Additional Authors", "Publisher", "Binding",
                                            "Bookshelves", "Bookshelves with positions", "My Review", "Private Notes"]

    /// The current 24-column Goodreads export, which Goodreads (and StoryGraph) import.
    /// Every Goodreads book is on one exclusive shelf: read, currently-reading, to-read (only
    /// a book on Want to Read: an owned book nobody asked to read is not "want to read"), or
    /// one of the user's own as Goodreads writes them (`GoodreadsShelf.unread`, `.notInterested`,
    /// also listed in Bookshelves); Bookshelves holds the book's own list and "owned", Owned
    /// Copies 1 for an owned book. `GoodreadsMapping` reads all of it back.
    static func goodreads(_ snapshot: LibrarySnapshot) throws -> Data {
        let works = Dictionary(uniqueKeysWithValues: snapshot.works.map { ($0.workKey, $0) })
        let lists = Dictionary(uniqueKeysWithValues: snapshot.lists.map { ($0.id, $0) })
        let rows = snapshot.items.map { item -> [String] in
            let work = works[item.bookId]
            let author = item.authors.first ?? ""
            let nameParts = author.split(separator: " ")
            let lastFirst = nameParts.count > 1 ? "\(nameParts.last!), \(nameParts.dropLast().joined(separator: " "))" : author
            let list = lists[item.listId]
            let shelf = switch item.status {
            case .read: GoodreadsShelf.read
            case .reading: GoodreadsShelf.currentlyReading
            case .notInterested: GoodreadsShelf.notInterested
            case .unread: list?.listType == .toRead ? GoodreadsShelf.toRead : GoodreadsShelf.unread
            }
            // Shelf names are comma-separated in the cell: a list's commas become spaces.
            let ownList = list.flatMap { $0.listType == .custom ? $0.name.replacingOccurrences(of: ",", with: " ") : nil }
            let ownExclusive = [GoodreadsShelf.unread, GoodreadsShelf.notInterested].contains(shelf) ? shelf : nil
            let shelves = [ownExclusive, ownList, item.isOwned ? GoodreadsShelf.owned : nil].compactMap { $0 }.joined(separator: ", ")
            return [
                "", item.title, author, lastFirst, item.authors.dropFirst().joined(separator: ", "),
                "=\"\((try? ISBN13(validating: item.isbn))?.isbn10?.digits ?? "")\"", "=\"\(item.isbn)\"",
                String(item.rating ?? 0), "", work?.publisher ?? "", item.ownedFormat == .ebook ? "Kindle Edition" : "",
                (item.pageCount ?? work?.pageCount).map(String.init) ?? "", work?.publishDate.map { String($0.prefix(4)) } ?? "", "",
                day(item.finishedReadingAt, separator: "/"), day(item.addedAt, separator: "/"), shelves, shelves, shelf, "", "",
                item.notes ?? "", item.status == .read ? "1" : "0", item.isOwned ? "1" : "0",
            ]
        }
        return writeCSV(header: goodreadsHeader, rows: rows, textColumns: goodreadsTextColumns)
    }
}
