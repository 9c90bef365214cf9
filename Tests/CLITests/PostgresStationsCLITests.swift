import Foundation
import Synchronization
import Testing
import TestSupport

/// Several `rapidscan` processes at once against the tests' throwaway PostgreSQL server:
/// the library's rules are decided inside the server's transactions, not in one process.
@Suite struct PostgresStationsCLITests {
    /// A Google Books stand-in that knows every generated "97800" ISBN, counts the lookups
    /// per ISBN, can be down (503), and answers slowly enough for processes to overlap.
    final class Books: Sendable {
        let down = Mutex(false)
        let lookups = Mutex<[String: Int]>([:])
        /// Called with each ISBN asked, before the answer goes out (a test stopping the database server mid-run).
        let beforeAnswer = Mutex<(@Sendable (String) -> Void)?>(nil)

        func install(on harness: CLIHarness) {
            harness.extraEnvironment["RAPIDSCAN_HTTP_RETRIES"] = "0"
            harness.extraEnvironment["RAPIDSCAN_SOURCES"] = "googleBooks"
            harness.server.route("/books/v1/volumes") { request in
                if self.down.withLock({ $0 }) { return FixtureResponse.json(#"{"error":{"code":503,"message":"down"}}"#, status: 503) }
                let isbn = (request.query("q") ?? "").replacingOccurrences(of: "isbn:", with: "")
                self.lookups.withLock { $0[isbn, default: 0] += 1 }
                self.beforeAnswer.withLock { $0 }?(isbn)
                try? await Task.sleep(for: .milliseconds(50))
                let volume: [String: Any] = ["totalItems": 1, "items": [["volumeInfo": [
                    "title": "Filler \(isbn)", "authors": ["Author \(isbn.suffix(4))"],
                    "industryIdentifiers": [["type": "ISBN_13", "identifier": isbn]],
                ]]]]
                return FixtureResponse(headers: ["Content-Type": "application/json"],
                                       body: (try? JSONSerialization.data(withJSONObject: volume)) ?? Data())
            }
        }
    }

    static func writeList(_ isbns: [String], to file: URL) throws {
        try (isbns.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
    }

    /// A CLI harness on a fresh database of the shared cluster, its loopback server answering `Books`.
    static func withServerLibrary(_ body: (CLIHarness, Books) async throws -> Void) async throws {
        let cluster = try PostgresTestCluster.shared()
        let database = try cluster.createDatabase()
        defer { cluster.dropDatabase(database) }
        let harness = try CLIHarness()
        let books = Books()
        books.install(on: harness)
        try await harness.server.start()
        defer { Task { await harness.server.stop() } }
        harness.extraEnvironment["RAPIDSCAN_DB"] = cluster.url(database: database)
        try await body(harness, books)
    }

    @Test func twoPendingRetriesAtOnceLookUpEachCodeOnce() async throws {
        try await Self.withServerLibrary { harness, books in

            // Twelve books queued while the source is down.
            let isbns = generatedISBNs(12, startingAt: 1, prefix: "97800").map(\.digits)
            let list = harness.directory.appendingPathComponent("queued.txt")
            try Self.writeList(isbns, to: list)
            books.down.withLock { $0 = true }
            let queued = try await harness.run("import", "--json", list.path)
            #expect(queued.status == 3, "\(queued.stderr)")
            #expect(try await harness.run("pending", "--json").jsonLines.count == 12)

            books.down.withLock { $0 = false }
            async let first = harness.run("pending", "retry", "--json", "--station", "desk-1")
            async let second = harness.run("pending", "retry", "--json", "--station", "desk-2")
            let results = try await [first, second]
            // 3 ("still pending") is right for the one that finishes first while the other's rows are in flight.
            for result in results { #expect([0, 3].contains(result.status), "\(result.stderr)") }
            // Every code looked up once, by one of the two.
            let seen = books.lookups.withLock { $0 }
            #expect(seen == Dictionary(uniqueKeysWithValues: isbns.map { ($0, 1) }), "\(seen)")
            let added = results.flatMap { $0.jsonLines.filter { $0["event"] as? String == "added" }.compactMap { $0["isbn13"] as? String } }
            #expect(added.sorted() == isbns.sorted(), "\(results.map(\.stdout))")
            #expect(try await harness.ownedCount() == 12)
            #expect(try await harness.run("pending", "--json").jsonLines.isEmpty)
        }
    }

    @Test func fourImportsAtOnceOwnEachBookOnceAndTheFreePlanStopsAtFifty() async throws {
        try await Self.withServerLibrary { harness, books in

            // 70 books; four stations' files of 35, each book in two of them.
            let pool = generatedISBNs(70, startingAt: 1, prefix: "97800").map(\.digits)
            var files: [URL] = []
            for station in 0..<4 {
                let file = harness.directory.appendingPathComponent("station\(station).txt")
                let share = (0..<35).map { pool[(station * 35 / 2 + $0) % pool.count] }
                try Self.writeList(station % 2 == 0 ? share : share.reversed(), to: file)
                files.append(file)
        }
        let results = try await withThrowingTaskGroup(of: CommandResult.self) { group in
            for (station, file) in files.enumerated() {
                group.addTask { try await harness.run("import", "--json", file.path, "--station", "desk-\(station)") }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        var added: [String] = [], others: [String: Int] = [:]
        for result in results {
            #expect([0, 5].contains(result.status), "\(result.stderr)")
            for line in result.jsonLines {
                guard let event = line["event"] as? String, let isbn = line["isbn13"] as? String else { continue }
                if event == "added" { added.append(isbn) } else { others[event, default: 0] += 1 }
            }
        }
        #expect(added.count == 50 && Set(added).count == 50, "added \(added.count) (\(Set(added).count) distinct)")
        #expect(Set(others.keys).isSubset(of: ["alreadyOwned", "libraryFull"]), "\(others)")
        let otherCount = others.values.reduce(0, +)
        #expect(otherCount == 4 * 35 - 50, "\(others)")
        #expect(try await harness.ownedCount() == 50)
        let listed = try await harness.run("library", "list", "--json", "--limit", "1000")
        let owned = listed.jsonLines.compactMap { $0["isbn13"] as? String }
        #expect(owned.count == 50 && Set(owned) == Set(added))
        }
    }
}
