import Foundation
import Testing
import TestSupport

/// Issue 33: the Library of Congress source through the real binary, against loopback replays
/// of its SRU replies (Tests/Recordings/libraryofcongress): off by default, asked after Open
/// Library once enabled in config.toml, one request a second.
@Suite struct LibraryOfCongressCLITests {
    static let sru = "/LCDB"
    static let sabriel = "9780060273224"
    static let miserables = "9780141393599"

    /// Google Books and Open Library know neither book; the Library of Congress knows both.
    static func serve(_ harness: CLIHarness, arrivals: ArrivalLog? = nil) throws {
        harness.server.route("/books/v1/volumes", response: .json(#"{"kind": "books#volumes", "totalItems": 0}"#))
        for (isbn, file) in [(sabriel, "isbn_9780060273224_sabriel_aacr2.xml"), (miserables, "isbn_9780141393599_miserables_rda.xml")] {
            let response = try Recordings.response("libraryofcongress/" + file)
            harness.server.route(sru, query: ["query": "bath.isbn=\(isbn)"]) { _ in
                arrivals?.note()
                return response
            }
        }
    }

    /// When each request reached the server (the pacing is a lower bound: never faster).
    final class ArrivalLog: @unchecked Sendable {
        private let lock = NSLock()
        private var times: [ContinuousClock.Instant] = []
        func note() { lock.withLock { times.append(.now) } }
        var gaps: [Duration] { lock.withLock { zip(times.dropFirst(), times).map { $0 - $1 } } }
    }

    func enable(_ harness: CLIHarness) throws {
        let config = harness.directory.appendingPathComponent("config/rapidscan/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try """
            [sources.libraryOfCongress]
            enabled = true
            baseURL = "\(harness.server.baseURL.absoluteString)"
            """.write(to: config, atomically: true, encoding: .utf8)
    }

    @Test func offUnlessEnabled() async throws {
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        try Self.serve(harness)
        // Even pointed at the server, a source not enabled is never asked.
        harness.extraEnvironment["RAPIDSCAN_LIBRARY_OF_CONGRESS_URL"] = harness.server.baseURL.absoluteString

        let result = try await harness.run("lookup", "--json", Self.sabriel)
        #expect(result.jsonLines.first?["status"] as? String == "notFound", "\(result.stdout) \(result.stderr)")
        #expect(harness.server.requests(to: Self.sru).isEmpty)
        #expect(harness.server.requests.contains { $0.path == "/books/v1/volumes" }, "the other sources were asked")
    }

    @Test func enabledInConfigItAnswersAfterOpenLibraryAtOneRequestASecond() async throws {
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        let arrivals = ArrivalLog()
        try Self.serve(harness, arrivals: arrivals)
        try enable(harness)

        let result = try await harness.run("lookup", "--json", Self.sabriel, Self.miserables)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.jsonLines
        #expect(lines.count == 2, "\(result.stdout)")
        let sabriel = try #require(lines.first { $0["isbn13"] as? String == Self.sabriel }?["work"] as? [String: Any], "\(result.stdout)")
        #expect(sabriel["apiSource"] as? String == "libraryOfCongress", "\(sabriel)")
        #expect(sabriel["title"] as? String == "Sabriel" && sabriel["authors"] as? [String] == ["Garth Nix", "Leo Dillon"])
        let miserables = try #require(lines.first { $0["isbn13"] as? String == Self.miserables }?["work"] as? [String: Any])
        #expect(miserables["title"] as? String == "Les misérables", "\(miserables)")

        // Order: Google Books, then Open Library, then the Library of Congress, for each book.
        let paths = harness.server.requests.map(\.path)
        let congress = try #require(paths.firstIndex(of: Self.sru))
        #expect(paths[..<congress].contains("/books/v1/volumes") && paths[..<congress].contains { $0.hasPrefix("/isbn/") }, "\(paths)")
        #expect(harness.server.requests(to: Self.sru).count == 2)
        // Paced: the second request waited for its second (a lower bound, never a speed claim).
        #expect(arrivals.gaps.count == 1 && arrivals.gaps.allSatisfy { $0 >= .milliseconds(900) }, "\(arrivals.gaps)")

        // Stored like any source's answer: the library shows it, exports it as MARC.
        #expect(try await harness.run("library", "add", "--offline", Self.miserables).status == 0)
        let show = try await harness.run("library", "show", "--json", Self.miserables)
        let item = try #require(show.jsonLines.first?["item"] as? [String: Any], "\(show.stdout)")
        #expect(item["authors"] as? [String] == ["Victor Hugo", "Christine Donougher"])
    }
}
