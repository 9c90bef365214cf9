import Foundation
import Testing
import TestSupport

/// `rapidscan database copy` on the built binary: a SQLite library with a row in every table
/// copied to the throwaway PostgreSQL server and back to a new SQLite file, every stored row
/// compared (sqlite3's JSON of each table, and `export --format json`); a non-empty target
/// refused without `--replace`; a copy that fails part way leaves its target as it was.
@Suite struct DatabaseCopyCLITests {
    /// Every table of the SQLite catalogue with its key order (the FTS tables are derived).
    static let tables: [(name: String, order: String)] = [
        ("users", "id"), ("lists", "id"), ("works", "workKey"), ("isbnIndex", "isbn"), ("items", "id"),
        ("pendingLookups", "isbn"), ("processedFiles", "station, path"), ("importedRows", "station, fileHash, line"),
        ("notFoundCodes", "isbn"), ("spineReplies", "photoHash, reader"), ("spineReadings", "id"),
    ]

    /// Each table's rows as sqlite3 prints them (stored values, not what rapidscan reads back).
    static func storedRows(_ file: URL) async throws -> [String: String] {
        var rows: [String: String] = [:]
        for table in tables {
            let result = try await runProcess(URL(fileURLWithPath: "/usr/bin/sqlite3"),
                                              ["-json", file.path, "SELECT * FROM \(table.name) ORDER BY \(table.order)"])
            #expect(result.status == 0, "\(result.stderr)")
            rows[table.name] = result.stdout
        }
        return rows
    }

    static func sqlite(_ file: URL, _ sql: String) async throws {
        let result = try await runProcess(URL(fileURLWithPath: "/usr/bin/sqlite3"), [file.path, sql])
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// A library with rows in every table: books added, rated, listed and moved through the
    /// binary; the queues a scan, an import and the spine reader leave (pending lookups,
    /// scanned files, import rows per station, not-found codes, spine replies and readings)
    /// written as their stored rows.
    static func fullLibrary(_ harness: CLIHarness) async throws {
        #expect(try await harness.run("account", "--pro").status == 0)
        for (isbn, title, author) in [("9780306406157", "A Local History", "Ann Writer"), ("9780140449136", "Crime and Punishment", "Fyodor Dostoevsky"),
                                      ("9780262033848", "Introduction to Algorithms", "Thomas Cormen")] {
            let added = try await harness.run("library", "add", isbn, "--title", title, "--author", author, "--station", "desk-1")
            #expect(added.status == 0, "\(added.stderr)")
        }
        #expect(try await harness.run("library", "set", "9780140449136", "--rating", "5", "--notes", "Reread: «épilogue»", "--status", "read").status == 0)
        #expect(try await harness.run("library", "lists", "create", "Shelf B").status == 0)
        #expect(try await harness.run("library", "move", "9780262033848", "--to", "Shelf B").status == 0)
        try await sqlite(harness.database, """
            INSERT INTO pendingLookups VALUES ('9780131103627', 'timeout', 'googleBooks', 2, '{"addOwned":true,"format":"physical"}',
                '2026-11-27 10:00:00.125', '2026-11-27 10:05:00.250', '2026-11-27 11:05:00.375');
            INSERT INTO processedFiles VALUES ('desk-1', '/photos/a.jpg', 1234, 1764237600.5, 'added', '2026-11-27 10:00:01.000');
            INSERT INTO processedFiles VALUES ('', '/photos/old.jpg', 99, 1700000000.0, 'noCode', '2025-01-01 00:00:00.000');
            INSERT INTO importedRows VALUES ('desk-1', 'abc123', 2, 'added'), ('desk-2', 'abc123', 3, 'alreadyPresent');
            INSERT INTO notFoundCodes VALUES ('9791234567896', 'shelf.jpg', '2026-11-26 09:00:00.000', '2026-11-27 09:00:00.999', 3);
            INSERT INTO spineReplies VALUES ('photohash1', 'model-a', 'shelf.jpg', X'5B7B227469746C65223A2278227D5D', 10, 20, 0, '2026-11-27 08:00:00.000');
            INSERT INTO spineReadings VALUES (7, 'photohash1', 'model-a', 0, 'shelf.jpg', 'CRIME AND PUNISHMENT', 'match', 0.125,
                NULL, '9780140449136', 'Crime and Punishment', '["Fyodor Dostoevsky"]', 'review', NULL, '2026-11-27 08:00:01.000',
                '\(Self.spineBox)');
            INSERT INTO spineReadings VALUES (8, 'photohash1', 'model-a', 1, 'shelf.jpg', 'INTRODUCTION TO', 'medium', 0.25,
                NULL, '9780262033848', 'Introduction to Algorithms', '["Thomas Cormen"]', 'review', NULL, '2026-11-27 08:00:02.000', NULL);
            """)
    }

    /// A leaning spine read top to bottom, as `SpineBox` stores it.
    static let spineBox = #"{"corners":[[612.4,40],[590,800.5],[530,798],[552.6,38]],"height":840,"width":1800}"#

    @Test func aLibraryGoesToPostgreSQLAndBackWithEveryRowKept() async throws {
        let cluster = try PostgresTestCluster.shared()
        let database = try cluster.createDatabase()
        defer { cluster.dropDatabase(database) }
        let harness = try CLIHarness()
        try await Self.fullLibrary(harness)
        let url = cluster.url(database: database)
        let shown = cluster.url(database: database, withPassword: false)

        let up = try await harness.run("database", "copy", harness.database.path, url)
        #expect(up.status == 0, "\(up.stderr)")
        #expect(up.stdout.contains("Copied \(harness.database.path) to \(shown)"), "\(up.stdout)")
        #expect(up.stdout.contains("3 items") && up.stdout.contains("2 spine readings"), "\(up.stdout)")
        #expect(!up.stdout.contains(cluster.password) && !up.stderr.contains(cluster.password))

        // The server's library reads as the file's: the same books, search and station.
        let local = try await harness.run("library", "list", "--json", "punishment")
        let server = try await harness.run("library", "list", "--json", "punishment", "--db", url)
        #expect(server.status == 0, "\(server.stderr)")
        #expect(server.jsonLines.filter { $0["event"] as? String == "item" }.count == 1 && server.stdout == local.stdout, "\(server.stdout)\n\(local.stdout)")
        // Every way of listing prints the same bytes from either catalogue (PostgreSQL's rows are
        // read by column and its lines written without JSONEncoder; "N of M" is its counter).
        for query in [["--json"], [], ["--all", "--json"], ["--sort", "title", "--limit", "2"], ["--json", "--sort", "author", "--limit", "1"],
                      ["--all", "--limit", "1"], ["status:read", "--json"], ["list:Shelf B"], ["station:desk-1", "--sort", "rating"],
                      ["--format", "{isbn}\t{title}\t{authors}\t{list}\t{added}"]] {
            let onFile = try await harness.run(["library", "list"] + query)
            let onServer = try await harness.run(["library", "list"] + query + ["--db", url])
            #expect(onFile.status == 0 && onServer.status == 0, "\(query): \(onServer.stderr)")
            #expect(!onFile.stdout.isEmpty && onServer.stdout == onFile.stdout, "\(query):\n\(onServer.stdout)\n\(onFile.stdout)")
        }
        #expect(try await harness.run("library", "list", "--limit", "1", "--db", url).stdout.contains("1 of 3 books owned."))
        // The server's schema is current by its own migrations, not the SQLite file's names.
        let shownDatabase = try await harness.run("database", "--db", url)
        #expect(shownDatabase.stdout.contains("(current)") && !shownDatabase.stdout.contains("this rapidscan's is"), "\(shownDatabase.stdout)")

        // A target holding a library is refused, untouched, unless --replace.
        let again = try await harness.run("database", "copy", harness.database.path, url)
        #expect(again.status == 1)
        #expect(again.stderr.contains("\(shown) already holds a library") && again.stderr.contains("--replace"), "\(again.stderr)")

        // Replaced by a copy, the server counts the books copied, not those it held before.
        #expect(try await harness.run("library", "add", "9780131103627", "--title", "Other", "--author", "X", "--db", url).status == 0)
        #expect(try await harness.run("library", "list", "--limit", "1", "--db", url).stdout.contains("1 of 4 books owned."))
        let replacedOnServer = try await harness.run("database", "copy", harness.database.path, url, "--replace")
        #expect(replacedOnServer.status == 0, "\(replacedOnServer.stderr)")
        let counted = try await harness.run("library", "list", "--all", "--limit", "1", "--db", url)
        #expect(counted.stdout.contains("1 of 3 books (all items)."), "\(counted.stdout)")

        let back = harness.directory.appendingPathComponent("back.sqlite")
        let down = try await harness.run("database", "copy", url, back.path)
        #expect(down.status == 0, "\(down.stderr)")
        let original = try await Self.storedRows(harness.database)
        let returned = try await Self.storedRows(back)
        for table in Self.tables {
            #expect(original[table.name] == returned[table.name], "\(table.name):\n\(original[table.name] ?? "")\n\(returned[table.name] ?? "")")
            #expect(original[table.name]?.isEmpty == false, "\(table.name) has no row to compare")
        }
        // The spine's box went there and back, and the reading without one came back without.
        let box = Self.spineBox.replacingOccurrences(of: "\"", with: "\\\"")
        #expect(returned["spineReadings"]?.contains("\"box\":\"\(box)\"") == true, "\(returned["spineReadings"] ?? "")")
        #expect(returned["spineReadings"]?.contains("\"box\":null") == true, "\(returned["spineReadings"] ?? "")")
        let reviewed = try await harness.run("review", "--json", "--db", url)
        #expect(reviewed.jsonLines.compactMap { ($0["box"] as? [String: Any])?["width"] as? Int } == [1800], "\(reviewed.stdout)")
        // The export of both files, the moment it was made aside.
        func exported(_ file: URL) async throws -> String {
            let result = try await harness.run("export", "--format", "json", "--db", file.path)
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.replacing(/"exportedAt" *: *"[^"]*"/, with: "")
        }
        let exportedHere = try await exported(harness.database)
        #expect(exportedHere.contains("Crime and Punishment"))
        #expect(try await exported(back) == exportedHere)

        // SQLite to SQLite, and --replace over a library that holds books.
        let copy = harness.directory.appendingPathComponent("copy.sqlite")
        #expect(try await harness.run("library", "add", "9780131103627", "--title", "Other", "--author", "X", "--db", copy.path).status == 0)
        let replaced = try await harness.run("database", "copy", harness.database.path, copy.path, "--replace")
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try await Self.storedRows(copy) == original)
    }

    @Test func aCopyThatFailsLeavesItsTargetAsItWas() async throws {
        let cluster = try PostgresTestCluster.shared()
        let database = try cluster.createDatabase()
        defer { cluster.dropDatabase(database) }
        let harness = try CLIHarness()
        let url = cluster.url(database: database)
        #expect(try await harness.run("library", "add", "9780306406157", "--title", "Kept", "--author", "Ann Writer", "--db", url).status == 0)
        let kept = harness.directory.appendingPathComponent("kept.sqlite")
        #expect(try await harness.run("library", "add", "9780306406157", "--title", "Kept", "--author", "Ann Writer", "--db", kept.path).status == 0)
        let keptRows = try await Self.storedRows(kept)

        // A source whose last item names a list that does not exist (written with foreign keys off):
        // every target refuses that row, after the earlier rows were written.
        try await Self.fullLibrary(harness)
        try await Self.sqlite(harness.database, """
            PRAGMA foreign_keys = OFF;
            INSERT INTO items (id, listId, userId, bookId, isbn, title, authors, status, liked, addedAt, updatedAt, isOwned)
            SELECT 'zz-orphan', 'no-such-list', userId, bookId, '9780000000002', title, authors, status, liked, '2030-01-01 00:00:00.000',
                updatedAt, 0 FROM items LIMIT 1;
            """)
        for target in [url, kept.path] {
            let failed = try await harness.run("database", "copy", harness.database.path, target, "--replace")
            #expect(failed.status != 0, "\(target)")
            #expect(!failed.stderr.contains(cluster.password))
        }
        // A source with a value that cannot be read is not copied at all (a copy without it would pass for the whole library).
        try await Self.sqlite(harness.database, "DELETE FROM items WHERE id = 'zz-orphan'; UPDATE notFoundCodes SET isbn = '9791234567890'")
        let damaged = try await harness.run("database", "copy", harness.database.path, url, "--replace")
        #expect(damaged.status == 1)
        #expect(damaged.stderr.contains("notFoundCodes row") && damaged.stderr.contains("nothing was copied"), "\(damaged.stderr)")
        let listed = try await harness.run("library", "list", "--json", "--db", url)
        #expect(listed.jsonLines.compactMap { $0["title"] as? String } == ["Kept"], "\(listed.stdout)")
        #expect(try await Self.storedRows(kept) == keptRows)
    }

    @Test func progressIsDrawnOnATerminal() async throws {
        let harness = try CLIHarness()
        try await Self.fullLibrary(harness)
        let target = harness.directory.appendingPathComponent("terminal.sqlite")
        let result = try await harness.runOnTerminal(["database", "copy", harness.database.path, target.path], environment: [:])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("rows") && result.stdout.contains("\u{1B}[2K"), "\(result.stdout)")
    }
}
