import Foundation
import Testing
import TestSupport

/// `rapidscan lookup`, `search`, `pending` and `cache stats` through the real binary.
@Suite struct LookupCLITests {
    static let volumes = "/books/v1/volumes"

    func googleHasCraftingInterpreters(_ harness: CLIHarness) throws {
        try harness.server.replay(Self.volumes, fixture: "googlebooks/volumes_isbn_9780990582939_no_edge_curl_us.json",
                                  query: ["q": "isbn:9780990582939"])
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func lookupPrintsTheWorkThenServesItFromTheCache() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        try googleHasCraftingInterpreters(harness)

        let first = try await harness.run("lookup", "0-9905829-3-0")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("Crafting Interpreters — Robert Nystrom (2021)"))
        #expect(first.stdout.contains("978-0-9905829-3-9"))
        #expect(first.stdout.contains("work craftinginterpreters_robertnystrom"))
        #expect(harness.server.requests.count == 1)

        harness.server.clearRequests()
        let second = try await harness.run("lookup", "--offline", "--json", "9780990582939")
        #expect(second.status == 0, "\(second.stderr)")
        let line = try #require(second.jsonLines.first)
        #expect(line["status"] as? String == "found" && line["fromCache"] as? Bool == true)
        let work = try #require(line["work"] as? [String: Any])
        #expect(work["workKey"] as? String == "craftinginterpreters_robertnystrom")
        #expect(work["editions"] as? [String] == ["9780990582939"])
        #expect(work["coverImageUrl"] as? String == "https://books.google.com/books/content?id=ySOBzgEACAAJ&printsec=frontcover&img=1&zoom=1&source=gbs_api")
        #expect(harness.server.requests.isEmpty)
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func invalidValuesAreReportedAndTheBatchGoesOn() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        try googleHasCraftingInterpreters(harness)
        try harness.server.replay(Self.volumes, fixture: "googlebooks/volumes_zero_results_no_items_key.json", query: ["q": "isbn:9780306406157"])
        try harness.server.replay("/isbn/9780306406157.json", fixture: "openlibrary/error_404_notfound.json", status: 404)

        let result = try await harness.run("lookup", "--file", "-", input: "978-0-306-40615-8\n9780306406157  # no such book\n\n9780990582939\n")
        // A value that is not an ISBN is unusable input: 1 in the one exit table (was 4).
        #expect(result.status == 1)
        #expect(result.stderr.contains("978-0-306-40615-8: not a valid ISBN"))
        #expect(result.stderr.contains("check digit"))
        #expect(result.stdout.contains("978-0-306-40615-7  Book Not Found"))
        #expect(result.stdout.contains("Crafting Interpreters"))

        let notFoundOnly = try await harness.run("lookup", "9780306406157")
        #expect(notFoundOnly.status == 2)
        let missingFile = harness.directory.appendingPathComponent("no-such-list.txt").path
        let unreadable = try await harness.run("lookup", "--file", missingFile)
        #expect(unreadable.status == 1 && unreadable.stderr.contains("cannot read \(missingFile)"))
        let stats = try await harness.run("cache", "stats", "--json")
        let counts = try #require(stats.jsonLines.first?["stats"] as? [String: Any])
        #expect(counts["works"] as? Int == 1 && counts["pendingLookups"] as? Int == 0)
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func unavailableLookupsAreQueuedAndPendingRetryResolvesThem() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        try googleHasCraftingInterpreters(harness)
        await harness.server.stop()

        let queued = try await harness.run("lookup", "9780990582939")
        #expect(queued.status == 3)
        // The reason in words, the source by its name (the id stays in --json).
        #expect(queued.stdout.contains("Queued — Google Books did not answer ("), "\(queued.stdout)")
        #expect(queued.stdout.contains("`rapidscan pending retry` looks it up once a source answers") && !queued.stdout.contains("googleBooks"))
        let listed = try await harness.run("pending")
        #expect(listed.status == 0)
        #expect(listed.stdout.contains("978-0-9905829-3-9  look up · 1 attempt"))
        #expect(listed.stdout.contains("1 pending."))

        let stillDown = try await harness.run("pending", "retry")
        #expect(stillDown.status == 3)
        #expect(stillDown.stdout.contains("Still queued"))

        try await harness.server.start()
        let retried = try await harness.run("pending", "retry", "--json")
        #expect(retried.status == 0, "\(retried.stderr)")
        let line = try #require(retried.jsonLines.first)
        #expect(line["status"] as? String == "found" && line["title"] as? String == "Crafting Interpreters")
        #expect(try await harness.run("pending").stdout.contains("No lookups are pending."))
        let stats = try await harness.run("cache", "stats")
        #expect(stats.stdout.contains("works          1"))
        #expect(stats.stdout.contains("isbnIndex rows 1"))
        #expect(stats.stdout.contains("pending        0"))
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func searchAsksGoogleBooksThenAnswersFromTheCache() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        try harness.server.replay(Self.volumes, fixture: "googlebooks/volumes_search_intitle_the_stranger_ro_pagecount0.json")

        let online = try await harness.run("search", "The Stranger", "--json")
        #expect(online.status == 0, "\(online.stderr)")
        let lines = online.jsonLines
        #expect(!lines.isEmpty && lines.allSatisfy { $0["source"] as? String == "googleBooks" })
        #expect(harness.server.requests.first?.query("q")?.contains("intitle:") == true)

        harness.server.clearRequests()
        let cached = try await harness.run("search", "stranger", "--offline")
        #expect(cached.status == 0)
        #expect(cached.stdout.contains("(from the local cache)"), "\(cached.stdout)")
        #expect(harness.server.requests.isEmpty)

        let none = try await harness.run("search", "Zzyzx Road", "--offline")
        #expect(none.status == 2 && none.stdout.contains("No books found."))
        let usage = try await harness.run("search", "  ")
        #expect(usage.status == 64 && usage.stderr.contains("The title is empty."))
    }
}
