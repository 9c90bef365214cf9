import BookCodes
import BookLookup
import Catalogue
import Foundation
import GRDB
import MetadataSources
import TestSupport

/// A catalogue on a temp SQLite file and a LookupService whose Google Books and Open
/// Library sources are the production ones, pointed at a loopback FixtureServer.
final class LookupHarness: Sendable {
    let folder: URL
    let server: FixtureServer
    let catalogue: Catalogue
    let service: LookupService
    let now = Date(timeIntervalSince1970: 1_780_000_000)

    init() async throws {
        folder = try makeTemporaryDirectory(prefix: "booklookup-test")
        server = FixtureServer()
        try await server.start()
        catalogue = try Catalogue(path: folder.appendingPathComponent("library.sqlite").path)
        let now = now
        // The clock stands still: a breaker pausing a source for a while would never let it
        // be asked again. Every lookup may probe here; SourceBreakerTests cover the pause.
        service = LookupService(catalogue: catalogue, sources: server.metadataSources(), clock: { now },
                                breaker: SourceBreaker(probeInterval: 0))
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Runs `body` with a new harness, then stops its server (awaited, also on throw).
    static func with(_ body: (LookupHarness) async throws -> Void) async throws {
        let harness = try await LookupHarness()
        do { try await body(harness) } catch {
            await harness.close()
            throw error
        }
        await harness.close()
    }

    func close() async { await server.stop() }

    /// Counts rows straight from the file, independent of the Catalogue API.
    func count(_ table: String) throws -> Int {
        try DatabaseQueue(path: catalogue.path).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? -1 }
    }

    // MARK: Routes

    static let volumes = "/books/v1/volumes"

    func googleHas(_ isbn: String, fixture: String) throws {
        try server.replay(Self.volumes, fixture: "googlebooks/\(fixture)", query: ["q": "isbn:\(isbn)"])
    }

    func googleHasNothing(_ isbn: String) throws {
        try server.replay(Self.volumes, fixture: "googlebooks/volumes_zero_results_no_items_key.json", query: ["q": "isbn:\(isbn)"])
    }

    func googleFails(_ isbn: String, status: Int, fixture: String) throws {
        try server.replay(Self.volumes, fixture: "googlebooks/\(fixture)", status: status, query: ["q": "isbn:\(isbn)"])
    }

    /// Open Library's /isbn/ redirects (302) to the edition record, as the live site does.
    func openLibraryHasSabriel() throws {
        server.route("/isbn/9780060273224.json", status: 302, headers: ["Location": "/books/OL22951843M.json"])
        try server.replay("/books/OL22951843M.json", fixture: "openlibrary/books_OL22951843M_edition_description_typed_isbn10_only.json")
        try server.replay("/works/OL15832982W.json", fixture: "openlibrary/works_OL15832982W_work_author_role.json")
        server.route("/authors/OL382982A.json", response: .json(#"{"key": "/authors/OL382982A", "name": "Garth Nix"}"#))
    }

    func openLibraryHasNothing(_ isbn: String) throws {
        try server.replay("/isbn/\(isbn).json", fixture: "openlibrary/error_404_notfound.json", status: 404)
    }
}

extension FixtureServer {
    /// Google Books and Open Library (in that order, as configured by default) pointed at
    /// this server. The time-out is generous: the suite shares two busy cores, so the
    /// server may answer late (never wrongly); Open Library's rate limit is lifted.
    func metadataSources(retries: Int = 0, timeout: TimeInterval = 30, logger: RequestLogger = .disabled) -> [any MetadataSource] {
        let product = "rapidscan/test"
        return MetadataSources.make(
            [.googleBooks(GoogleBooksSource.Settings(baseURL: baseURL, userAgent: product)),
             .openLibrary(OpenLibrarySource.Settings(baseURL: baseURL, product: product, contact: "tests@example.org",
                                                     requestsPerSecond: 1000))],
            policy: HTTPClient.Policy(timeout: timeout, retries: retries), logger: logger)
    }
}
