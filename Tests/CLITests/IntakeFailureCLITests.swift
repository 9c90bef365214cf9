import Foundation
import Synchronization
import TestSupport
import Testing

/// Issue 31 "no failure swallowed", 37.6, 37.7 and 37.10 through the real binary.
@Suite(.serialized) struct IntakeFailureCLITests {
    static let books = ["isbn-9780990582939-noprice.png", "isbn-9781250313188-usd.png", "isbn-9781761186769-aud.png"]

    static func databaseFiles(_ harness: CLIHarness) -> [String] { [harness.database.path, harness.database.path + "-wal"] }

    /// Makes the library read-only when the server is asked its `after`-th question: the
    /// run is half-way, some books stored, the next ones not.
    final class Trigger: Sendable {
        let asked = Mutex(0)
        let after: Int
        let paths: [String]
        init(after: Int, paths: [String]) { (self.after, self.paths) = (after, paths) }
        func ask() {
            let count = asked.withLock { $0 += 1; return $0 }
            if count == after { ReadOnlyLibrary.setImmutable(true, paths) }
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aLibraryMadeReadOnlyMidScanIsAnErrorAndARerunAddsEveryBookOnce() async throws {
        try SharedFiles.requireShared()
        let harness = try CLIHarness()
        harness.extraEnvironment["RAPIDSCAN_SOURCES"] = "googleBooks"
        let folder = try harness.photoFolder("photos", Self.books)
        #expect(try await harness.run("account").status == 0)  // the library exists before the run
        let trigger = Trigger(after: 2, paths: Self.databaseFiles(harness))
        let fixtures = try CLIHarness.googleFixtures.mapValues { try FixtureResponse.fixture($0) }
        harness.server.route("/books/v1/volumes") { request in
            trigger.ask()
            return fixtures[(request.query("q") ?? "").replacingOccurrences(of: "isbn:", with: "")] ?? FixtureResponse(status: 404)
        }
        try await harness.server.start()
        defer { Task { await harness.server.stop() } }
        defer { ReadOnlyLibrary.setImmutable(false, Self.databaseFiles(harness)) }

        let broken = try await harness.run("scan", "--json", folder.path)
        #expect(broken.status == 70, "\(broken.stderr)")
        let failed = broken.events("failed")
        #expect(!failed.isEmpty, "\(broken.stdout)")
        #expect(failed.allSatisfy { ($0["reason"] as? String)?.contains(harness.database.path) == true }, "\(failed)")
        #expect(broken.events("queued").isEmpty, "a book that could not be stored is never reported queued")

        ReadOnlyLibrary.setImmutable(false, Self.databaseFiles(harness))
        let rerun = try await harness.run("scan", "--json", folder.path)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        // Only stored frames were marked. A frame whose book was stored just before the library
        // turned read-only may have had its mark refused (lookups run ahead of the marks): it is
        // read again and its book is already owned, never added twice.
        let marked = rerun.summary?["alreadyProcessed"] as? Int ?? -1
        let ownedAgain = rerun.summary?["alreadyOwned"] as? Int ?? -1
        #expect(marked >= 0 && marked + ownedAgain == 3 - failed.count, "only the stored frames were marked: \(rerun.stdout)")
        #expect(rerun.summary?["added"] as? Int == failed.count, "the failed frames' books are added by the re-run")
        let owned = try await harness.run("library", "list", "--json").jsonLines.compactMap { $0["isbn13"] as? String }
        #expect(owned.sorted() == ["9780990582939", "9781250313188", "9781761186769"], "every book once")
    }

    @Test func aLibraryMadeReadOnlyMidImportIsAnErrorAndARerunAddsEveryBookOnce() async throws {
        let harness = try CLIHarness()
        harness.extraEnvironment["RAPIDSCAN_SOURCES"] = "googleBooks"
        #expect(try await harness.run("account").status == 0)
        let trigger = Trigger(after: 150, paths: Self.databaseFiles(harness))
        harness.server.route("/books/v1/volumes") { request in
            trigger.ask()
            let isbn = (request.query("q") ?? "").replacingOccurrences(of: "isbn:", with: "")
            let volume: [String: Any] = ["totalItems": 1, "items": [["volumeInfo": [
                "title": "Book \(isbn)", "authors": ["Author \(isbn.suffix(4))"],
                "industryIdentifiers": [["type": "ISBN_13", "identifier": isbn]],
            ]]]]
            return FixtureResponse(headers: ["Content-Type": "application/json"],
                                   body: (try? JSONSerialization.data(withJSONObject: volume)) ?? Data())
        }
        try await harness.server.start()
        defer { Task { await harness.server.stop() } }
        defer { ReadOnlyLibrary.setImmutable(false, Self.databaseFiles(harness)) }
        #expect(try await harness.run("account", "--pro").status == 0)
        let isbns = generatedISBNs(300, startingAt: 1, prefix: "978").map(\.digits)
        let list = harness.directory.appendingPathComponent("isbns.txt")
        try (isbns.joined(separator: "\n") + "\n").write(to: list, atomically: true, encoding: .utf8)

        let broken = try await harness.run("import", list.path)
        #expect(broken.status == 70, "\(broken.stderr)")
        #expect(broken.stderr.contains(harness.database.path), "\(broken.stderr)")

        ReadOnlyLibrary.setImmutable(false, Self.databaseFiles(harness))
        let rerun = try await harness.run("import", "--json", list.path)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let owned = try await harness.run("library", "list", "--json").jsonLines.compactMap { $0["isbn13"] as? String }
        #expect(owned.count == 300 && Set(owned) == Set(isbns), "every book once")
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aLibraryMadeReadOnlyMidSpinesIsAnErrorAndARerunAddsEveryBookOnce() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        let photo = try SpinesCommandTests().prepare(harness)
        let second = harness.directory.appendingPathComponent("shelf-2.jpg")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: photo))
        bytes.append(0)  // another photo to the reply cache (its own hash), the same shelf
        try bytes.write(to: second)
        // The model's first answer is stored; asked about the second photo, the library turns read-only.
        let trigger = Trigger(after: 2, paths: Self.databaseFiles(harness))
        let answer = try SpinesCommandTests.chatResponse()
        harness.server.route(SpinesCommandTests.chat, method: "POST") { _ in
            trigger.ask()
            return answer
        }
        defer { ReadOnlyLibrary.setImmutable(false, Self.databaseFiles(harness)) }

        let broken = try await harness.run("spines", "--json", photo, second.path)
        #expect(broken.status == 70, "\(broken.stderr)")
        let failed = broken.jsonLines.filter { $0["event"] as? String == "failed" }
        #expect(failed.contains { ($0["error"] as? String)?.contains(harness.database.path) == true }, "\(broken.stdout)")

        ReadOnlyLibrary.setImmutable(false, Self.databaseFiles(harness))
        let rerun = try await harness.run("spines", "--json", photo, second.path)
        #expect(![70, 1].contains(rerun.status), "\(rerun.stderr)")
        #expect(rerun.jsonLines.filter { $0["event"] as? String == "failed" }.isEmpty, "\(rerun.stdout)")
        let owned = try await harness.run("library", "list", "--json").jsonLines.compactMap { $0["isbn13"] as? String }
        #expect(owned == ["9780006483465"], "the shelf's book once")
    }

    /// 37.7: Ctrl-C (or SIGTERM) while lookups wait on a slow server: the files whose books
    /// were only queued are not marked done, so the same command reads them again and adds
    /// every book (nothing silently skipped).
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped), arguments: [SIGINT, SIGTERM])
    func anInterruptedScanLeavesNoBookBehind(signal: Int32) async throws {
        try SharedFiles.requireShared()
        let harness = try CLIHarness(server: FixtureServer(hangLimit: .seconds(300)))
        harness.extraEnvironment["RAPIDSCAN_HTTP_TIMEOUT"] = "120"
        harness.extraEnvironment["RAPIDSCAN_HTTP_RETRIES"] = "0"
        harness.extraEnvironment["RAPIDSCAN_SOURCES"] = "googleBooks"
        harness.server.neverAnswer("/books/v1/volumes")
        try await harness.server.start()
        defer { Task { await harness.server.stop() } }
        let folder = try harness.photoFolder("slow", Self.books)
        let running = try await harness.start(["scan", "--json", folder.path])
        try await running.waitFor("the first lookup") { _ in !harness.server.requests.isEmpty }
        running.signal(signal)
        let interrupted = await running.finish()
        #expect(interrupted.status == 130, "\(interrupted.stderr)")
        #expect(interrupted.events("added").isEmpty)
        // Books whose lookup the signal cut (a loaded machine may also time a lookup out
        // before it: that one is queued for `pending retry` the ordinary way, its file done).
        let cut = interrupted.events("queued").filter { ($0["reason"] as? String)?.contains("cancelled") == true }
        #expect(!cut.isEmpty, "\(interrupted.stdout)")
        #expect(interrupted.stderr.contains("reads it again"), "\(interrupted.stderr)")

        // The server answers now: the same command reads the cut files again and adds their books.
        for (isbn, fixture) in CLIHarness.googleFixtures {
            try harness.server.replay("/books/v1/volumes", fixture: fixture, query: ["q": "isbn:\(isbn)"])
        }
        let rerun = try await harness.run(["scan", "--json", folder.path])
        #expect([0, 3].contains(rerun.status), "\(rerun.stderr)")
        let added = Set(rerun.events("added").compactMap { $0["isbn13"] as? String })
        for line in cut {
            let isbn = try #require(line["isbn13"] as? String)
            #expect(added.contains(isbn), "\(isbn) was cut by the signal and skipped by the re-run: \(interrupted.stdout)\(rerun.stdout)")
        }
        // Nothing left behind: what the re-run did not read waits in `pending` and is added from there.
        #expect(try await harness.run("pending", "retry").status == 0)
        #expect(try await harness.ownedCount() == 3)
        #expect(try await harness.run("pending", "list", "--json").jsonLines.isEmpty, "nothing left waiting")
    }

    /// 37.6: a rapidscan JSON backup goes through the same free-plan limit as every add.
    @Test func aBackupImportHoldsTheFreePlansLimit() async throws {
        let harness = try CLIHarness()
        harness.server.route("/books/v1/volumes") { request in
            let isbn = (request.query("q") ?? "").replacingOccurrences(of: "isbn:", with: "")
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
        let list = harness.directory.appendingPathComponent("isbns.txt")
        try (generatedISBNs(200, startingAt: 1, prefix: "978").map(\.digits).joined(separator: "\n") + "\n")
            .write(to: list, atomically: true, encoding: .utf8)
        #expect(try await harness.run("import", list.path).status == 0)
        let backup = harness.directory.appendingPathComponent("backup.json")
        #expect(try await harness.run("export", "--format", "json", "-o", backup.path).status == 0)

        let fresh = try CLIHarness()
        #expect(try await fresh.run("account", "--free").status == 0)
        let restored = try await fresh.run("import", backup.path)
        #expect(restored.status == 5, "\(restored.stderr)")
        #expect(try await fresh.ownedCount() == 50)
        let refusals = restored.stderr.split(separator: "\n").filter { $0.contains("not restored") }
        #expect(refusals.count == 1 && refusals[0].contains("150") && refusals[0].contains("rapidscan account --pro"), "\(restored.stderr)")

        #expect(try await fresh.run("account", "--pro").status == 0)
        let again = try await fresh.run("import", backup.path)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try await fresh.ownedCount() == 200)
    }

    /// 37.10: `spines` ended by Ctrl-C while its readings are being searched exits 130, not 3.
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func spinesInterruptedWhileSearchingExits130() async throws {
        try SharedFiles.requireShared()
        let harness = try CLIHarness(server: FixtureServer(hangLimit: .seconds(300)))
        try await harness.server.start()
        defer { Task { await harness.server.stop() } }
        let photo = try SpinesCommandTests().prepare(harness)
        harness.server.neverAnswer(SpinesCommandTests.volumes)
        harness.extraEnvironment["RAPIDSCAN_HTTP_TIMEOUT"] = "120"
        let running = try await harness.start(["spines", "--json", photo])
        try await running.waitFor("the first search") { _ in !harness.server.requests(to: SpinesCommandTests.volumes).isEmpty }
        running.signal(SIGINT)
        let result = await running.finish()
        #expect(result.status == 130, "\(result.stderr)")
        #expect(result.jsonLines.last?["interrupted"] as? Bool == true)
        #expect(try await harness.ownedCount() == 0)
    }
}

/// The wording table's hints are commands that exist: each is run through the real binary
/// and parses (no usage error).
@Suite struct IntakeHintCLITests {
    @Test func everyHintIsACommandThatParses() async throws {
        let harness = try CLIHarness()
        let hints: [[String]] = [
            ["account", "--pro"], ["pending", "retry"], ["review"],
            ["library", "add", "9780306406157", "--title", "TITLE", "--author", "AUTHOR"],
        ]
        for arguments in hints {
            let result = try await harness.run(arguments)
            #expect(result.status != 64, "`rapidscan \(arguments.joined(separator: " "))`: \(result.stderr)")
            #expect(!result.stderr.contains("Usage:"), "\(arguments): \(result.stderr)")
        }
    }
}
