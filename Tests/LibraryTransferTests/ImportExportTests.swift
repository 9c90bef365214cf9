import BookCodes
import BookLookup
import BookMetadata
import Catalogue
import Foundation
@testable import LibraryTransfer
import Testing
import TestSupport

/// A real catalogue file whose cache already knows the books (the lookup stage's cache-first
/// path), and a production LookupService without sources: a miss is queued, never invented.
final class ImportHarness: Sendable {
    let folder: URL
    let catalogue: Catalogue
    let service: LookupService

    init(knownBooks: [(String, String, [String])] = ImportHarness.fixtureBooks) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("import-tests-\(UUID().uuidString)")
        catalogue = try Catalogue(path: folder.appendingPathComponent("library.sqlite").path)
        service = LookupService(catalogue: catalogue, sources: [])
        for (code, title, authors) in knownBooks {
            try catalogue.record(EditionMetadata(isbn13: code, title: title, authors: authors, apiSource: "googleBooks"), for: ISBN13(validating: code))
        }
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    static let fixtureBooks: [(String, String, [String])] = [
        ("9780756404079", "The Name of the Wind", ["Patrick Rothfuss"]),
        ("9780441013593", "Dune", ["Frank Herbert"]),
        ("9781642937053", "Mark of the Fool", ["J.M. Clarke"]),
        ("9780140447576", "The Communist Manifesto", ["Karl Marx", "Friedrich Engels"]),
        ("9788025712344", "Válka s mloky", ["Karel Čapek"]),
        ("9780142402511", "Looking for Alaska", ["John Green"]),
        ("9781250313195", "Gideon the Ninth", ["Tamsyn Muir"]),
        ("9781491964651", "A Whirlwind Tour of Python", ["Jake VanderPlas"]),
        ("9781529045222", "A Poem for Every Autumn Day", ["Allie Esiri"]),
        ("9781635575637", "Piranesi", ["Susanna Clarke"]),
        ("9780520227354", "Always Coming Home", ["Ursula K. Le Guin"]),
        ("9780547928227", "The Hobbit", ["J.R.R. Tolkien"]),
        ("9780062316097", "Sapiens", ["Yuval Noah Harari"]),
        ("9782070291342", "Marelle", ["Julio Cortázar"]),
        ("9780756411800", "That Ain't Witchcraft", ["Seanan McGuire"]),
    ]

    func importFile(_ text: ImportText, chunkSize: Int = 200, stopAfterChunks: Int? = nil) async throws -> (ImportSummary, [ImportEvent]) {
        let format = try ImportFormat.detect(text)
        let events = Locked<[ImportEvent]>([])
        let chunks = Locked(0)
        let importer = Importer(service: service, width: 4, chunkSize: chunkSize, offline: true)
        let summary = try await importer.run(text, format: format, onEvent: { event in
            events.mutate { $0.append(event) }
        }, shouldStop: {
            guard let stopAfterChunks else { return false }
            return chunks.mutate { value in value += 1; return value > stopAfterChunks }
        })
        return (summary, events.value)
    }

    func fixture(_ name: String) throws -> ImportText {
        try SharedFiles.requireShared()
        let url = try #require(SharedFiles.fixture("imports/synthetic/\(name)"), "\(SharedFiles.missingMessage)")
        return try ImportText(contentsOf: url.path)
    }

    func item(_ code: String) throws -> Item? { try catalogue.item(isbn: ISBN13(validating: code)) }
}

final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.lock(); defer { lock.unlock() }; return stored }
    @discardableResult func mutate<T>(_ body: (inout Value) -> T) -> T { lock.lock(); defer { lock.unlock() }; return body(&stored) }
}

func utcDay(_ year: Int, _ month: Int, _ day: Int) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar.date(from: DateComponents(year: year, month: month, day: day))!
}

@Suite struct ImportFormatsTests {
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func goodreads24ColumnsImportsStatusesRatingsListsAndOwnership() async throws {
        let harness = try ImportHarness()
        let file = try harness.fixture("goodreads_library_export_24col.csv")
        #expect(try ImportFormat.detect(file) == .goodreads)
        let (summary, events) = try await harness.importFile(file)
        #expect(summary.imported == 6 && summary.badRows == 0 && summary.notFound == 0, "\(events)")
        let wind = try #require(try harness.item("9780756404079"))
        #expect(wind.status == .read && wind.rating == 5 && wind.isOwned && wind.listId == "local_completed")
        #expect(wind.finishedReadingAt == utcDay(2021, 3, 14))
        let dune = try #require(try harness.item("9780441013593"))
        #expect(dune.status == .read && dune.rating == 4 && dune.isOwned)
        // No ISBN: matched by title (series suffix dropped) and the author's surname.
        let fool = try #require(try harness.item("9781642937053"))
        #expect(fool.status == .unread && !fool.isOwned && fool.listId == "local_toRead")
        let manifesto = try #require(try harness.item("9780140447576"))
        #expect(manifesto.status == .reading && !manifesto.isOwned)
        let capek = try #require(try harness.item("9788025712344"))
        #expect(capek.status == .read && capek.isOwned && capek.rating == 4)
        let alaska = try #require(try harness.item("9780142402511"))
        #expect(alaska.status == .notInterested && alaska.rating == 2 && !alaska.isOwned)
        #expect(try harness.catalogue.ownedCount() == 3)
        #expect(try harness.catalogue.user().booksRead == 3 && harness.catalogue.user().currentlyReading == 1)
        #expect(try harness.catalogue.lists().first { $0.id == "local_completed" }?.itemCount == 3)
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func goodreadsLegacy31ColumnsAndSpreadsheetDamage() async throws {
        let harness = try ImportHarness()
        let (legacy, _) = try await harness.importFile(try harness.fixture("goodreads_library_export_31col_legacy.csv"))
        #expect(legacy.imported == 2)
        #expect(try harness.item("9781250313195")?.rating == 3)
        #expect(try harness.item("9781491964651")?.status == .reading)
        // "441013597" lost its zero (the check digit proves 0441013597); 9.78044E+12 is ignored for it.
        let (damaged, events) = try await harness.importFile(try harness.fixture("goodreads_export_after_spreadsheet_roundtrip.csv"))
        #expect(damaged.imported == 2 && damaged.badRows == 0, "\(events)")
        let dune = try #require(try harness.item("9780441013593"))
        #expect(dune.isOwned && dune.finishedReadingAt == utcDay(2019, 4, 2))
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func otherAppsExportsImport() async throws {
        let harness = try ImportHarness()
        for (name, format, imported) in [("storygraph_export.csv", ImportFormat.storygraph, 2), ("libib_library.csv", .libib, 2),
                                         ("librarything_export.tsv", .librarythingTSV, 1), ("calibredb_list_for_machine_all.json", .calibre, 1)] {
            let file = try harness.fixture(name)
            #expect(try ImportFormat.detect(file) == format, "\(name)")
            let (summary, events) = try await harness.importFile(file)
            #expect(summary.imported >= imported, "\(name): \(events)")
        }
        #expect(try harness.item("9781635575637")?.rating == 5 || harness.item("9781635575637")?.rating == 4)
        #expect(try harness.item("9781635575637")?.isOwned == true)
        #expect(try harness.item("9780520227354")?.isOwned == false)
        #expect(try harness.item("9780547928227")?.status == .read)
        // LibraryThing's TSV is Windows-1252: "Cortázar" decoded right.
        #expect(try harness.fixture("librarything_export.tsv").encoding == "cp1252")
        #expect(try harness.item("9782070291342")?.isOwned == true)
        #expect(try harness.item("9780756411800")?.isOwned == true)
    }
}

@Suite struct ImportBadInputTests {
    func text(_ content: String, _ name: String = "list.csv") throws -> ImportText { try ImportText(path: name, data: Data(content.utf8)) }

    @Test func badRowsAreReportedWithFileAndLineAndTheRestImports() async throws {
        let harness = try ImportHarness()
        let file = try text("isbn\n9780441013593\n9780441013594\n\"\"\n9.78044E+12\n978-0-14-240251-1\n")
        let (summary, events) = try await harness.importFile(file)
        #expect(summary.imported == 2)
        let bad = events.filter { $0.kind == .badRow }.map { "\($0.file):\($0.line)" }
        #expect(bad == ["list.csv:3", "list.csv:4", "list.csv:5"], "\(events)")
        #expect(events.first { $0.line == 3 }?.reason?.contains("check digit") == true)
        #expect(events.first { $0.line == 5 }?.reason?.contains("cannot be recovered") == true)
    }

    @Test func anOfflineMissIsQueuedWithOfflinesOwnReasonNamedOnce() async throws {
        let harness = try ImportHarness()
        let (summary, events) = try await harness.importFile(try text("isbn\n9780306406157\n"))
        #expect(summary.imported == 0)
        let queued = try #require(events.first { $0.kind == .queued }, "\(events)")
        // Offline is no source that failed: not "offline could not answer: … (offline)".
        #expect(queued.source == "offline" && queued.reason == "not in the local cache (offline)", "\(queued)")
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aGoodreadsRowWithTheWrongColumnCountIsABadRow() async throws {
        let harness = try ImportHarness()
        let content = try harness.fixture("goodreads_library_export_24col.csv").wholeText() + "123,Broken row,Someone\n"
        let (summary, events) = try await harness.importFile(try text(content, "gr.csv"))
        #expect(summary.imported == 6 && summary.badRows == 1)
        #expect(events.first { $0.kind == .badRow }.map { "\($0.file):\($0.line)" } == "gr.csv:9")
    }

    @Test func binaryEmptyAndCp1252Files() throws {
        #expect(throws: ImportError.binaryFile("x.csv")) { try ImportText(path: "x.csv", data: Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0x01])) }
        #expect(throws: ImportError.emptyFile("e.csv")) { try ImportText(path: "e.csv", data: Data()) }
        #expect(throws: ImportError.emptyFile("e.csv")) { try ImportText(path: "e.csv", data: Data("\n \n".utf8)) }
        let bom = try ImportText(path: "b.csv", data: Data([0xEF, 0xBB, 0xBF] + Array("isbn\n9780441013593\n".utf8)))
        #expect(try bom.encoding == "utf-8-bom" && bom.wholeText().hasPrefix("isbn"))
        let latin = try ImportText(path: "c.txt", data: Data([0x43, 0x61, 0x66, 0xE9]))
        #expect(try latin.encoding == "cp1252" && latin.wholeText() == "Café")
    }

    /// A JSON document may be one line (LibraryThing's export, `jq -c`): its size is capped, not
    /// its line. A one-line file that is no JSON, or a JSON document forced to be read as lines,
    /// is still refused by its line.
    @Test func aOneLineJSONDocumentIsReadWholeWhileOtherLongLinesAreRefused() throws {
        let books = (0..<20_000).map { n in #"{"title": "Bench Title \#(n)", "authors": "A. Writer", "isbn": "9780441013593"}"# }
        let document = "[" + books.joined(separator: ",") + "]"
        #expect(document.utf8.count > ImportText.longestLine && !document.contains("\n"))
        let json = try ImportText(path: "calibre.json", data: Data(document.utf8))
        #expect(try ImportFormat.detect(json) == .calibre)
        var reader = try ImportFormat.calibre.rows(json)
        var rows = 0
        while let entry = try reader.next() { if case .row = entry { rows += 1 } }
        #expect(rows == 20_000)
        #expect(throws: ImportError.lineTooLong("calibre.json", line: 1, bytes: document.utf8.count)) { _ = try ImportFormat.isbnList.rows(json) }

        let digits = String(repeating: "7", count: ImportText.longestLine + 10)
        #expect(throws: ImportError.lineTooLong("one-line.txt", line: 1, bytes: digits.utf8.count)) {
            try ImportText(path: "one-line.txt", data: Data(digits.utf8))
        }
    }

    @Test func anInterruptedImportResumesWithoutDuplicates() async throws {
        let codes = (0..<600).map { n -> String in
            let body = "9781" + String(format: "%08d", n)
            return (0...9).lazy.compactMap { try? ISBN13(validating: body + String($0)) }.first!.digits
        }
        let harness = try ImportHarness(knownBooks: codes.map { ($0, "Book \($0)", ["Author \($0)"]) })
        try harness.catalogue.setPro(true)
        let file = try text(codes.joined(separator: "\n") + "\n", "isbns.txt")
        let (first, _) = try await harness.importFile(file, chunkSize: 100, stopAfterChunks: 2)
        #expect(first.imported == 200)
        let (second, _) = try await harness.importFile(file, chunkSize: 100)
        #expect(second.skipped == 200 && second.imported == 400 && second.alreadyPresent == 0)
        #expect(try harness.catalogue.ownedCount() == 600)
        let (third, _) = try await harness.importFile(file)
        #expect(third.skipped == 600 && third.imported == 0)
    }

    @Test func theFreePlanLimitHoldsAndFullRowsStayForLater() async throws {
        let codes = (0..<55).map { n -> String in
            let body = "9781" + String(format: "%08d", n)
            return (0...9).lazy.compactMap { try? ISBN13(validating: body + String($0)) }.first!.digits
        }
        let harness = try ImportHarness(knownBooks: codes.map { ($0, "Book \($0)", ["Author"]) })
        let file = try text(codes.joined(separator: "\n"), "isbns.txt")
        let (summary, _) = try await harness.importFile(file)
        #expect(summary.imported == 50 && summary.libraryFull == 5)
        try harness.catalogue.setPro(true)
        let (again, _) = try await harness.importFile(file)
        #expect(again.imported == 5 && again.skipped == 50)
    }
}

@Suite struct ExportRoundTripTests {
    func importedLibrary() async throws -> ImportHarness {
        let harness = try ImportHarness()
        _ = try await harness.importFile(try harness.fixture("goodreads_library_export_24col.csv"))
        return harness
    }

    func state(_ catalogue: Catalogue) throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: try catalogue.items(matching: { var q = LibraryQuery(); q.ownedOnly = false; return q }()).map {
            ($0.isbn, "\($0.isOwned) \($0.status.rawValue) \($0.rating ?? 0)")
        })
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func goodreadsExportImportsBackToTheSameBooks() async throws {
        let source = try await importedLibrary()
        let data = try Exporter.export(source.catalogue, format: .goodreads)
        let target = try ImportHarness()
        let (summary, events) = try await target.importFile(try ImportText(path: "export.csv", data: data))
        #expect(summary.badRows == 0 && summary.imported == 6, "\(events)")
        // Every status comes back, "not interested" too (its own exclusive shelf, `not-interested`).
        #expect(try state(target.catalogue) == state(source.catalogue))
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func jsonExportRestoresAnIdenticalLibrary() async throws {
        let source = try await importedLibrary()
        _ = try source.catalogue.updateItem(id: try #require(try source.item("9780441013593")).id, ItemChange(liked: true, notes: "re-read", currentPage: 12))
        let data = try Exporter.export(source.catalogue, format: .json)
        let export = try Exporter.decodeJSON(data)
        let target = try ImportHarness(knownBooks: [])
        let summary = try target.catalogue.restore(LibrarySnapshot(user: try target.catalogue.user(), lists: export.lists, items: export.items, works: export.works, isbnIndex: export.isbnIndex))
        #expect(summary.added == 6)
        let before = try source.catalogue.snapshot(), after = try target.catalogue.snapshot()
        #expect(after.items == before.items)
        #expect(after.works == before.works)
        #expect(after.lists.map(\.itemCount) == before.lists.map(\.itemCount))
        #expect(try target.catalogue.user().booksRead == source.catalogue.user().booksRead)
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func firestoreDocumentsHaveTheSeedsFieldsAndIds() async throws {
        let source = try await importedLibrary()
        let data = try Exporter.export(source.catalogue, format: .firestore)
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [String: [String: Any]]])
        #expect(Set(root.keys) == ["works", "isbnIndex", "items", "lists", "users"])
        let itemFields: Set<String> = ["id", "listId", "userId", "bookId", "isbn", "title", "authors", "coverImageUrl", "description",
                                       "pageCount", "genre", "categories", "status", "liked", "rating", "notes", "currentPage",
                                       "startedReadingAt", "finishedReadingAt", "addedAt", "updatedAt", "isOwned", "ownedFormat", "ownedAt"]
        let items = try #require(root["items"])
        #expect(items.count == 6)
        for (id, fields) in items {
            #expect(Set(fields.keys) == itemFields && fields["id"] as? String == id)
            #expect(fields["isOwned"] is Bool && fields["authors"] is [String])
            #expect((fields["addedAt"] as? String)?.hasSuffix("Z") == true)
        }
        #expect(Set(try #require(root["lists"]).keys).isSuperset(of: ["local_toRead", "local_completed"]))
        #expect(root["users"]?["local"]?["booksRead"] as? Int == 3)
        #expect(root["isbnIndex"]?["9780441013593"]?["workKey"] is String)
        let csv = String(decoding: try Exporter.export(source.catalogue, format: .csv), as: UTF8.self)
        #expect(csv.split(separator: "\n").count == 7 && csv.hasPrefix("isbn13,isbn10,title"))
    }
}

/// The export's CSV writer against CSV.swift's reader: every awkward field reads back as written.
@Suite struct CSVWriterTests {
    @Test func awkwardFieldsReadBackThroughCSVSwift() throws {
        let rows = [
            ["plain", "with, comma", "with \"quotes\"", "two\nlines", "cr\r\nlf", "", "=\"9780441013593\"", "Ngũgĩ 日本 🙂"],
            ["", "", "", "", "", "", "", "only the last"],
            ["\"", ",", "\n", "trailing space ", " leading", "a\"b\"c", "x", "y"],
        ]
        let header = ["a", "b", "c", "d", "e", "f", "g", "h"]
        let data = Exporter.writeCSV(header: header, rows: rows)
        let table = try CSVTable.read(String(decoding: data, as: UTF8.self), path: "export.csv")
        #expect(table.header == header)
        #expect(table.rows.map(\.fields) == rows)
    }
}

/// The Firestore document is written by hand: awkward text, numbers, nulls and booleans must
/// come back exactly through a real JSON parser.
@Suite struct FirestoreWriterTests {
    @Test func awkwardValuesParseBackExactly() throws {
        let title = "Quotes \" back\\slash / slash\ttab\nline \u{01} Ngũgĩ 🙂"
        let harness = try ImportHarness(knownBooks: [("9780441013593", title, ["A \"B\" C", "D\\E"])])
        let code = try ISBN13(validating: "9780441013593")
        let work = try #require(try harness.catalogue.work(forISBN: code))
        _ = try harness.catalogue.addOwned(isbn: code, work: work)
        let data = try Exporter.export(harness.catalogue, format: .firestore)
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [String: [String: Any]]])
        let item = try #require(root["items"]?.values.first)
        #expect(item["title"] as? String == title)
        #expect(item["authors"] as? [String] == ["A \"B\" C", "D\\E"])
        #expect(item["rating"] is NSNull && item["isOwned"] as? Bool == true)
        #expect((item["ownedAt"] as? String).map { ISO8601DateFormatter.withFractions.date(from: $0) != nil } == true)
        #expect(root["works"]?[work.workKey]?["title"] as? String == title)
        #expect(root["users"]?["local"]?["scanCount"] as? Int == 1)
    }
}

extension ISO8601DateFormatter {
    static var withFractions: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}

/// OWASP's formula-injection defence, reversible.
@Suite struct CSVCellTests {
    @Test func formulaCellsAreQuotedAndReadBackAsTheyWere() {
        let cases = ["=HYPERLINK(\"x\")", "+1", "-2+3", "@SUM(A1)", "\tx", "\rx", "'=x", "''+y", "'hello", "it's", "", "plain", "'"]
        for text in cases {
            #expect(CSVCell.unprotected(CSVCell.protected(text)) == text, "\(text.debugDescription)")
        }
        #expect(CSVCell.protected("=1+2") == "'=1+2")
        #expect(CSVCell.protected("'=x") == "''=x")
        #expect(CSVCell.protected("'hello") == "'hello")
        #expect(CSVCell.unprotected("=1+2") == "=1+2", "another app's cell is left as it is")
    }

    @Test func onlyTextColumnsAreProtected() throws {
        let data = Exporter.writeCSV(header: ["title", "pageCount"], rows: [["-ism", "-3"]], textColumns: ["title"])
        #expect(String(decoding: data, as: UTF8.self) == "title,pageCount\n'-ism,-3\n")
        let table = try CSVTable.read(String(decoding: data, as: UTF8.self), path: "export.csv")
        #expect(table.rows.map(\.fields) == [["-ism", "-3"]])
    }
}
