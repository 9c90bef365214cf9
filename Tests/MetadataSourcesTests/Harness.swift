import BookCodes
import Foundation
import MetadataSources
import RapidScanConfig
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

/// A fixture server plus settings pointing both sources at it, a manual clock and a log.
struct Harness: Sendable {
    let server: FixtureServer
    let clock = ManualClock()
    let log = LogCapture()
    var settings: RapidScanSettings

    /// Cancels the test (reported as skipped) when `../shared` is missing.
    static func start(
        retries: Int = 2, timeout: TimeInterval = 5, apiKey: String? = nil, contact: String? = "you@example.com"
    ) async throws -> Harness {
        try SharedFiles.requireShared()
        let server = FixtureServer()
        try await server.start()
        var environment = server.sourcesEnvironment(retries: retries, timeout: timeout, contact: contact)
        environment[EnvironmentVariable.openLibraryCoversURL] = "https://covers.example.org"
        if let apiKey { environment["GOOGLE_BOOKS_API_KEY"] = apiKey }
        let settings = try RapidScanSettings.parse(toml: "", environment: environment)
        return Harness(server: server, settings: settings)
    }

    var client: HTTPClient {
        HTTPClient(policy: HTTPClient.Policy(settings.http), clock: clock, logger: log.logger)
    }

    var google: GoogleBooksSource { GoogleBooksSource(settings: settings, client: client) }
    var openLibrary: OpenLibrarySource { OpenLibrarySource(settings: settings, client: client) }

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
