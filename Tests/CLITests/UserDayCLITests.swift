import Foundation
import TestSupport
import Testing

/// Issue 36, a user's day: what a person reads after a scan, a watch and in the library,
/// through the real binary against loopback sources.
@Suite(.serialized) struct UserDayCLITests {
    static let volumes = "/books/v1/volumes"

    /// Google Books answers 503 for two books (queued) and knows nothing of a third (not found).
    private func sourcesDownForTwoBooks(_ harness: CLIHarness) throws {
        for isbn in ["9781250313188", "9780990582939"] {
            harness.server.route(Self.volumes, query: ["q": "isbn:\(isbn)"], status: 503)
        }
        try harness.server.replay(Self.volumes, fixture: "googlebooks/volumes_zero_results_no_items_key.json", query: ["q": "isbn:9780306406157"])
        try harness.server.replay("/isbn/9780306406157.json", fixture: "openlibrary/error_404_notfound.json", status: 404)
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aScanSaysWhyBooksAreQueuedOnceAndHowToAddAnUnknownCode() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        try sourcesDownForTwoBooks(harness)
        let photos = harness.directory.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        for (offset, sample) in ["isbn-9781250313188-usd.png", "isbn-9780990582939-noprice.png", "isbn-9780306406157.png"].enumerated() {
            try harness.addPhoto(sample, to: photos, as: "\(offset).png", modified: Date(timeIntervalSince1970: 1_700_000_000 + Double(offset) * 60))
        }

        let result = try await harness.run("scan", photos.path)
        #expect(result.status == 3, "queued outranks not found: \(result.stderr)")
        // The reason and the way it is retried: said once, in words, before the first queued toast.
        #expect(result.stderr.components(separatedBy: "Queued: Google Books did not answer (").count == 2, "\(result.stderr)")
        #expect(result.stderr.contains("`rapidscan pending retry` adds the queued books once a source answers."), "\(result.stderr)")
        #expect(result.stdout.contains("Queued — waiting for Google Books (ISBN 978-1-250-31318-8)"), "\(result.stdout)")
        #expect(result.stdout.contains("Queued — waiting for Google Books (ISBN 978-0-9905829-3-9)"), "\(result.stdout)")
        // A code read and confirmed that no source knows: how to add it by hand, not "scan again".
        #expect(result.stdout.contains("Book Not Found — no source knows ISBN 978-0-306-40615-7; "
            + "`rapidscan library add 9780306406157 --title TITLE --author AUTHOR` adds it by hand"), "\(result.stdout)")
        #expect(!result.stdout.contains("Try scanning again"))
        // The source's id is for scripts only.
        #expect(!(result.stdout + result.stderr).contains("googleBooks"), "\(result.stdout)\(result.stderr)")

        // `pending` names the source as people do too; --json keeps the id.
        let pending = try await harness.run("pending")
        #expect(pending.stdout.contains("Google Books") && !pending.stdout.contains("googleBooks"), "\(pending.stdout)")
        let pendingJSON = try await harness.run("pending", "list", "--json")
        #expect(pendingJSON.jsonLines.allSatisfy { $0["source"] as? String == "googleBooks" })

        // The hint works as printed.
        let byHand = try await harness.run("library", "add", "9780306406157", "--title", "A Local History", "--author", "Ann Writer")
        #expect(byHand.status == 0, "\(byHand.stderr)")
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aWatchRetriesItsQueueByItselfAndCtrlCEndsItWithZero() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        harness.server.route(Self.volumes, query: ["q": "isbn:9780990582939"], status: 503)
        let frames = harness.directory.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)

        let watch = try await harness.start(["watch", "--json", "--retry-every", "1", frames.path])
        try await watch.waitFor("the watch to be armed") { $0.stderr.contains("Watching") }
        try FileManager.default.copyItem(at: SharedFiles.sampleImages.appendingPathComponent("isbn-9780990582939-noprice.png"),
                                         to: frames.appendingPathComponent("000001.png"))
        try await watch.waitFor("the book queued") { $0.stdout.contains(#""event":"queued""#) }

        // The source comes back: the running watch adds the book without `pending retry`.
        harness.server.removeAllRoutes()
        try harness.server.replay(Self.volumes, fixture: "googlebooks/volumes_isbn_9780990582939_no_edge_curl_us.json",
                                  query: ["q": "isbn:9780990582939"])
        try await watch.waitFor("the queued book added by the watch") { $0.stdout.contains(#""event":"added""#) }

        watch.signal(SIGINT)
        let result = await watch.finish()
        #expect(result.status == 0, "Ctrl-C is how a watch ends: \(result.stderr)")
        let added = result.events.filter { $0["event"] as? String == "added" }
        #expect(added.map { $0["file"] as? String } == ["pending retry"])
        #expect(added.first?["isbn13"] as? String == "9780990582939")
        #expect(result.summary?["added"] as? Int == 1)
        #expect(result.summary?["queued"] as? Int == 0, "settled by the retry")
        #expect(result.summary?["interrupted"] as? Bool == false)
        #expect(try await harness.run("pending", "list", "--json").jsonLines.isEmpty)
        #expect(try await harness.ownedCount() == 1)
    }

    @Test func aWatchEndedByCtrlCPrintsAWholeSummary() async throws {
        let harness = try CLIHarness()
        let frames = harness.directory.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        let watch = try await harness.start(["watch", "--offline", frames.path])
        try await watch.waitFor("the watch to be armed") { $0.stderr.contains("Watching") }
        watch.signal(SIGINT)
        let result = await watch.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Scanned 0 frames"), "\(result.stdout)")
        #expect(!(result.stdout + result.stderr).contains("Run the same command again"))
    }

    /// On a terminal, a watch's messages are printed above the live panel (cleared first, then
    /// drawn again below them), never into it where the next redraw would erase them.
    @Test func aWatchPrintsItsMessagesAboveTheLivePanel() async throws {
        let harness = try CLIHarness()
        let frames = harness.directory.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        let terminal = try await harness.runOnTerminal(["watch", "--offline", "--idle-exit", "1", frames.path],
                                                       environment: ["TERM": "xterm-256color", "NO_COLOR": ""])
        #expect(terminal.status == 0, "\(terminal.stdout.debugDescription)")
        let screen = terminal.stdout
        let notice = try #require(screen.range(of: "Watching "), "\(screen.debugDescription)")
        // The panel was drawn first, cleared for the message, and drawn again after it.
        #expect(screen[..<notice.lowerBound].hasSuffix("\u{1B}[J"), "\(screen.debugDescription)")
        #expect(screen[..<notice.lowerBound].contains("rapidscan watch "), "\(screen.debugDescription)")
        #expect(screen[notice.upperBound...].contains("rapidscan watch "), "drawn again below: \(screen.debugDescription)")
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func statusMovesBooksBetweenTheDefaultListsAndListingsSpeakPlainly() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        try harness.server.replay(Self.volumes, fixture: "googlebooks/volumes_isbn_9780990582939_no_edge_curl_us.json", query: ["q": "isbn:9780990582939"])
        #expect(try await harness.run("library", "add", "9780990582939").status == 0)
        #expect(try await harness.run("library", "add", "9780306406157", "--title", "A Local History", "--author", "Ann Writer").status == 0)
        #expect(try await harness.run("library", "add", "9781250313188", "--title", "Unrated", "--author", "Ann Writer").status == 0)

        // Read: the book leaves Want to Read for Finished, finished now and never "started" at the same instant.
        let read = try await harness.run("library", "set", "9780990582939", "--status", "read", "--rating", "5", "--json")
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.jsonLines.first?["listId"] as? String == "local_completed")
        #expect(read.jsonLines.first?["finishedReadingAt"] is String && read.jsonLines.first?["startedReadingAt"] == nil)
        #expect(try await harness.run("library", "set", "9780306406157", "--rating", "2").status == 0)
        let lists = try await harness.run("library", "lists")
        #expect(lists.stdoutLines == ["Want to Read · 2 books · default list", "Finished · 1 book · default list"], "\(lists.stdout)")
        #expect(try await harness.run("library", "lists", "--json").jsonLines.contains { $0["id"] as? String == "local_toRead" })

        // Highest rating first; --reverse turns it round; unrated books last either way.
        let byRating = try await harness.run("library", "list", "--sort", "rating", "--format", "{isbn}")
        #expect(byRating.stdoutLines == ["9780990582939", "9780306406157", "9781250313188"])
        let reversed = try await harness.run("library", "list", "--sort", "rating", "--reverse", "--format", "{isbn}")
        #expect(reversed.stdoutLines == ["9780306406157", "9780990582939", "9781250313188"])

        // --limit: how many were printed and how many there are.
        let limited = try await harness.run("library", "list", "--sort", "rating", "--limit", "1")
        #expect(limited.stdoutLines.count == 2 && limited.stdoutLines.first?.contains("978-0-9905829-3-9") == true, "\(limited.stdout)")
        #expect(limited.stdoutLines.last == "1 of 3 books owned.")
        let limitedJSON = try await harness.run("library", "list", "--limit", "2", "--json")
        #expect(limitedJSON.jsonLines.last?["count"] as? Int == 2 && limitedJSON.jsonLines.last?["matched"] as? Int == 3)

        // Words a user reads, not ids.
        #expect(try await harness.run("library", "set", "9780306406157", "--status", "notInterested").status == 0)
        let shown = try await harness.run("library", "show", "9780306406157")
        #expect(shown.stdout.contains("status: not interested") && shown.stdout.contains("list: Want to Read"), "\(shown.stdout)")
        #expect(!shown.stdout.contains("notInterested") && !shown.stdout.contains("local_"), "\(shown.stdout)")
        let fromSource = try await harness.run("library", "show", "9780990582939")
        #expect(fromSource.stdout.contains("from Google Books") && !fromSource.stdout.contains("googleBooks"), "\(fromSource.stdout)")
        let listed = try await harness.run("library", "list")
        #expect(listed.stdout.contains("not interested") && !listed.stdout.contains("notInterested"), "\(listed.stdout)")
    }

    /// A free-plan import that cannot fit: said once before it starts, the refused rows in one
    /// line, the added ones listed only with -v, and how many books are owned at the end.
    @Test func aFreePlanImportSaysUpFrontHowManyFitAndRefusesTheRestInOneLine() async throws {
        let harness = try await IntakeDoorsCLITests.harness(IntakeDoorsCLITests.Library())
        defer { Task { await harness.server.stop() } }
        let list = harness.directory.appendingPathComponent("books.txt")
        try (generatedISBNs(60, startingAt: 1, prefix: "97800").map(\.digits).joined(separator: "\n") + "\n")
            .write(to: list, atomically: true, encoding: .utf8)

        let result = try await harness.run("import", list.path)
        #expect(result.status == 5, "\(result.stderr)")
        let before = "books.txt: 60 books to import; the free plan has room for 50 more (0 of 50 owned): the rest will not be added"
        #expect(result.stderr.contains(before) && result.stderr.contains("`rapidscan account --pro` lifts the limit"), "\(result.stderr)")
        let refusals = result.stderr.split(separator: "\n").filter { $0.contains("full") || $0.contains("Full") }
        #expect(refusals.count == 1 && refusals.first?.contains("books.txt: 10 rows not added: the library is full") == true, "\(result.stderr)")
        #expect(!result.stdout.contains("Added to Library"), "the added rows are listed with -v only: \(result.stdout)")
        #expect(result.stdout.contains("50 books now owned."), "\(result.stdout)")

        // The same file again: the 10 rows left, no room, said before it starts.
        let again = try await harness.run("import", list.path)
        #expect(again.status == 5)
        #expect(again.stderr.contains("books.txt: 10 books to import; the free plan has room for 0 more (50 of 50 owned)"), "\(again.stderr)")
        // With -v each added row is listed.
        #expect(try await harness.run("account", "--pro").status == 0)
        let verbose = try await harness.run("import", "-v", list.path)
        #expect(verbose.status == 0 && verbose.stdout.components(separatedBy: "Added to Library: ").count == 11, "\(verbose.stdout)")
        #expect(verbose.stdout.contains("60 books now owned."))
    }

    /// On a terminal, an import draws scan's progress bar: done/total rows, a rate and an ETA.
    @Test func anImportOnATerminalDrawsAProgressBarWithRateAndETA() async throws {
        let harness = try await IntakeDoorsCLITests.harness(IntakeDoorsCLITests.Library())
        defer { Task { await harness.server.stop() } }
        #expect(try await harness.run("account", "--pro").status == 0)
        let list = harness.directory.appendingPathComponent("books.txt")
        try (generatedISBNs(30, startingAt: 1, prefix: "97800").map(\.digits).joined(separator: "\n") + "\n")
            .write(to: list, atomically: true, encoding: .utf8)
        let terminal = try await harness.runOnTerminal(["import", list.path], environment: ["TERM": "xterm-256color", "NO_COLOR": ""])
        #expect(terminal.status == 0, "\(terminal.stdout)")
        #expect(terminal.stdout.contains("] 30/30 rows  "), "\(terminal.stdout.debugDescription)")
        #expect(terminal.stdout.contains("/s") && terminal.stdout.contains("ETA "), "\(terminal.stdout.debugDescription)")
        #expect(terminal.stdout.contains("30 books now owned."))
    }
}
