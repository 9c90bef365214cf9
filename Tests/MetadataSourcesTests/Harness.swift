import BookCodes
import Foundation
import MetadataSources
import TestSupport

/// A clock whose sleeps return at once and advance `now`, recording each wait.
final class ManualClock: PacingClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: TimeInterval = 0
    private var recorded: [TimeInterval] = []

    var now: TimeInterval { lock.withLock { current } }
    var sleeps: [TimeInterval] { lock.withLock { recorded } }

    func sleep(seconds: TimeInterval) async {
        lock.withLock {
            recorded.append(seconds)
            current += max(0, seconds)
        }
        await Task.yield()
    }

    func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}

/// Collects request log lines.
final class LogCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [String] = []
    var lines: [String] { lock.withLock { collected } }
    var logger: RequestLogger { RequestLogger { line in self.lock.withLock { self.collected.append(line) } } }
}

/// A fixture server plus each source's settings pointing at it, a manual clock and a log.
struct Harness: Sendable {
    /// The `User-Agent` product the sources are given here (the app's is checked in RapidScanCLITests).
    static let product = "rapidscan/test"

    let server: FixtureServer
    let clock = ManualClock()
    let log = LogCapture()
    let policy: HTTPClient.Policy
    let googleSettings: GoogleBooksSource.Settings
    let openLibrarySettings: OpenLibrarySource.Settings

    /// Cancels the test (reported as skipped) when `../shared` is missing.
    static func start(
        retries: Int = 2, timeout: TimeInterval = 5, apiKey: String? = nil, contact: String? = "you@example.com"
    ) async throws -> Harness {
        try SharedFiles.requireShared()
        let server = FixtureServer()
        try await server.start()
        return Harness(
            server: server, policy: HTTPClient.Policy(timeout: timeout, retries: retries),
            googleSettings: GoogleBooksSource.Settings(baseURL: server.baseURL, apiKey: apiKey.map(APIKey.init), userAgent: product),
            openLibrarySettings: OpenLibrarySource.Settings(
                baseURL: server.baseURL, coversURL: URL(string: "https://covers.example.org")!, product: product, contact: contact))
    }

    /// Runs `body` with a started harness, then stops its server (awaited, also on throw).
    static func with(
        retries: Int = 2, timeout: TimeInterval = 5, apiKey: String? = nil, contact: String? = "you@example.com",
        _ body: (Harness) async throws -> Void
    ) async throws {
        let harness = try await start(retries: retries, timeout: timeout, apiKey: apiKey, contact: contact)
        do { try await body(harness) } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    var client: HTTPClient { HTTPClient(policy: policy, clock: clock, logger: log.logger) }

    var google: GoogleBooksSource { GoogleBooksSource(googleSettings, client: client) }
    var openLibrary: OpenLibrarySource { OpenLibrarySource(openLibrarySettings, client: client) }
    var libraryOfCongress: LibraryOfCongressSource {
        LibraryOfCongressSource(LibraryOfCongressSource.Settings(baseURL: server.baseURL, userAgent: Self.product), client: client)
    }

    func stop() async { await server.stop() }
}

/// Runs `body` and returns the SourceError it threw (nil if it threw none or another error).
func sourceError(_ body: () async throws -> Void) async -> SourceError? {
    do {
        try await body()
        return nil
    } catch {
        return error as? SourceError
    }
}
