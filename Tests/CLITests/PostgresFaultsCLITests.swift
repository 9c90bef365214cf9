import Foundation
import Synchronization
import Testing
import TestSupport

/// The library's PostgreSQL server lost during a run (`pg_ctl stop -m immediate`), through the
/// binary against a cluster of the test's own: `scan` and `import` stop with a message naming
/// the server's host and port and exit 70, having marked done only what was stored, and a
/// re-run once it is back owns every book once; `watch` holds what it confirmed in its
/// journal and adds it when the server answers, or at its next start after being killed.
@Suite(.serialized) struct PostgresFaultsCLITests {
    /// Six SampleImages photos of six different books, in capture order.
    static let photos = [
        "isbn-9781250313188-usd.png", "isbn-9780990582939-noprice.png", "isbn-9781761186769-aud.png", "isbn-9780306406157.png",
        "isbn-9782070427796-gbp.png", "isbn-9791090636071.png",
    ]
    static func isbn(_ photo: String) -> String { String(photo.dropFirst("isbn-".count).prefix(13)) }

    /// A harness on a fresh database of a cluster of its own, the loopback server answering every ISBN.
    static func withOwnServer(_ body: (CLIHarness, PostgresTestCluster, PostgresStationsCLITests.Books) async throws -> Void) async throws {
        let cluster = try PostgresTestCluster.own()
        defer { cluster.remove() }
        let database = try cluster.createDatabase()
        let harness = try CLIHarness()
        let books = PostgresStationsCLITests.Books()
        books.install(on: harness)
        try await harness.server.start()
        defer { Task { await harness.server.stop() } }
        harness.extraEnvironment["RAPIDSCAN_DB"] = cluster.url(database: database)
        harness.extraEnvironment["XDG_STATE_HOME"] = harness.directory.appendingPathComponent("state").path
        try await body(harness, cluster, books)
    }

    /// The server is stopped the moment the lookup of `isbn` arrives, before it is answered.
    static func stopServer(_ cluster: PostgresTestCluster, whenAskedFor isbn: String, books: PostgresStationsCLITests.Books) {
        let stopped = Mutex(false)
        books.beforeAnswer.withLock {
            $0 = { asked in
                guard asked == isbn, stopped.withLock({ done in defer { done = true }; return !done }) else { return }
                try? cluster.stopImmediately()
            }
        }
    }

    static func expectNamesTheServer(_ result: CommandResult, _ cluster: PostgresTestCluster) {
        #expect(result.status == 70, "\(result.stderr)")
        #expect(result.stderr.contains("host 127.0.0.1 port \(cluster.port)"), "\(result.stderr)")
        #expect(!result.stderr.contains(cluster.password) && !result.stdout.contains(cluster.password), "the password is never shown")
        // One clear line of rapidscan's, not libpq's notices.
        #expect(!result.stderr.contains("WARNING:"), "\(result.stderr)")
    }

    static func owned(_ harness: CLIHarness) async throws -> [String] {
        let listed = try await harness.run("library", "list", "--json", "--limit", "1000")
        #expect(listed.status == 0, "\(listed.stderr)")
        return listed.jsonLines.compactMap { $0["isbn13"] as? String }
    }

    static func isbns(_ result: CommandResult, _ kinds: Set<String>) -> [String] {
        result.jsonLines.filter { kinds.contains($0["event"] as? String ?? "") }.compactMap { $0["isbn13"] as? String }
    }

    @Test func aScanStopsWhenTheServerGoesAndARerunOwnsEveryBookOnce() async throws {
        try await Self.withOwnServer { harness, cluster, books in
            let folder = try harness.photoFolder("photos", Self.photos)
            Self.stopServer(cluster, whenAskedFor: Self.isbn(Self.photos[4]), books: books)

            let first = try await harness.run("scan", "--json", "--station", "desk-1", folder.path)
            Self.expectNamesTheServer(first, cluster)
            #expect(first.stderr.contains("stopped at"), "\(first.stderr)")
            let addedFirst = Self.isbns(first, ["added"])
            #expect(addedFirst.count < Self.photos.count, "\(first.stdout)")

            try cluster.start()
            // Every book reported added was stored.
            #expect(Set(addedFirst).isSubset(of: Set(try await Self.owned(harness))))

            let second = try await harness.run("scan", "--json", "--station", "desk-1", folder.path)
            #expect(second.status == 0, "\(second.stderr)")
            let addedSecond = Self.isbns(second, ["added"])
            #expect(Set(addedFirst).isDisjoint(with: addedSecond), "no book added twice")
            let everyBook = Set(Self.photos.map(Self.isbn))
            #expect(Set(addedFirst + addedSecond) == everyBook)
            let owned = try await Self.owned(harness)
            #expect(owned.count == everyBook.count && Set(owned) == everyBook, "\(owned)")

            // Every file is marked now: a third run reads none.
            let third = try await harness.run("scan", "--json", "--station", "desk-1", folder.path)
            #expect(third.status == 0, "\(third.stderr)")
            #expect(third.summary?["alreadyProcessed"] as? Int == Self.photos.count, "\(third.stdout)")
        }
    }

    @Test func anImportStopsWhenTheServerGoesAndARerunGoesOnFromThere() async throws {
        try await Self.withOwnServer { harness, cluster, books in
            #expect(try await harness.run("account", "--pro").status == 0, "more than the free plan's 50 books")
            // Two chunks of rows (200 a chunk): the server goes during the second.
            let isbns = generatedISBNs(260, startingAt: 1, prefix: "97800").map(\.digits)
            let list = harness.directory.appendingPathComponent("books.txt")
            try PostgresStationsCLITests.writeList(isbns, to: list)
            Self.stopServer(cluster, whenAskedFor: isbns[230], books: books)

            let first = try await harness.run("import", "--json", "--station", "desk-1", list.path)
            Self.expectNamesTheServer(first, cluster)
            #expect(first.stderr.contains("books.txt"), "\(first.stderr)")
            let addedFirst = Self.isbns(first, ["added"])
            #expect(!addedFirst.isEmpty && addedFirst.count < isbns.count, "\(addedFirst.count)")

            try cluster.start()
            // What was reported added is what was stored, no more.
            #expect(Set(try await Self.owned(harness)) == Set(addedFirst))

            let second = try await harness.run("import", "--json", "--station", "desk-1", list.path)
            #expect(second.status == 0, "\(second.stderr)")
            let addedSecond = Self.isbns(second, ["added"])
            #expect(Set(addedFirst).isDisjoint(with: addedSecond), "no row added twice")
            #expect(addedFirst.count + addedSecond.count == isbns.count)
            #expect(Self.isbns(second, ["alreadyOwned"]).isEmpty, "the rows done before are skipped, not asked again")
            let owned = try await Self.owned(harness)
            #expect(owned.count == isbns.count && Set(owned) == Set(isbns))
        }
    }

    @Test func aWatchHoldsItsBooksWhileTheServerIsAwayAndAddsThemOnce() async throws {
        try await Self.withOwnServer { harness, cluster, _ in
            let frames = harness.directory.appendingPathComponent("frames")
            try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
            let journal = harness.directory.appendingPathComponent("state/rapidscan/watch-journal-desk-w.sqlite")
            func land(_ index: Int, _ name: String) throws {
                try harness.addPhoto(Self.photos[index], to: frames, as: name, modified: Date())
            }
            func isbns(_ watch: RunningCommand, _ kind: String) -> Set<String> {
                Set(parseJSONLines(watch.stdout).filter { $0["event"] as? String == kind }.compactMap { $0["isbn13"] as? String })
            }
            let (a, b, c, d) = (Self.isbn(Self.photos[0]), Self.isbn(Self.photos[1]), Self.isbn(Self.photos[2]), Self.isbn(Self.photos[3]))
            // --keep-all: two frames landing at once are both read (a live watch drops the older one).

            let watch = try await harness.start(["watch", "--json", "--keep-all", "--station", "desk-w", frames.path])
            try await watch.waitFor("the watch to be armed") { $0.stderr.contains("Watching") }
            try land(0, "000001.png")
            try await watch.waitFor("the first book") { isbns($0, "added").contains(a) }

            // The server goes: the next two books are held, in the journal, and the watch reads on.
            try cluster.stopImmediately()
            try land(1, "000002.png")
            try land(2, "000003.png")
            try await watch.waitFor("two books held") { isbns($0, "held") == [b, c] }
            #expect(FileManager.default.fileExists(atPath: journal.path))
            let held = parseJSONLines(watch.stdout).first { $0["event"] as? String == "held" }
            #expect((held?["reason"] as? String)?.contains("host 127.0.0.1 port \(cluster.port)") == true, "\(String(describing: held))")

            // Back: the journal's books are added, once.
            try cluster.start()
            try await watch.waitFor("the held books added") { isbns($0, "added") == [a, b, c] }
            watch.signal(SIGINT)
            let ended = await watch.finish()
            #expect(ended.status == 0, "\(ended.stderr)")
            #expect(ended.summary?["held"] as? Int == 0)
            #expect(ended.summary?["added"] as? Int == 3)
            #expect(!ended.stdout.contains(cluster.password) && !ended.stderr.contains(cluster.password))

            // A watch killed while its book is held: another station adds that book meanwhile;
            // the next watch finds it in the journal and reports it already owned.
            let killed = try await harness.start(["watch", "--json", "--keep-all", "--station", "desk-w", frames.path])
            try await killed.waitFor("the watch to be armed") { $0.stderr.contains("Watching") }
            try cluster.stopImmediately()
            try land(3, "000004.png")
            try await killed.waitFor("the book held") { isbns($0, "held") == [d] }
            killed.signal(SIGKILL)
            _ = await killed.finish()
            try cluster.start()
            let elsewhere = try await harness.run("library", "add", d, "--station", "desk-2")
            #expect(elsewhere.status == 0, "\(elsewhere.stderr)")

            let next = try await harness.start(["watch", "--json", "--keep-all", "--station", "desk-w", frames.path])
            try await next.waitFor("the killed watch's book") { isbns($0, "alreadyOwned") == [d] }
            next.signal(SIGINT)
            let last = await next.finish()
            #expect(last.status == 0, "\(last.stderr)")
            #expect(isbns(next, "added").isEmpty)
            let owned = try await Self.owned(harness)
            #expect(owned.sorted() == [a, b, c, d].sorted(), "every book once: \(owned)")

            // The journal is empty: a watch started now adds nothing.
            let quiet = try await harness.run(["watch", "--json", "--keep-all", "--station", "desk-w", "--idle-exit", "0.5", frames.path])
            #expect(quiet.status == 0, "\(quiet.stderr)")
            #expect(quiet.events.filter { $0["isbn13"] != nil }.isEmpty, "\(quiet.stdout)")
        }
    }
}
