import Foundation
import TestSupport
import Testing

/// Issue 36: a Goodreads export shelves each book as a Goodreads user expects, and an
/// import of it puts each book back in its status and list, through the real binary.
@Suite(.serialized) struct GoodreadsShelvesCLITests {
    /// The export's rows as a spreadsheet reads them (Python's csv module), by ISBN-13.
    static func spreadsheetRows(_ file: URL) async throws -> [String: [String: String]] {
        let script = """
            import csv, json, sys
            with open(sys.argv[1], newline="", encoding="utf-8") as f:
                print(json.dumps(list(csv.DictReader(f))))
            """
        let read = try await runProcess(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, file.path])
        #expect(read.status == 0, "\(read.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [[String: String]])
        // Goodreads' own ISBN cells: ="9780..." (keeps a spreadsheet from eating the digits).
        return Dictionary(rows.map { row in
            ((row["ISBN13"] ?? "").filter(\.isNumber), row)
        }, uniquingKeysWith: { first, _ in first })
    }

    @Test func anExportShelvesBooksAsGoodreadsDoesAndAnImportPutsThemBack() async throws {
        let harness = try await IntakeDoorsCLITests.harness(IntakeDoorsCLITests.Library())
        defer { Task { await harness.server.stop() } }
        #expect(try await harness.run("account", "--pro").status == 0)
        #expect(try await harness.run("library", "lists", "create", "Living Room").status == 0)
        let isbns = generatedISBNs(6, startingAt: 1, prefix: "97800").map(\.digits)
        // (ISBN, how it is added, Exclusive Shelf, Bookshelves, status and list read back)
        let books: [(isbn: String, add: [String], exclusive: String, shelves: String, status: String, list: String)] = [
            (isbns[0], ["--status", "read"], "read", "owned", "read", "Finished"),
            (isbns[1], ["--status", "reading"], "currently-reading", "owned", "reading", "Want to Read"),
            // Scanned or added without a word: on Want to Read, so "to-read".
            (isbns[2], [], "to-read", "owned", "unread", "Want to Read"),
            // Owned, unread, on a list of the user's: not "want to read".
            (isbns[3], ["--list", "Living Room"], "unread", "unread, Living Room, owned", "unread", "Living Room"),
            (isbns[4], ["--list", "Living Room", "--status", "read"], "read", "Living Room, owned", "read", "Living Room"),
            (isbns[5], ["--status", "notInterested"], "not-interested", "not-interested, owned", "notInterested", "Want to Read"),
        ]
        for book in books {
            let added = try await harness.run(["library", "add", book.isbn] + book.add)
            #expect(added.status == 0, "\(book.isbn): \(added.stderr)")
        }

        let file = harness.directory.appendingPathComponent("goodreads_library_export.csv")
        let export = try await harness.run("export", "--format", "goodreads", "--output", file.path)
        #expect(export.status == 0, "\(export.stderr)")
        let rows = try await Self.spreadsheetRows(file)
        #expect(rows.count == books.count)
        for book in books {
            let row = try #require(rows[book.isbn], "\(book.isbn) exported")
            #expect(row["Exclusive Shelf"] == book.exclusive, "\(book.isbn): \(row)")
            #expect(row["Bookshelves"] == book.shelves, "\(book.isbn): \(row)")
            #expect(row["Owned Copies"] == "1", "\(book.isbn): \(row)")
            #expect(row["Read Count"] == (book.status == "read" ? "1" : "0"), "\(book.isbn): \(row)")
        }

        // Into another library (Pro: the shelf becomes a list of its own).
        let other = try CLIHarness()
        other.extraEnvironment = harness.extraEnvironment.merging(harness.server.sourcesEnvironment()) { _, new in new }
        #expect(try await other.run("account", "--pro").status == 0)
        let imported = try await other.run("import", file.path)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("goodreads_library_export.csv: lists made for its shelves: Living Room"), "\(imported.stdout)")
        let listed = try await other.run("library", "list", "--json")
        let items = Dictionary(listed.jsonLines.filter { $0["event"] as? String == "item" }.map { ($0["isbn13"] as? String ?? "", $0) },
                               uniquingKeysWith: { first, _ in first })
        for book in books {
            let item = try #require(items[book.isbn], "\(book.isbn) imported")
            #expect(item["status"] as? String == book.status, "\(book.isbn): \(item)")
            #expect(item["listName"] as? String == book.list, "\(book.isbn): \(item)")
            #expect(item["isOwned"] as? Bool == true, "\(book.isbn): \(item)")
        }
        let lists = try await other.run("library", "lists")
        #expect(lists.stdout.contains("Living Room · 2 books"), "\(lists.stdout)")

        // The free plan has no custom lists: the books still come in, on the default lists,
        // and the shelf that was not made a list is named once, with why.
        let free = try CLIHarness()
        free.extraEnvironment = other.extraEnvironment
        let freeImport = try await free.run("import", file.path)
        #expect(freeImport.status == 0, "\(freeImport.stderr)")
        let said = freeImport.stderr.components(separatedBy: "shelves kept on the default lists: Living Room — custom lists need Pro")
        #expect(said.count == 2, "\(freeImport.stderr)")
        let freeItems = try await free.run("library", "list", "--json").jsonLines.filter { $0["event"] as? String == "item" }
        #expect(freeItems.count == books.count)
        #expect(freeItems.allSatisfy { ($0["listName"] as? String) != "Living Room" })
    }
}
