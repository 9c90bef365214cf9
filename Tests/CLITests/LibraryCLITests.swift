import Foundation
import Testing
import TestSupport

/// `rapidscan library …`, `import` and `export` through the real binary on a real database.
@Suite struct LibraryCLITests {
    static let volumes = "/books/v1/volumes"

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func addListSetRemoveAndNotFoundResolvedByHand() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        try harness.server.replay(Self.volumes, fixture: "googlebooks/volumes_isbn_9780990582939_no_edge_curl_us.json", query: ["q": "isbn:9780990582939"])
        try harness.server.replay(Self.volumes, fixture: "googlebooks/volumes_zero_results_no_items_key.json", query: ["q": "isbn:9780306406157"])
        try harness.server.replay("/isbn/9780306406157.json", fixture: "openlibrary/error_404_notfound.json", status: 404)

        let added = try await harness.run("library", "add", "--json", "0-9905829-3-0")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.jsonLines.first?["event"] as? String == "added" && added.jsonLines.first?["schema"] as? Int == 1)

        // Not found: remembered, exit 2, then added by hand as a manual work.
        let missing = try await harness.run("library", "add", "9780306406157")
        #expect(missing.status == 2 && missing.stderr.contains("--title"))
        let remembered = try await harness.run("library", "notfound", "--json")
        #expect(remembered.jsonLines.map { $0["isbn13"] as? String } == ["9780306406157"])
        let manual = try await harness.run("library", "add", "9780306406157", "--title", "A Local History", "--author", "Ann Writer", "--status", "reading")
        #expect(manual.status == 0, "\(manual.stderr)")
        #expect(try await harness.run("library", "notfound").stdout.isEmpty)

        // Words anywhere in title/author; a mistyped field is a usage error.
        let query = try await harness.run("library", "list", "--json", "nystrom")
        #expect(query.jsonLines.compactMap { $0["title"] as? String } == ["Crafting Interpreters"])
        let history = try await harness.run("library", "list", "--format", "{isbn}\\t{status}", "local", "writer")
        #expect(history.stdoutLines == ["9780306406157\treading"])
        #expect(try await harness.run("library", "list", "stauts:read").status == 64)

        let set = try await harness.run("library", "set", "9780990582939", "--status", "read", "--rating", "5", "--json")
        #expect(set.status == 0 && set.jsonLines.first?["rating"] as? Int == 5 && set.jsonLines.first?["finishedReadingAt"] is String)
        #expect(try await harness.run("library", "set", "9780990582939", "--rating", "7").status == 64)

        // More than one match without a terminal needs --yes.
        let refused = try await harness.run("library", "remove", "added:2000..2200")
        #expect(refused.status == 1 && refused.stderr.contains("--yes"))
        let removed = try await harness.run("library", "remove", "9780990582939")
        #expect(removed.status == 0)
        let lists = try await harness.run("library", "lists", "--json")
        let toRead = lists.jsonLines.first { $0["id"] as? String == "local_toRead" }
        #expect(toRead?["itemCount"] as? Int == 1)
        #expect(try await harness.ownedCount() == 1)
        #expect(try await harness.run("library", "show", "9780990582939").status == 2)
    }

    @Test func listRulesAndExitCodes() async throws {
        let harness = try CLIHarness()
        let delete = try await harness.run("library", "lists", "delete", "Want to Read")
        #expect(delete.status == 1 && delete.stderr.contains("default list"))
        let create = try await harness.run("library", "lists", "create", "Sci-fi")
        #expect(create.status == 1 && create.stderr.contains("Pro"))
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func importThenExportGoodreadsAndBadFilesSayWhere() async throws {
        try SharedFiles.requireShared()
        let fixture = try #require(SharedFiles.fixture("imports/synthetic/goodreads_library_export_24col.csv"))
        let harness = try CLIHarness()
        // Offline: nothing is cached, so every ISBN row is queued for `pending retry`; the row without an ISBN is not found.
        let binary = harness.directory.appendingPathComponent("photo.csv")
        try Data([0x89, 0x50, 0x4E, 0x47, 0, 0, 0, 1]).write(to: binary)
        let result = try await harness.run("import", "--offline", "--json", fixture.path, binary.path)
        #expect(result.status == 1, "\(result.stderr)")
        let summary = try #require(result.jsonLines.last)
        #expect(summary["event"] as? String == "summary" && summary["queued"] as? Int == 5 && summary["notFound"] as? Int == 1)
        #expect(result.jsonLines.contains { $0["event"] as? String == "failed" && ($0["error"] as? String)?.contains(binary.path) == true })
        let pending = try await harness.run("pending", "--json")
        #expect(pending.jsonLines.count >= 5)

        let export = try await harness.run("export", "--format", "firestore")
        #expect(export.status == 0)
        let root = try JSONSerialization.jsonObject(with: Data(export.stdout.utf8)) as? [String: Any]
        #expect(Set(root?.keys.map { $0 } ?? []) == ["works", "isbnIndex", "items", "lists", "users"])
    }
}

/// Issue 9: a 2,000-ISBN import killed with SIGKILL part-way, then run again, owns every
/// book exactly once (the resume record and the library are written together).
@Suite struct ImportKillTests {
    /// `count` valid ISBN-13s, 978-0-00000001-? upwards.
    static func isbns(_ count: Int) -> [String] {
        generatedISBNs(count, startingAt: 1, prefix: "978").map(\.digits)
    }

    @Test func killedImportResumesWithEveryBookOnce() async throws {
        let harness = try CLIHarness()
        // Google Books knows every ISBN asked for: a volume titled after it.
        harness.server.route("/books/v1/volumes") { request in
            let q = request.queryItems.first { $0.name == "q" }?.value ?? ""
            let isbn = q.replacingOccurrences(of: "isbn:", with: "")
            let volume: [String: Any] = ["totalItems": 1, "items": [["volumeInfo": [
                "title": "Book \(isbn)", "authors": ["Author \(isbn.suffix(4))"],
                "industryIdentifiers": [["type": "ISBN_13", "identifier": isbn]],
            ]]]]
            return FixtureResponse(headers: ["Content-Type": "application/json"],
                                   body: (try? JSONSerialization.data(withJSONObject: volume)) ?? Data())
        }
        try await harness.server.start()
        defer { Task { await harness.server.stop() } }
        #expect(try await harness.run("account", "--pro").status == 0)
        let isbns = Self.isbns(2000)
        let list = harness.directory.appendingPathComponent("isbns.txt")
        try (isbns.joined(separator: "\n") + "\n").write(to: list, atomically: true, encoding: .utf8)

        let first = try await harness.start(["import", "--json", list.path])
        try await first.waitFor("some rows imported") { $0.stdout.components(separatedBy: "\"added\"").count > 150 }
        first.signal(SIGKILL)
        let killed = await first.finish()
        #expect(killed.status != 0, "killed mid-import")

        let second = try await harness.run(["import", "--json", list.path])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try await harness.ownedCount() == 2000)
        let listed = try await harness.run(["library", "list", "--json"])
        let owned = listed.jsonLines.compactMap { $0["isbn13"] as? String }
        #expect(owned.count == 2000 && Set(owned) == Set(isbns), "every book exactly once")
    }
}
