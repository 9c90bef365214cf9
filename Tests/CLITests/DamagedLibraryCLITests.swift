import Foundation
import Testing
import TestSupport

/// A library with bad stored values, a crafted backup, a database from a newer rapidscan and
/// a read-only folder holding an un-checkpointed WAL: through the real binary on real SQLite
/// files, damaged with the sqlite3 command-line tool as another program (or a bad disk) would.
@Suite struct DamagedLibraryCLITests {
    static let stamp = "2024-03-01T10:00:00.000Z"

    /// A rapidscan JSON export: five works in the cache, the first four owned books in Want to Read.
    static let books = [("9780306406157", "Local History"), ("9780441013593", "Dune"), ("9780553293357", "Foundation"),
                        ("9780743273565", "The Great Gatsby"), ("9780316030571", "Cached Only")]

    static func backup(items overrides: [[String: Any]]? = nil, ownedBooks: Int = 4) throws -> Data {
        let works: [[String: Any]] = books.map { code, title in
            ["workKey": "w-\(code)", "title": title, "authors": ["Author \(code)"], "primaryAuthor": "Author \(code)",
             "categories": [String](), "language": "en", "editions": [code], "primaryIsbn": code, "editionCount": 1,
             "apiSource": "googleBooks", "createdAt": stamp, "updatedAt": stamp, "totalReaders": 0, "ratingsCount": 0]
        }
        let index: [[String: Any]] = books.map { code, _ in
            ["isbn": code, "workKey": "w-\(code)", "format": "paperback", "indexedAt": stamp, "apiSource": "googleBooks", "metadataScore": 3]
        }
        let lists: [[String: Any]] = [
            ["id": "local_toRead", "name": "Want to Read", "ownerId": "local", "ownerName": "Local user", "isPublic": false,
             "shareCode": "ABCDEF", "listType": "toRead", "isDefault": true, "itemCount": ownedBooks, "createdAt": stamp, "updatedAt": stamp],
        ]
        let items: [[String: Any]] = overrides ?? books.prefix(ownedBooks).enumerated().map { offset, book in
            item(id: "item-\(offset)", isbn: book.0, title: book.1, day: offset + 1)
        }
        let export: [String: Any] = ["rapidscanExport": 1, "exportedAt": stamp, "works": works, "isbnIndex": index, "lists": lists, "items": items]
        return try JSONSerialization.data(withJSONObject: export, options: [.prettyPrinted, .sortedKeys])
    }

    static func item(id: String, isbn: String, title: String, day: Int, listId: String = "local_toRead") -> [String: Any] {
        ["id": id, "listId": listId, "userId": "local", "bookId": "w-\(isbn)", "isbn": isbn, "title": title,
         "authors": ["Author \(isbn)"], "status": "unread", "liked": false, "isOwned": true, "ownedFormat": "physical",
         "addedAt": String(format: "2024-03-%02dT10:00:00.000Z", day), "updatedAt": stamp, "ownedAt": stamp]
    }

    /// A library restored from `backup()` through `rapidscan import` (in `folder` of the
    /// sandbox when given: `database` then names it).
    static func restoredLibrary(in folder: String? = nil) async throws -> (CLIHarness, URL) {
        let harness = try CLIHarness()
        var database = harness.database
        if let folder {
            let place = harness.directory.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true)
            database = place.appendingPathComponent("library.sqlite")
            harness.extraEnvironment["RAPIDSCAN_DB"] = database.path
        }
        let file = harness.directory.appendingPathComponent("backup.json")
        try backup().write(to: file)
        let restored = try await harness.run("import", file.path)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try await harness.ownedCount() == 4)
        return (harness, database)
    }

    /// Runs SQL on the library with the sqlite3 tool.
    static func sqlite(_ database: URL, _ sql: String) async throws {
        let result = try await runProcess(URL(fileURLWithPath: "/usr/bin/sqlite3"), [database.path, sql])
        #expect(result.status == 0, "sqlite3: \(result.stderr)")
    }

    @Test func damagedValuesAreNamedAndEveryCommandGoesOnWithTheRowsItCanRead() async throws {
        let (harness, _) = try await Self.restoredLibrary()
        try await Self.sqlite(harness.database, """
            UPDATE items SET addedAt = 'not a date' WHERE isbn = '9780306406157';
            UPDATE items SET rating = 99 WHERE isbn = '9780441013593';
            UPDATE items SET isbn = 'not-an-isbn' WHERE isbn = '9780553293357';
            UPDATE items SET pageCount = 'many', currentPage = -3 WHERE isbn = '9780743273565';
            UPDATE lists SET itemCount = -4 WHERE id = 'local_toRead';
            """)

        let list = try await harness.run("library", "list", "--json")
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.jsonLines.compactMap { $0["title"] as? String }.sorted() == ["Dune", "The Great Gatsby"])
        #expect(list.jsonLines.first { $0["title"] as? String == "Dune" }?["rating"] as? Int == nil)
        let warnings = list.stderr.split(separator: "\n").map(String.init)
        #expect(warnings.contains { $0.hasPrefix("rapidscan: warning: items row rowid 1, 'item-0': addedAt = 'not a date' is not a date; row skipped") },
                "\(list.stderr)")
        #expect(warnings.contains { $0.contains("items row rowid 3, 'item-2': isbn = 'not-an-isbn' is not an ISBN-13; row skipped") })
        #expect(warnings.contains { $0.contains("items row rowid 2, 'item-1': rating = 99 is outside 1...5; read without this field") })
        #expect(warnings.contains { $0.contains("'item-3': pageCount = 'many' is not a whole number; read without this field") })
        #expect(warnings.contains { $0.contains("'item-3': currentPage = -3 is outside 0...1000000; read without this field") })
        #expect(warnings.contains { $0.contains("lists row rowid 1, 'local_toRead': itemCount = -4 is negative; read without this field") })
        #expect(warnings.count == 6, "each damaged value once: \(list.stderr)")

        let show = try await harness.run("library", "show", "9780441013593")
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("Dune"))
        let lists = try await harness.run("library", "lists", "--json")
        #expect(lists.status == 0, "\(lists.stderr)")
        #expect(lists.jsonLines.first { $0["id"] as? String == "local_toRead" }?["itemCount"] as? Int == 0)
        #expect(lists.stderr.contains("lists row rowid 1, 'local_toRead': itemCount = -4 is negative; read without this field"))

        // Every format writes every row it can read.
        let json = try await harness.run("export", "--format", "json")
        #expect(json.status == 0, "\(json.stderr)")
        let exported = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((exported["items"] as? [[String: Any]])?.compactMap { $0["title"] as? String }.sorted() == ["Dune", "The Great Gatsby"])
        #expect(json.stderr.contains("addedAt = 'not a date'"))
        for format in ["csv", "goodreads", "firestore"] {
            let export = try await harness.run("export", "--format", format)
            #expect(export.status == 0, "\(format): \(export.stderr)")
            #expect(export.stdout.contains("The Great Gatsby") && export.stdout.contains("Dune") && !export.stdout.contains("Local History"), "\(format)")
        }
        let stats = try await harness.run("cache", "stats", "--json")
        #expect(stats.status == 0, "\(stats.stderr)")

        // Import and scan go on: the damaged book is an error naming its row, the others are filed.
        let list2 = harness.directory.appendingPathComponent("isbns.txt")
        try "9780316030571\n9780441013593\n".write(to: list2, atomically: true, encoding: .utf8)
        let imported = try await harness.run("import", "--offline", "--json", list2.path)
        #expect(imported.status != 132 && !imported.stderr.contains("Fatal error"), "\(imported.stderr)")
        #expect(imported.jsonLines.last?["imported"] as? Int == 1, "\(imported.stdout)")

        let photos = try harness.photoFolder("photos", ["isbn-9780306406157.png"])
        let scan = try await harness.run("scan", "--offline", "--json", photos.path)
        #expect(scan.status != 132 && !scan.stderr.contains("Fatal error"), "\(scan.stderr)")
        #expect((scan.stdout + scan.stderr).contains("items row rowid 1, 'item-0': addedAt = 'not a date' is not a date"), "\(scan.stdout)\n\(scan.stderr)")
        #expect(try await harness.ownedCount() == 5)
    }

    @Test func aCraftedBackupIsCheckedFieldByFieldAndItsBadRowsNamed() async throws {
        let harness = try CLIHarness()
        var bad = Self.item(id: "rated", isbn: "9780441013593", title: "Dune", day: 1)
        bad["rating"] = 99
        let items = [
            bad,
            Self.item(id: "not-isbn", isbn: "not-an-isbn", title: "Nothing", day: 2),
            Self.item(id: "lost", isbn: "9780553293357", title: "Foundation", day: 3, listId: "no-such-list"),
            Self.item(id: "good", isbn: "9780743273565", title: "The Great Gatsby", day: 4),
        ]
        let file = harness.directory.appendingPathComponent("crafted.json")
        try Self.backup(items: items).write(to: file)
        let result = try await harness.run("import", file.path)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("crafted.json:"))
        #expect(result.stderr.contains("items[0] 'rated': rating 99 is outside 1...5; not restored"), "\(result.stderr)")
        #expect(result.stderr.contains("items[1] 'not-isbn': isbn 'not-an-isbn' is not an ISBN"))
        #expect(result.stderr.contains("items[2] 'lost': listId 'no-such-list' is not a list in this backup"))
        #expect(result.stdout.contains("bad rows 3"))
        let list = try await harness.run("library", "list", "--json")
        #expect(list.status == 0 && list.stderr.isEmpty, "\(list.stderr)")
        #expect(list.jsonLines.compactMap { $0["title"] as? String } == ["The Great Gatsby"])
    }

    @Test func aDatabaseFromANewerRapidscanIsRefusedAndNeverWritten() async throws {
        let (harness, _) = try await Self.restoredLibrary()
        for damage in ["PRAGMA user_version = 7", "INSERT INTO grdb_migrations (identifier) VALUES ('v9-from-the-future')"] {
            try await Self.sqlite(harness.database, damage)
            let before = try Data(contentsOf: harness.database)
            for command in [["library", "list"], ["account", "--pro"], ["export", "--format", "json"], ["scan", "--offline", harness.directory.path]] {
                let result = try await harness.run(command)
                #expect(result.status == 70, "\(command): \(result.stderr)")
                #expect(result.stderr.contains("the database \(harness.database.path) was made by a newer rapidscan"), "\(result.stderr)")
                #expect(result.stderr.contains("Use that newer rapidscan"))
            }
            #expect(try Data(contentsOf: harness.database) == before)
            try await Self.sqlite(harness.database, "PRAGMA user_version = 0; DELETE FROM grdb_migrations WHERE identifier = 'v9-from-the-future'")
        }
        let account = try await harness.run("account", "--json")
        #expect(account.status == 0 && account.jsonLines.first?["plan"] as? String == "free", "\(account.stderr)")
    }

    /// A process died (kill -9) with committed pages still in the WAL, and the folder became
    /// read-only: the reading commands read everything, the WAL's pages included.
    @Test(.enabled(if: ReadOnlyLibrary.howToMake != nil, ReadOnlyLibrary.unavailableReason))
    func aReadOnlyFolderWithAnUncheckpointedWALIsReadWhole() async throws {
        let (harness, database) = try await Self.restoredLibrary(in: "ro")
        let folder = database.deletingLastPathComponent()
        // Python's sqlite3 commits into the WAL and exits without closing: no checkpoint.
        let crash = try await runProcess(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", """
            import os, sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.execute("PRAGMA wal_autocheckpoint = 0")
            db.execute("UPDATE users SET isPro = 1")
            db.execute("UPDATE items SET title = 'Dune (in the WAL)' WHERE isbn = '9780441013593'")
            db.commit()
            os._exit(0)
            """, database.path])
        #expect(crash.status == 0, "\(crash.stderr)")
        let walBytes = (try FileManager.default.attributesOfItem(atPath: database.path + "-wal")[.size] as? NSNumber)?.intValue ?? 0
        #expect(walBytes > 0)

        let list = try await ReadOnlyLibrary.run(folder, ["library", "list", "--json"], environment: harness.environment)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.jsonLines.compactMap { $0["title"] as? String }.contains("Dune (in the WAL)"))
        let account = try await ReadOnlyLibrary.run(folder, ["account", "--json"], environment: harness.environment)
        #expect(account.status == 0 && account.jsonLines.first?["plan"] as? String == "pro", "\(account.stderr)")
        let export = try await ReadOnlyLibrary.run(folder, ["export", "--format", "csv"], environment: harness.environment)
        #expect(export.status == 0 && export.stdout.contains("Dune (in the WAL)"), "\(export.stderr)")
        let stats = try await ReadOnlyLibrary.run(folder, ["cache", "stats", "--json"], environment: harness.environment)
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect((stats.jsonLines.first?["stats"] as? [String: Any])?["ownedItems"] as? Int == 4, "\(stats.stdout)")
        // A command that writes still says why it cannot.
        let write = try await ReadOnlyLibrary.run(folder, ["account", "--free"], environment: harness.environment)
        #expect(write.status == 70 && write.stderr.contains("read-only location"))
    }
}
