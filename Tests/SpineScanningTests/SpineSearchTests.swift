import BookCodes
import BookLookup
import BookMetadata
import Catalogue
import Foundation
import MetadataSources
import SpineMatching
import SpineScanning
import Synchronization
import Testing
import TestSupport
import Vision

/// Spine candidate searches go through the LookupService (its breaker, `--offline`), each
/// search is sent once however many readings ask it, and junk asks no network source: real
/// HTTP to Google Books' search on a loopback server, through the production source.
@Suite struct SpineSearchTests {
    static let volumes = "/books/v1/volumes"

    func photo(_ name: String) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("spine-search-\(name)-\(UUID().uuidString).jpg")
        try Data("photo \(name): the fixed reader never looks".utf8).write(to: file)
        return file
    }

    /// A session whose only network source is Google Books on `server`, searched through `lookup`.
    func session(_ server: FixtureServer, readings: [SpineReading], offline: Bool = false) throws -> (SpineSession, LookupService) {
        let catalogue = try Catalogue.inMemory()
        let google = GoogleBooksSource(GoogleBooksSource.Settings(baseURL: server.baseURL, userAgent: "rapidscan-tests"),
                                       client: HTTPClient(policy: HTTPClient.Policy(timeout: 30, retries: 0)))
        let lookup = LookupService(catalogue: catalogue, sources: [google])
        let sources: [any CandidateSource] = [CacheCandidateSource(catalogue: catalogue),
                                              SearchCandidateSource(source: google, lookup: lookup, offline: offline)]
        let session = SpineSession(catalogue: catalogue, reader: SpineSessionReadingTests.FixedReader(readings: readings),
                                   sources: sources, dryRun: true, offline: offline)
        return (session, lookup)
    }

    static let readings = [
        SpineReading(text: "THE FIFTH ELEMENT  TERRY BISSON", title: "The Fifth Element", author: "Terry Bisson", position: 0, confidence: 0.9),
        SpineReading(text: "THE SILENT ORCHARD", position: 1, confidence: 0.9),
        SpineReading(text: "ERHRKRSERE", position: 2, confidence: 0.0),
        SpineReading(text: "THE FIFTH ELEMENT  TERRY BISSON", title: "The Fifth Element", author: "Terry Bisson", position: 3, confidence: 0.9),
        SpineReading(text: "THE SILENT ORCHARD", position: 4, confidence: 0.9),
    ]

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func eachSearchIsSentOnceAndJunkIsNotSent() async throws {
        let server = FixtureServer()
        try await server.start()
        defer { Task { await server.stop() } }
        let fifth = try FixtureResponse.fixture("googlebooks/volumes_search_intitle_the_fifth_element_10_items.json")
        let none = try FixtureResponse.fixture("googlebooks/volumes_zero_results_no_items_key.json")
        server.route(Self.volumes) { request in (request.query("q") ?? "").contains("Fifth Element") ? fifth : none }
        let (session, _) = try session(server, readings: Self.readings)
        let file = try photo("once")
        defer { try? FileManager.default.removeItem(at: file) }
        var events: [SpineEvent] = []
        _ = await session.run(files: [file.path]) { events.append($0) }

        let asked = server.requests(to: Self.volumes).compactMap { $0.query("q") }
        #expect(!asked.isEmpty)
        #expect(Set(asked).count == asked.count, "a search was sent twice: \(asked)")
        #expect(!asked.contains { $0.localizedCaseInsensitiveContains("erhrk") }, "junk was searched: \(asked)")
        // Both readings of one title found the book (the second from the first's answer).
        #expect(events.filter { $0.workKey != nil && $0.title == "The Fifth Element" }.map(\.position) == [0, 3])
    }

    /// The cache, then `local` (if any), Google Books and Open Library on `server`, which knows no
    /// book, each searched through one lookup: the sources `spines` builds.
    func knowingNoBook(_ server: FixtureServer, catalogue: Catalogue, after local: (any MetadataSource)? = nil) throws -> [any CandidateSource] {
        server.route(Self.volumes, response: try FixtureResponse.fixture("googlebooks/volumes_zero_results_no_items_key.json"))
        server.route("/search.json", response: .json(#"{"numFound":0,"start":0,"docs":[]}"#))
        let client = HTTPClient(policy: HTTPClient.Policy(timeout: 30, retries: 0))
        let google = GoogleBooksSource(GoogleBooksSource.Settings(baseURL: server.baseURL, userAgent: "rapidscan-tests"), client: client)
        let openLibrary = OpenLibrarySource(OpenLibrarySource.Settings(baseURL: server.baseURL, product: "rapidscan-tests"), client: client)
        let metadataSources: [any MetadataSource] = (local.map { [$0] } ?? []) + [google, openLibrary]
        let lookup = LookupService(catalogue: catalogue, sources: metadataSources)
        return [CacheCandidateSource(catalogue: catalogue)] + metadataSources.map { SearchCandidateSource(source: $0, lookup: lookup) }
    }

    /// Open Library's records on this machine (a loaded dump that knows none of the books asked).
    struct LocalOpenLibraryCopy: MetadataSource {
        let name = "localDump"
        let isLocal = true
        var catalogue: String { OpenLibrarySource.sourceName }
        func edition(isbn: ISBN13) async throws(SourceError) -> EditionMetadata? { nil }
        func search(title: String, author: String?, limit: Int) async throws(SourceError) -> [EditionMetadata] { [] }
    }

    /// A spine the loaded Open Library dump was searched for is not searched again on Open Library
    /// (the same records; a request a second without a contact is what the user waits for): Google
    /// Books, another catalogue, still is. Without the dump, Open Library is asked (`aPacedSourceIsAskedOnceASpine`).
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func openLibraryIsNotAskedWhatItsLoadedDumpWasAsked() async throws {
        let server = FixtureServer()
        try await server.start()
        defer { Task { await server.stop() } }
        let catalogue = try Catalogue.inMemory()
        let sources = try knowingNoBook(server, catalogue: catalogue, after: LocalOpenLibraryCopy())
        let session = SpineSession(catalogue: catalogue, reader: SpineSessionReadingTests.FixedReader(readings: [Self.readings[1]]),
                                   sources: sources, dryRun: true)
        let file = try photo("dump")
        defer { try? FileManager.default.removeItem(at: file) }
        var events: [SpineEvent] = []
        _ = await session.run(files: [file.path]) { events.append($0) }
        #expect(server.requests(to: Self.volumes).count >= 1)
        #expect(server.requests(to: "/search.json").isEmpty, "\(server.requests(to: "/search.json").compactMap { $0.query("title") })")
        #expect(events.map(\.kind) == [.unmatched])
    }

    /// A lost space OCR shows by case ("MatroidTheory", dianaaaa_img15) is no glued word to a
    /// source's search: the source is asked the words apart, as the matcher compares them.
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aCamelCaseRunIsAskedAsItsWords() async throws {
        let server = FixtureServer()
        try await server.start()
        defer { Task { await server.stop() } }
        server.route(Self.volumes, response: try FixtureResponse.fixture("googlebooks/volumes_zero_results_no_items_key.json"))
        let (session, _) = try session(server, readings: [SpineReading(text: "Oxley MatroidTheory Second", position: 0, confidence: 0.9)])
        let file = try photo("camel")
        defer { try? FileManager.default.removeItem(at: file) }
        _ = await session.run(files: [file.path]) { _ in }
        let asked = server.requests(to: Self.volumes).compactMap { $0.query("q") }
        #expect(asked.contains { $0.contains("Matroid Theory") }, "\(asked)")
        #expect(!asked.contains { $0.contains("MatroidTheory") }, "\(asked)")
    }

    /// OCR text read as "title author" ("Catching Fire ColIins", noisy model seed 35, the surname
    /// misread) finds no title holding every word: the title is asked again without the last word,
    /// which reads as a surname, and the book is found.
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aTitleIsAskedAgainWithoutASurnameAfterIt() async throws {
        let server = FixtureServer()
        try await server.start()
        defer { Task { await server.stop() } }
        let none = try FixtureResponse.fixture("googlebooks/volumes_zero_results_no_items_key.json")
        let catchingFire = FixtureResponse.json(#"{"kind": "books#volumes", "totalItems": 1, "items": [{"id": "cf1", "volumeInfo": {"title": "Catching Fire", "authors": ["Suzanne Collins"], "industryIdentifiers": [{"type": "ISBN_13", "identifier": "9780439023498"}]}}]}"#)
        // As `intitle:` does: every word asked must be in the title.
        server.route(Self.volumes) { request in
            let asked = request.query("q") ?? ""
            return asked.contains("Catching Fire") && !asked.contains("Iins") ? catchingFire : none
        }
        let (session, _) = try session(server, readings: [SpineReading(text: "Catching Fire ColIins", position: 0, confidence: 0.9)])
        let file = try photo("tail")
        defer { try? FileManager.default.removeItem(at: file) }
        var events: [SpineEvent] = []
        _ = await session.run(files: [file.path]) { events.append($0) }
        let asked = server.requests(to: Self.volumes).compactMap { $0.query("q") }
        // Asked with every word first (the camel-case run apart, as every OCR query), then without the surname.
        #expect(asked.first?.contains("Col Iins") == true, "\(asked)")
        #expect(asked.count == 2, "\(asked)")
        #expect(events.contains { $0.workKey != nil && $0.title == "Catching Fire" }, "\(asked) \(events.map(\.kind))")
    }

    /// A word misread by a look-alike letter ("Six Degrces", noisy model seed 7) leaves a title
    /// search nothing to find: the title is asked again spelt as the dictionary's word, and the
    /// book is found. The matcher still compares the words as read.
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aWordMisreadByALookAlikeIsAskedAgainRespelt() async throws {
        let server = FixtureServer()
        try await server.start()
        defer { Task { await server.stop() } }
        let none = try FixtureResponse.fixture("googlebooks/volumes_zero_results_no_items_key.json")
        let sixDegrees = FixtureResponse.json(#"{"kind": "books#volumes", "totalItems": 1, "items": [{"id": "sd1", "volumeInfo": {"title": "Six Degrees", "subtitle": "The Science of a Connected Age", "authors": ["Duncan J. Watts"], "industryIdentifiers": [{"type": "ISBN_13", "identifier": "9780393325423"}]}}]}"#)
        server.route(Self.volumes) { request in (request.query("q") ?? "").contains("Degrees") ? sixDegrees : none }
        let (session, _) = try session(server, readings: [SpineReading(text: "Six Degrces WATTS", position: 0, confidence: 0.9)])
        let file = try photo("respelt")
        defer { try? FileManager.default.removeItem(at: file) }
        var events: [SpineEvent] = []
        _ = await session.run(files: [file.path]) { events.append($0) }
        let asked = server.requests(to: Self.volumes).compactMap { $0.query("q") }
        #expect(asked.first?.contains("Degrces") == true, "\(asked)")
        #expect(asked.contains { $0.contains("Six Degrees") }, "\(asked)")
        #expect(events.contains { $0.workKey != nil && $0.title?.hasPrefix("Six Degrees") == true }, "\(asked) \(events.map(\.kind))")
    }

    /// A reading that ran two spines together ("… Civll Engincering Materials", noisy model seed 35)
    /// whose search returned only the first book: the words beside that book are searched on their
    /// own, as read, so the source's respelling finds the neighbour, and both books are named.
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aNeighbourRunTogetherIsSearchedOnItsOwn() async throws {
        let server = FixtureServer()
        try await server.start()
        defer { Task { await server.stop() } }
        let none = try FixtureResponse.fixture("googlebooks/volumes_zero_results_no_items_key.json")
        let principia = FixtureResponse.json(#"{"kind": "books#volumes", "totalItems": 1, "items": [{"id": "ap1", "volumeInfo": {"title": "Architecture Principia", "authors": ["Gail Peter Borden"], "industryIdentifiers": [{"type": "ISBN_13", "identifier": "9780415716352"}]}}]}"#)
        let civil = FixtureResponse.json(#"{"kind": "books#volumes", "totalItems": 1, "items": [{"id": "ce1", "volumeInfo": {"title": "Civil Engineering Materials", "authors": ["Neil Jackson"], "industryIdentifiers": [{"type": "ISBN_13", "identifier": "9780333639832"}]}}]}"#)
        server.route(Self.volumes) { request in
            let q = request.query("q") ?? ""
            if q.contains("Principia") { return principia }
            return q.contains("Engineering") ? civil : none
        }
        let (session, _) = try session(server, readings: [SpineReading(text: "Architecture Principia BORDEN Civll Engincering Materials",
                                                                       position: 0, confidence: 0.9)])
        let file = try photo("leftover")
        defer { try? FileManager.default.removeItem(at: file) }
        var events: [SpineEvent] = []
        _ = await session.run(files: [file.path]) { events.append($0) }
        let asked = server.requests(to: Self.volumes).compactMap { $0.query("q") }
        #expect(asked.contains { $0.contains("Civll Engincering") && !$0.contains("Principia") }, "\(asked)")
        #expect(events.contains { $0.workKey != nil && $0.title == "Architecture Principia" }, "\(events.map(\.title))")
        #expect(events.contains { $0.workKey != nil && $0.title == "Civil Engineering Materials" }, "\(asked) \(events.map(\.title))")
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aSourceTheBreakerPausedIsNotAskedAgain() async throws {
        let server = FixtureServer()
        try await server.start()
        defer { Task { await server.stop() } }
        // Google Books asks to wait two minutes: the breaker pauses it at once.
        server.route(Self.volumes, response: .json(#"{"error":{"code":429,"message":"slow down"}}"#, status: 429, headers: ["Retry-After": "120"]))
        let (session, lookup) = try session(server, readings: Array(Self.readings.prefix(2)))
        let first = try photo("first"), second = try photo("second")
        defer { for file in [first, second] { try? FileManager.default.removeItem(at: file) } }
        let sentBeforeSecond = Mutex(0)
        var events: [SpineEvent] = []
        _ = await session.run(files: [first.path, second.path], onPhoto: { number, _, _ in
            if number == 2 { sentBeforeSecond.withLock { $0 = server.requests(to: Self.volumes).count } }
        }) { events.append($0) }

        #expect(lookup.breaker.isPaused(GoogleBooksSource.sourceName))
        #expect(sentBeforeSecond.withLock { $0 } >= 1)
        #expect(server.requests(to: Self.volumes).count == sentBeforeSecond.withLock { $0 }, "the paused source was asked for the second photo")
        // Nothing settled as unmatched: the readings wait for a source that can answer.
        #expect(events.count == 4 && events.allSatisfy { $0.kind == .queued }, "\(events.map(\.kind))")
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func offlineSendsNothing() async throws {
        let server = FixtureServer()
        try await server.start()
        defer { Task { await server.stop() } }
        let (session, _) = try session(server, readings: Self.readings, offline: true)
        let file = try photo("offline")
        defer { try? FileManager.default.removeItem(at: file) }
        var events: [SpineEvent] = []
        _ = await session.run(files: [file.path]) { events.append($0) }
        #expect(server.requests.isEmpty)
        #expect(events.allSatisfy { $0.kind == .unmatched })
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aPacedSourceIsAskedOnceASpine() async throws {
        let server = FixtureServer()
        try await server.start()
        defer { Task { await server.stop() } }
        // Neither source knows the book: every query a spine may ask is asked.
        let catalogue = try Catalogue.inMemory()
        let sources = try knowingNoBook(server, catalogue: catalogue)
        #expect(sources.map(\.isPaced) == [false, false, true])
        // A spine read four ways, the first of them junk.
        let spine = SpineReading(text: "xq zzvv", position: 0, confidence: 0.9,
                                 alternatives: ["THE SILENT ORCHARD", "SILENT ORCHARD MAYA", "ORCHARD SILENT THE"])
        let session = SpineSession(catalogue: catalogue, reader: SpineSessionReadingTests.FixedReader(readings: [spine]),
                                   sources: sources, dryRun: true)
        let file = try photo("paced")
        defer { try? FileManager.default.removeItem(at: file) }
        var events: [SpineEvent] = []
        _ = await session.run(files: [file.path]) { events.append($0) }

        // Google Books (not paced) is asked each reading worth it; Open Library (a request a second) once,
        // with the first reading worth a search.
        #expect(server.requests(to: Self.volumes).count >= 3)
        let paced = server.requests(to: "/search.json").compactMap { $0.query("title") }
        #expect(paced.count == 1, "\(paced)")
        #expect(paced.first?.localizedCaseInsensitiveContains("silent orchard") == true, "\(paced)")
        #expect(events.map(\.kind) == [.unmatched])
    }
}
