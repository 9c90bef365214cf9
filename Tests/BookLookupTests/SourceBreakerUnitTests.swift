import BookCodes
import BookLookup
import BookMetadata
import Catalogue
import Foundation
import MetadataSources
import Testing
import TestSupport

/// The breaker's rules on their own: outcomes fed by hand, time moved by hand, no network.
@Suite struct SourceBreakerUnitTests {
    let start = Date(timeIntervalSince1970: 1_780_000_000)
    let refused = SourceError.network("cannot connect to 127.0.0.1")

    @Test func ordinaryTransientFailuresPauseOnlyAfterTheThresholdInARow() {
        let breaker = SourceBreaker(threshold: 3, probeInterval: 30)
        breaker.record(.failure(.server(status: 503)), for: "a", now: start)
        breaker.record(.failure(.server(status: 502)), for: "a", now: start)
        #expect(!breaker.isPaused("a"))
        #expect(breaker.pausedError(for: "a", now: start) == nil)
        breaker.record(.failure(.server(status: 500)), for: "a", now: start)
        #expect(breaker.isPaused("a"))
        #expect(breaker.pausedError(for: "a", now: start) == .server(status: 500))
        #expect(!breaker.isPaused("b"), "one breaker per source")
    }

    @Test func aSuccessResetsTheCount() {
        let breaker = SourceBreaker(threshold: 2)
        breaker.record(.failure(.server(status: 503)), for: "a", now: start)
        breaker.record(.success(()), for: "a", now: start)
        breaker.record(.failure(.server(status: 503)), for: "a", now: start)
        #expect(!breaker.isPaused("a"))
    }

    @Test func noConnectionOrATimeOutPausesAtOnceAndOneProbeGoesThroughAfterTheInterval() {
        for error in [refused, SourceError.timeout] {
            let breaker = SourceBreaker(threshold: 3, probeInterval: 30)
            breaker.record(.failure(error), for: "a", now: start)
            #expect(breaker.pausedError(for: "a", now: start.addingTimeInterval(29)) == error)
            // After the interval exactly one caller may ask (the probe); the others keep waiting.
            #expect(breaker.pausedError(for: "a", now: start.addingTimeInterval(30)) == nil)
            #expect(breaker.pausedError(for: "a", now: start.addingTimeInterval(31)) == error)
            // A failed probe pauses again from its own time; a good one closes the breaker.
            breaker.record(.failure(error), for: "a", now: start.addingTimeInterval(31))
            #expect(breaker.pausedError(for: "a", now: start.addingTimeInterval(60)) == error)
            #expect(breaker.pausedError(for: "a", now: start.addingTimeInterval(61)) == nil)
            breaker.record(.success(()), for: "a", now: start.addingTimeInterval(61))
            #expect(!breaker.isPaused("a"))
            #expect(breaker.pausedError(for: "a", now: start.addingTimeInterval(61)) == nil)
        }
    }

    @Test func aServerAskingToWaitIsWaitedForAndADailyQuotaForAnHour() {
        let breaker = SourceBreaker(probeInterval: 30)
        breaker.record(.failure(.rateLimited(retryAfter: 120)), for: "a", now: start)
        #expect(breaker.pausedError(for: "a", now: start.addingTimeInterval(119)) == .rateLimited(retryAfter: 120))
        #expect(breaker.pausedError(for: "a", now: start.addingTimeInterval(120)) == nil)
        breaker.record(.failure(.quotaExceeded), for: "b", now: start)
        #expect(breaker.pausedError(for: "b", now: start.addingTimeInterval(3599)) == .quotaExceeded)
        #expect(breaker.pausedError(for: "b", now: start.addingTimeInterval(3600)) == nil)
    }

    @Test func permanentErrorsNeedAPersonNotABreaker() {
        let breaker = SourceBreaker(threshold: 1)
        for error in [SourceError.unauthorized, .forbidden("region"), .badResponse("not JSON")] {
            breaker.record(.failure(error), for: "a", now: start)
        }
        #expect(!breaker.isPaused("a"))
    }

    /// The breaker inside a LookupService, with a fake source: the first book asks it, the
    /// rest are queued without asking until the probe interval has passed.
    @Test func aLookupServiceStopsAskingAnUnreachableSource() async throws {
        let source = FakeSource(error: refused)
        let now = Locked(start)
        let service = LookupService(catalogue: try Catalogue.inMemory(), sources: [source], clock: { now.value },
                                    breaker: SourceBreaker(probeInterval: 30))
        for index in 0..<4 {
            guard case .unavailable = await service.lookup(generatedISBN(index, prefix: "97910"), intent: .own()) else {
                Issue.record("expected unavailable")
                return
            }
        }
        #expect(source.calls == 1)
        #expect(try service.catalogue.pendingLookups().count == 4)
        now.value += 31
        _ = await service.lookup(generatedISBN(5, prefix: "97910"), intent: .own())
        #expect(source.calls == 2)
    }
}

/// A source that fails every request with one error, counting the requests.
final class FakeSource: MetadataSource, @unchecked Sendable {
    let name = "fake"
    private let error: SourceError
    private let lock = NSLock()
    private var count = 0

    init(error: SourceError) { self.error = error }

    var calls: Int { lock.withLock { count } }

    func edition(isbn: ISBN13) async throws(SourceError) -> EditionMetadata? {
        lock.withLock { count += 1 }
        throw error
    }

    func search(title: String, author: String?, limit: Int) async throws(SourceError) -> [EditionMetadata] {
        lock.withLock { count += 1 }
        throw error
    }
}
