import BookCodes
import BookLookup
import Catalogue
import Foundation
import MetadataSources
import Testing
import TestSupport

/// The breaker shared by every lookup of a service: no network means one attempt per
/// source, then every other book is queued at once, until a probe finds it back.
@Suite struct SourceBreakerTests {
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var requests: [String] { lock.withLock { lines.filter { $0.hasPrefix("GET ") } } }
    }

    /// The catalogue is in memory: the breaker's rules need no file.
    func service(_ server: FixtureServer, clock: @escaping @Sendable () -> Date, log: Lines,
                 timeout: TimeInterval = 5) throws -> LookupService {
        let catalogue = try Catalogue.inMemory()
        return LookupService(catalogue: catalogue, sources: server.metadataSources(retries: 2, timeout: timeout, logger: RequestLogger(log.append)),
                             clock: clock, breaker: SourceBreaker(probeInterval: 30))
    }

    @Test func noConnectionOpensTheBreakerAtOnceAndQueuesTheRest() async throws {
        let server = FixtureServer()
        try await server.start()
        await server.stop()  // connections are refused from now on
        let now = Locked(Date(timeIntervalSince1970: 1_780_000_000))
        let log = Lines()
        let service = try service(server, clock: { now.value }, log: log)
        let codes = (0..<6).map { generatedISBN($0, prefix: "97910") }
        for code in codes {
            guard case .unavailable = await service.lookup(code, intent: .own()) else { Issue.record("expected unavailable"); return }
        }
        // One request per source for the first book; the other five never touched the network.
        #expect(log.requests.count == 2, "\(log.requests)")
        #expect(try service.catalogue.pendingLookups().count == 6)
        #expect(try service.catalogue.pendingLookups().allSatisfy { $0.intent.addOwned && $0.reason.contains("cannot connect") })

        // Later, one probe per source goes out (and the breaker stays open while it fails).
        now.value += 31
        _ = await service.lookup(generatedISBN(7, prefix: "97910"), intent: .own())
        _ = await service.lookup(generatedISBN(8, prefix: "97910"), intent: .own())
        #expect(log.requests.count == 4)
    }

    @Test func aTimeOutOpensTheBreaker() async throws {
        try await withFixtureServer(hangLimit: .seconds(5)) { server in
            server.neverAnswer("/books/v1/volumes")
            // Open Library: unmatched requests get 404 (no such book).
            let log = Lines()
            let now = Date(timeIntervalSince1970: 1_780_000_000)
            let service = try service(server, clock: { now }, log: log, timeout: 0.3)
            _ = await service.lookup(generatedISBN(0, prefix: "97910"), intent: .own())
            #expect(service.breaker.isPaused(GoogleBooksSource.sourceName))
            server.clearRequests()
            _ = await service.lookup(generatedISBN(1, prefix: "97910"), intent: .own())
            #expect(server.requests(to: "/books/v1/volumes").isEmpty)
            #expect(try service.catalogue.pendingLookup(isbn: generatedISBN(1, prefix: "97910"))?.reason.contains("time-out") == true)
        }
    }
}

/// A value behind a lock, for clocks tests move by hand.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
