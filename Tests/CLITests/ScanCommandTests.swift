import Foundation
import TestSupport
import Testing

/// `rapidscan scan` end to end: the real binary, a real SQLite library, real libzbar on
/// SampleImages, lookups over loopback HTTP replaying recorded Google Books/Open Library answers.
@Suite(.serialized) struct ScanCommandTests {
    private static let books = [
        "isbn-9780990582939-noprice.png", "isbn-9781250313188-usd.png", "isbn-9781761186769-aud.png",
    ]

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func addsTheBooksOnceAndResumes() async throws {
        try SharedFiles.requireShared()
        let harness = try CLIHarness()
        try await harness.startServer()
        defer { Task { await harness.server.stop() } }
        let folder = try harness.photoFolder("photos", Self.books + [
            "isbn-9791090636071.png",  // a book no source knows
            "ean13-4006381333931.png",  // a product, not a book
            "none-blank.png",
        ])
        try Data("hello".utf8).write(to: folder.appendingPathComponent("zz-broken.jpg"))

        let first = try await harness.run(["scan", "--json", folder.path])
        #expect(first.status == 1, "an unreadable file makes the exit status 1: \(first.stderr)")
        #expect(Set(first.events("added").compactMap { $0["isbn13"] as? String })
            == ["9780990582939", "9781250313188", "9781761186769"])
        #expect(first.events("added").allSatisfy { ($0["title"] as? String)?.isEmpty == false })
        #expect(first.events("notFound").compactMap { $0["isbn13"] as? String } == ["9791090636071"])
        // Not found is remembered with its photo, to retry or enter by hand.
        let remembered = try await harness.run(["library", "notfound", "--json"])
        #expect(remembered.stdout.contains("9791090636071"), "\(remembered.stdout)\(remembered.stderr)")
        #expect(first.events("nonBook").compactMap { $0["code"] as? String } == ["4006381333931"])
        #expect(first.events("noCode").count == 1)
        let unreadable = try #require(first.events("unreadable").first)
        #expect((unreadable["file"] as? String)?.hasSuffix("zz-broken.jpg") == true)
        #expect((unreadable["reason"] as? String)?.contains("zz-broken.jpg") == true)
        #expect(first.events.allSatisfy { ($0["captureTime"] as? String)?.hasSuffix("Z") == true })
        #expect(first.summary?["added"] as? Int == 3)
        #expect(try await harness.ownedCount() == 3)

        // Same command again: every readable file is remembered, nothing is added twice.
        let again = try await harness.run(["scan", "--json", folder.path])
        #expect(again.events("added").isEmpty)
        #expect(again.summary?["alreadyProcessed"] as? Int == 6)
        #expect(again.events("unreadable").count == 1, "the broken file is reported again, not remembered")
        #expect(try await harness.ownedCount() == 3)

        // A second photo of an owned book.
        try harness.addPhoto("isbn-9781250313188-usd.jpg", to: folder, as: "second-photo.jpg", modified: Date())
        try FileManager.default.removeItem(at: folder.appendingPathComponent("zz-broken.jpg"))
        let second = try await harness.run(["scan", "--json", folder.path])
        #expect(second.status == 0)
        #expect(second.events.map { $0["event"] as? String } == ["alreadyOwned"])
        #expect(second.events.first?["title"] as? String != nil)
        #expect(try await harness.ownedCount() == 3)

        // --rescan reads everything again: all already owned.
        let rescan = try await harness.run(["scan", "--json", "--rescan", folder.path])
        #expect(rescan.events("alreadyOwned").count == 4)
        #expect(rescan.events("added").isEmpty)
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func humanOutputShowsToastsAndSummary() async throws {
        try SharedFiles.requireShared()
        let harness = try CLIHarness()
        try await harness.startServer()
        defer { Task { await harness.server.stop() } }
        let folder = try harness.photoFolder("photos", [Self.books[0], Self.books[0]])
        let result = try await harness.run(["scan", folder.path])
        #expect(result.status == 0)
        #expect(result.stdout.contains("✓ Added to Library — "))
        #expect(result.stdout.contains("= Already in Library — "), "the same book 10 s later is processed again")
        #expect(result.stdout.contains("Added to Library:   1"))
        #expect(!result.stderr.contains("["), "no progress bar when stderr is not a terminal")
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func offlineQueuesAndPendingRetryAddsThem() async throws {
        try SharedFiles.requireShared()
        let harness = try CLIHarness()
        try await harness.startServer()
        await harness.server.stop()  // both sources down
        let folder = try harness.photoFolder("photos", Self.books)
        let down = try await harness.run(["scan", "--json", folder.path])
        #expect(down.status == 3, "queued books make the exit status 3: \(down.stderr)")
        #expect(down.events("queued").count == 3)
        #expect(try await harness.ownedCount() == 0)

        try await harness.server.start()
        defer { Task { await harness.server.stop() } }
        let retry = try await harness.run(["pending", "retry"])
        #expect(retry.status == 0, "\(retry.stdout) \(retry.stderr)")
        #expect(try await harness.ownedCount() == 3)
        // The scan's files were settled (queued books live in pendingLookups): nothing rescanned.
        let again = try await harness.run(["scan", "--json", folder.path])
        #expect(again.summary?["alreadyProcessed"] as? Int == 3)
    }

    /// Sources that keep failing are paused: later books are queued without asking them.
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func failingSourcesArePausedAndEveryBookQueued() async throws {
        try SharedFiles.requireShared()
        let harness = try CLIHarness()
        try harness.server.replay("/books/v1/volumes", fixture: "googlebooks/error_503_backend_failed.json", status: 503)
        try harness.server.replay("/isbn/*", fixture: "openlibrary/error_404_notfound.json", status: 503)
        try await harness.server.start()
        defer { Task { await harness.server.stop() } }
        let sevenBooks = [
            "isbn-9780306406157.png", "isbn-9781250313188-usd.png", "isbn-9780990582939-noprice.png",
            "isbn-9781761186769-aud.png", "isbn-9782070427796-gbp.png", "isbn-9791090636071.png",
            "isbn-9780316030571-small.png",
        ]
        let folder = try harness.photoFolder("photos", sevenBooks)
        let result = try await harness.run(["scan", "--json", folder.path])
        #expect(result.status == 3)
        #expect(Set(result.events("queued").compactMap { $0["isbn13"] as? String }).count == 7)
        #expect(result.events("queued").allSatisfy { ($0["reason"] as? String)?.isEmpty == false })
        #expect(harness.server.requests(to: "/books/v1/volumes").count < 7, "later books did not wait for the failing sources")
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func offlineFlagNeverTouchesTheNetwork() async throws {
        try SharedFiles.requireShared()
        let harness = try CLIHarness()
        try await harness.startServer()
        defer { Task { await harness.server.stop() } }
        let folder = try harness.photoFolder("photos", [Self.books[0]])
        let result = try await harness.run(["scan", "--json", "--offline", folder.path])
        #expect(result.status == 3)
        #expect(result.events("queued").first?["source"] as? String == "offline")
        #expect(harness.server.requests.isEmpty)
    }

    /// kill -9 in the middle of a scan, run again: every book owned exactly once.
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func killedScanResumesWithoutDuplicates() async throws {
        try SharedFiles.requireShared()
        let harness = try CLIHarness()
        try await harness.startServer()
        defer { Task { await harness.server.stop() } }
        let samples = (0..<12).flatMap { _ in Self.books + ["none-scene.jpg"] }
        let folder = try harness.photoFolder("many", samples)
        let running = try await harness.start(["scan", "--json", "--workers", "2", folder.path])
        try await running.waitFor("the first book added") { $0.stdout.contains(#""event":"added""#) }
        running.signal(SIGKILL)
        let killed = await running.finish()
        #expect(killed.status == SIGKILL || killed.summary == nil)

        let resumed = try await harness.run(["scan", "--json", folder.path])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try await harness.ownedCount() == 3)
        let processedBefore = resumed.summary?["alreadyProcessed"] as? Int ?? 0
        #expect(processedBefore + (resumed.summary?["frames"] as? Int ?? 0) == samples.count)
        // The kill may land between a book's commit and its event line, so count in the
        // library: three items, and no book reported added twice.
        let added = parseJSONLines(killed.stdout + resumed.stdout)
            .filter { $0["event"] as? String == "added" }.compactMap { $0["isbn13"] as? String }
        #expect(added.count == Set(added).count, "no book added twice")
    }

    /// Ctrl-C cancels the lookups in flight instead of waiting out their time-outs: with a
    /// 120 s time-out on a server that never answers, the run still ends at once, the
    /// books in flight queued for `pending retry`.
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func ctrlCCancelsLookupsInFlight() async throws {
        try SharedFiles.requireShared()
        let harness = try CLIHarness(server: FixtureServer(hangLimit: .seconds(300)))
        harness.extraEnvironment["RAPIDSCAN_HTTP_TIMEOUT"] = "120"
        harness.extraEnvironment["RAPIDSCAN_HTTP_RETRIES"] = "0"
        harness.server.neverAnswer("/books/v1/volumes")
        try await harness.server.start()
        defer { Task { await harness.server.stop() } }
        let folder = try harness.photoFolder("hung", Array(Self.books.prefix(3)))
        let running = try await harness.start(["scan", "--json", folder.path])
        try await running.waitFor("the first lookup") { _ in !harness.server.requests.isEmpty }
        running.signal(SIGINT)
        let result = await running.finish()
        #expect(result.status == 130, "\(result.stderr)")
        let summary = try #require(result.summary)
        let elapsed = try #require(summary["elapsedSeconds"] as? Double)
        #expect(elapsed < 60, "a lookup waited for its 120 s time-out instead of being cancelled")
        #expect(result.events("queued").count >= 1)
        #expect(result.events("added").isEmpty)
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func ctrlCFinishesInFlightFramesAndExits130() async throws {
        try SharedFiles.requireShared()
        let harness = try CLIHarness()
        harness.extraEnvironment["RAPIDSCAN_HTTP_TIMEOUT"] = "2"
        // Google Books holds the first lookup until the client times out: the scan is
        // certainly mid-run when the signal arrives.
        harness.server.neverAnswer("/books/v1/volumes")
        try harness.server.replay("/isbn/*", fixture: "openlibrary/error_404_notfound.json", status: 404)
        try await harness.server.start()
        defer { Task { await harness.server.stop() } }
        let samples = Array(repeating: Self.books[0], count: 40)
        let folder = try harness.photoFolder("many", samples)
        let running = try await harness.start(["scan", "--json", folder.path])
        try await running.waitFor("the first lookup") { _ in !harness.server.requests.isEmpty }
        running.signal(SIGINT)
        let result = await running.finish()
        #expect(result.status == 130)
        let summary = try #require(result.summary)
        #expect(summary["interrupted"] as? Bool == true)
        let frames = try #require(summary["frames"] as? Int)
        #expect(frames >= 1 && frames < samples.count, "stopped early, after the frames in flight")
        #expect(result.events("queued").count == frames, "every frame in flight finished and was reported")
        // A frame whose lookup was cut by the signal is not remembered (37.7): the next run
        // reads it again with the rest; only frames settled before the signal are skipped.
        let resumed = try await harness.run(["scan", "--json", "--offline", folder.path])
        let skipped = try #require(resumed.summary?["alreadyProcessed"] as? Int)
        #expect(skipped < frames, "the frames cut by Ctrl-C are read again")
        #expect(resumed.summary?["frames"] as? Int == samples.count - skipped)
    }

    @Test func badArgumentsAreUsageErrors() async throws {
        let harness = try CLIHarness()
        let result = try await harness.run(["scan", "--debounce", "soon", harness.directory.path])
        #expect(result.status == 64)
        #expect(result.stderr.contains("'soon'"))
    }

    @Test func unknownListIsAUsageErrorNamingTheLists() async throws {
        let harness = try CLIHarness()
        let result = try await harness.run(["scan", "--offline", "--list", "Someday", harness.directory.path])
        #expect(result.status == 64)
        #expect(result.stderr.contains("no list 'Someday'"))
        #expect(result.stderr.contains("Want to Read"))
    }

    @Test func accountSwitchesPlans() async throws {
        let harness = try CLIHarness()
        let free = try await harness.run(["account"])
        #expect(free.stdout.contains("Free (50 owned books)"))
        #expect(free.stdout.contains("Owned:    0/50 books"))
        let pro = try await harness.run(["account", "--pro", "--json"])
        #expect(pro.jsonLines.first?["plan"] as? String == "pro")
        #expect(try await harness.run(["account", "--json"]).jsonLines.first?["plan"] as? String == "pro")
        #expect(try await harness.run(["account", "--free", "--json"]).jsonLines.first?["plan"] as? String == "free")
    }
}
