import Foundation
import Synchronization
import TestSupport
import Testing

/// Issue 31: every door a book comes in by goes through the one intake, so the same outcome
/// has the same JSON `event` and the same exit status whichever door (the real binary, a
/// real library, Google Books on loopback). One row per (outcome, door).
@Suite(.serialized) struct IntakeDoorsCLITests {
    /// Crafting Interpreters: a photo of its barcode is in SampleImages.
    static let known = "9780990582939"
    static let knownPhoto = "isbn-9780990582939-noprice.png"
    /// A code no source knows.
    static let unknown = "9791090636071"
    static let unknownPhoto = "isbn-9791090636071.png"

    enum Door: String, CaseIterable, CustomStringConvertible {
        case scan, importList, libraryAdd, pendingRetry, notFoundRetry
        var description: String { rawValue }
    }

    enum Outcome: String, CaseIterable, CustomStringConvertible {
        case added, alreadyOwned, libraryFull, queued, notFound
        var description: String { rawValue }
        /// The one exit policy: the same status whichever door.
        var status: Int32 {
            switch self {
            case .added, .alreadyOwned: 0
            case .libraryFull: 5
            case .queued: 3
            case .notFound: 2
            }
        }
    }

    /// Google Books as the test wants it: down (503), or knowing the fixture book and the
    /// filler books (and, once `knowsTheBook`, the one asked about).
    final class Library: Sendable {
        let down = Mutex(false)
        let knowsTheBook = Mutex(true)
        /// The answer to a title search (a spine's), nil: none.
        let search = Mutex<FixtureResponse?>(nil)
    }

    static func harness(_ library: Library) async throws -> CLIHarness {
        let harness = try CLIHarness()
        harness.extraEnvironment["RAPIDSCAN_HTTP_RETRIES"] = "0"
        harness.extraEnvironment["RAPIDSCAN_SOURCES"] = "googleBooks"
        let fixture = try FixtureResponse.fixture(CLIHarness.googleFixtures[known]!)
        let none = try FixtureResponse.fixture("googlebooks/volumes_zero_results_no_items_key.json")
        harness.server.route("/books/v1/volumes") { request in
            if library.down.withLock({ $0 }) { return FixtureResponse.json(#"{"error":{"code":503,"message":"down"}}"#, status: 503) }
            let q = request.query("q") ?? ""
            guard q.hasPrefix("isbn:") else { return library.search.withLock { $0 } ?? none }
            let isbn = q.replacingOccurrences(of: "isbn:", with: "")
            if isbn == known { return library.knowsTheBook.withLock { $0 } ? fixture : none }
            guard isbn.hasPrefix("97800") else { return none }
            let volume: [String: Any] = ["totalItems": 1, "items": [["volumeInfo": [
                "title": "Filler \(isbn)", "authors": ["Author \(isbn.suffix(4))"],
                "industryIdentifiers": [["type": "ISBN_13", "identifier": isbn]],
            ]]]]
            return FixtureResponse(headers: ["Content-Type": "application/json"],
                                   body: (try? JSONSerialization.data(withJSONObject: volume)) ?? Data())
        }
        try await harness.server.start()
        return harness
    }

    /// 50 owned books: the free plan's limit.
    static func fill(_ harness: CLIHarness) async throws {
        let list = harness.directory.appendingPathComponent("filler.txt")
        try (generatedISBNs(50, startingAt: 1, prefix: "97800").map(\.digits).joined(separator: "\n") + "\n")
            .write(to: list, atomically: true, encoding: .utf8)
        let filled = try await harness.run("import", "--json", list.path)
        #expect(filled.status == 0, "\(filled.stderr)")
        #expect(try await harness.ownedCount() == 50)
    }

    /// Drives `door` with the ISBN; nil when that door cannot come to that outcome.
    static func drive(_ door: Door, to outcome: Outcome) async throws -> CommandResult? {
        let library = Library()
        let harness = try await harness(library)
        defer { Task { await harness.server.stop() } }
        let isbn = outcome == .notFound ? unknown : known
        // Before: what the door needs to exist (a queued lookup, a remembered code).
        switch door {
        case .pendingRetry:
            if outcome == .alreadyOwned { return nil }  // owning it first settles the queued row
            #expect(try await harness.run("library", "add", "--offline", isbn).status == 3)
        case .notFoundRetry:
            if outcome == .alreadyOwned { return nil }  // owning it by hand forgets the code
            library.knowsTheBook.withLock { $0 = false }
            #expect(try await harness.run("library", "add", isbn).status == 2)
            library.knowsTheBook.withLock { $0 = true }
        case .scan, .importList, .libraryAdd:
            break
        }
        switch outcome {
        case .alreadyOwned: #expect(try await harness.run("library", "add", isbn).status == 0)
        case .libraryFull: try await fill(harness)
        case .queued: library.down.withLock { $0 = true }
        case .added, .notFound: break
        }
        switch door {
        case .scan:
            let folder = try harness.photoFolder("photos", [outcome == .notFound ? unknownPhoto : knownPhoto])
            return try await harness.run("scan", "--json", folder.path)
        case .importList:
            let list = harness.directory.appendingPathComponent("books.txt")
            try (isbn + "\n").write(to: list, atomically: true, encoding: .utf8)
            return try await harness.run("import", "--json", list.path)
        case .libraryAdd:
            return try await harness.run("library", "add", "--json", isbn)
        case .pendingRetry:
            return try await harness.run("pending", "retry", "--json")
        case .notFoundRetry:
            return try await harness.run("library", "notfound", "--retry", "--json")
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped), arguments: Outcome.allCases, Door.allCases)
    func everyDoorNamesTheSameOutcomeAlikeAndExitsAlike(outcome: Outcome, door: Door) async throws {
        try SharedFiles.requireShared()
        guard let result = try await Self.drive(door, to: outcome) else { return }
        let isbn = outcome == .notFound ? Self.unknown : Self.known
        let lines = result.jsonLines.filter { $0["isbn13"] as? String == isbn && $0["event"] as? String != "summary" }
        #expect(lines.map { $0["event"] as? String } == [outcome.rawValue], "\(door): \(result.stdout)\(result.stderr)")
        #expect(result.status == outcome.status, "\(door) \(outcome): \(result.stderr)")
        let line = try #require(lines.first)
        #expect(line["schema"] as? Int == 1)
        switch outcome {
        case .added, .alreadyOwned: #expect(line["title"] as? String == "Crafting Interpreters", "\(door): \(line)")
        case .libraryFull: #expect(line["owned"] as? Int == 50 && line["limit"] as? Int == 50, "\(door): \(line)")
        case .queued: #expect(line["source"] as? String == "googleBooks" && line["reason"] is String, "\(door): \(line)")
        case .notFound: break
        }
    }
}

/// The same table for the shelf doors: a strong spine match (`spines`) and a medium one
/// accepted in `review`. The model reads one spine; Google Books' search finds it.
@Suite(.serialized) struct IntakeShelfDoorsCLITests {
    static let book = "9780006483465"  // The Fifth Element, Terry Bisson
    static let strong = #"{"spines": [{"text": "THE FIFTH ELEMENT  TERRY BISSON", "title": "The Fifth Element", "author": "Terry Bisson", "series": null, "volume": null, "position": 0, "confidence": 0.9, "unreadable": false}]}"#
    static let medium = #"{"spines": [{"text": "THE FIFTH ELEMENT", "title": "The Fifth Element", "author": null, "series": null, "volume": null, "position": 0, "confidence": 0.7, "unreadable": false}]}"#

    enum Door: String, CaseIterable, CustomStringConvertible {
        case spines, review
        var description: String { rawValue }
    }

    static func chat(_ answer: String) throws -> FixtureResponse {
        let content = String(data: try JSONSerialization.data(withJSONObject: [answer]), encoding: .utf8)!.dropFirst().dropLast()
        return .json(#"{"choices":[{"index":0,"message":{"role":"assistant","content":\#(content),"refusal":null},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":10}}"#)
    }

    /// A shelf photo with its own bytes (its own reply in the cache).
    static func photo(_ harness: CLIHarness, _ name: String) throws -> String {
        var bytes = try Data(contentsOf: try #require(SharedFiles.fixture("shelves/minhan_img1346_top_shelf.jpg")))
        bytes.append(contentsOf: Array(name.utf8))
        let path = harness.directory.appendingPathComponent(name + ".jpg")
        try bytes.write(to: path)
        return path.path
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped),
          arguments: [IntakeDoorsCLITests.Outcome.added, .alreadyOwned, .libraryFull, .queued], Door.allCases)
    func theShelfDoorsNameTheSameOutcomeAlikeAndExitAlike(outcome: IntakeDoorsCLITests.Outcome, door: Door) async throws {
        try SharedFiles.requireShared()
        if door == .review && outcome == .queued { return }  // an entry in review was found already: nothing to wait for
        let library = IntakeDoorsCLITests.Library()
        let harness = try await IntakeDoorsCLITests.harness(library)
        defer { Task { await harness.server.stop() } }
        let fifth = try FixtureResponse.fixture("googlebooks/volumes_search_intitle_the_fifth_element_10_items.json")
        library.search.withLock { $0 = fifth }
        let answer = Mutex(door == .review ? Self.medium : Self.strong)
        harness.server.route(SpinesCommandTests.chat, method: "POST") { _ in (try? Self.chat(answer.withLock { $0 })) ?? FixtureResponse(status: 500) }
        harness.extraEnvironment["RAPIDSCAN_VISION_PROVIDER"] = "openai"
        harness.extraEnvironment["RAPIDSCAN_VISION_URL"] = harness.server.baseURL.appendingPathComponent("v1").absoluteString
        harness.extraEnvironment["RAPIDSCAN_VISION_MODEL"] = "shelf-test-model"

        if door == .review {
            let kept = try await harness.run("spines", "--json", try Self.photo(harness, "kept"))
            #expect(kept.status == 6, "\(kept.stdout)\(kept.stderr)")
        }
        switch outcome {
        case .alreadyOwned:
            answer.withLock { $0 = Self.strong }
            #expect(try await harness.run("spines", try Self.photo(harness, "owned")).status == 0)
            answer.withLock { $0 = door == .review ? Self.medium : Self.strong }
        case .libraryFull: try await IntakeDoorsCLITests.fill(harness)
        case .queued: library.down.withLock { $0 = true }
        case .added, .notFound: break
        }
        let result: CommandResult
        switch door {
        case .spines: result = try await harness.run("spines", "--json", try Self.photo(harness, "shelf"))
        case .review:
            // The entry's own number, as the listing shows it.
            let number = try #require(try await harness.run("review", "--json").jsonLines.first?["number"] as? Int)
            result = try await harness.run("review", "--accept", String(number), "--json")
        }
        let lines = result.jsonLines.filter { $0["event"] as? String != "summary" }
        #expect(lines.map { $0["event"] as? String } == [outcome.rawValue], "\(door): \(result.stdout)\(result.stderr)")
        #expect(result.status == outcome.status, "\(door) \(outcome): \(result.stderr)")
        let line = try #require(lines.first)
        switch outcome {
        case .added, .alreadyOwned, .libraryFull: #expect(line["isbn13"] as? String == Self.book && line["title"] as? String == "The Fifth Element")
        case .queued, .notFound: break
        }
        if outcome == .libraryFull { #expect(line["owned"] as? Int == 50 && line["limit"] as? Int == 50, "\(line)") }
    }
}
