import BookCodes
import Foundation
@testable import MetadataSources
import Testing
import TestSupport

@Suite struct HTTPClientTests {
    /// Not retried at once: the lookup's breaker queues the book and `pending retry` asks later.
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func serverThatNeverAnswersTimesOutAndIsNotRetriedAtOnce() async throws {
        try await Harness.with(retries: 1, timeout: 0.3) { harness in
            harness.server.neverAnswer("/books/v1/volumes")
            let error = await sourceError { _ = try await harness.google.edition(isbn: isbn("9781761186769")) }
            #expect(error == .timeout)
            #expect(error?.isTransient == true)
            #expect(harness.server.requests.count == 1)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func serverDownIsATransientNetworkError() async throws {
        let harness = try await Harness.start(retries: 1)
        await harness.server.stop()
        let error = try #require(await sourceError { _ = try await harness.openLibrary.edition(isbn: isbn("9780060273224")) })
        guard case .network(let reason) = error else {
            Issue.record("expected .network, got \(error)")
            return
        }
        #expect(reason.contains("127.0.0.1"))
        #expect(error.isTransient && error.isConnectionLevel)
        #expect(harness.clock.sleeps.isEmpty, "no connection at all is not retried at once")
    }

    @Test func requestsInFlightAreBounded() async throws {
        try await withFixtureServer { server in
            let gauge = Gauge()
            server.route("/slow") { _ in
                await gauge.enter()
                try? await Task.sleep(for: .milliseconds(100))
                await gauge.leave()
                return FixtureResponse(status: 200)
            }
            let client = HTTPClient(policy: .init(timeout: 5, retries: 0, maxConcurrentRequests: 2))
            let url = server.baseURL.appendingPathComponent("slow")
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<6 { group.addTask { try await client.get(url).status } }
                for try await status in group { #expect(status == 200) }
            }
            #expect(await gauge.peak == 2)
            #expect(server.requests.count == 6)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aLongRetryAfterIsNotWaitedFor() async throws {
        try await Harness.with(retries: 2) { harness in
            harness.server.route("/books/v1/volumes", response: FixtureResponse(status: 429, headers: ["Retry-After": "3600"]))
            let error = await sourceError { _ = try await harness.google.edition(isbn: isbn("9781761186769")) }
            #expect(error == .rateLimited(retryAfter: 3600))
            #expect(harness.server.requests.count == 1)
            #expect(harness.clock.sleeps.isEmpty, "a scan must not wait an hour: the book is queued")
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aResponseOverTheSizeLimitIsRefused() async throws {
        try await Harness.with(retries: 0) { harness in
            let huge = String(repeating: "x", count: 5 << 20)
            harness.server.route("/books/v1/volumes", response: .json(
                #"{"totalItems": 1, "items": [{"volumeInfo": {"title": "Big", "description": "\#(huge)"}}]}"#))
            let error = await sourceError { _ = try await harness.google.edition(isbn: isbn("9781761186769")) }
            guard case .badResponse(let reason)? = error else { Issue.record("expected badResponse, got \(String(describing: error))"); return }
            #expect(reason.contains("over the 4194304-byte limit"))
        }
    }

    @Test func secretsAreRedactedInEveryEncoding() {
        let secret = "AIza+CANARY/x=y&z%41"
        let redaction = SecretRedaction(secret: secret)
        let quoted = [
            "key=AIza%2BCANARY/x%3Dy%26z%2541", "key=AIza%2bCANARY%2fx%3dy%26z%2541", secret,
            "AIza%2BCANARY%2Fx%3Dy%26z%2541", "AIza%252BCANARY%252Fx%253Dy%2526z%252541", #"AIza+CANARY\/x=y&z%41"#,
        ]
        for text in quoted {
            let shown = redaction.redact("bad request: \(text) (quoted)")
            #expect(!shown.contains("CANARY"), "\(text) -> \(shown)")
            #expect(shown.contains("REDACTED"))
        }
    }

    @Test func retryAfterAcceptsSecondsAndHTTPDates() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)  // Tue, 14 Nov 2023 22:13:20 GMT
        #expect(HTTPClient.retryAfter("120", now: now) == 120)
        #expect(HTTPClient.retryAfter("Tue, 14 Nov 2023 22:14:00 GMT", now: now) == 40)
        #expect(HTTPClient.retryAfter("Tue, 14 Nov 2023 22:00:00 GMT", now: now) == 0)
        #expect(HTTPClient.retryAfter("soon", now: now) == nil)
        #expect(HTTPClient.retryAfter(nil, now: now) == nil)
    }

    @Test func backOffGrowsExponentiallyWithJitterAndIsCapped() {
        let client = HTTPClient(policy: .init(baseDelay: 1, maxDelay: 5))
        for _ in 0..<20 {
            #expect((0.5...1).contains(client.retryDelay(after: 1, error: .timeout)))
            #expect((2...4).contains(client.retryDelay(after: 3, error: .server(status: 503))))
            #expect(client.retryDelay(after: 8, error: .timeout) <= 5)
        }
        #expect(client.retryDelay(after: 1, error: .rateLimited(retryAfter: 3)) == 3)
        #expect(client.retryDelay(after: 1, error: .rateLimited(retryAfter: 60)) == 5)
    }

    @Test func tokenBucketSpacesRequests() async {
        let clock = ManualClock()
        let slow = TokenBucket(rate: 1, clock: clock)
        var times: [TimeInterval] = []
        for _ in 0..<4 {
            await slow.acquire()
            times.append(clock.now)
        }
        #expect(times == [0, 1, 2, 3])

        let fastClock = ManualClock()
        let fast = TokenBucket(rate: 3, clock: fastClock)
        var fastTimes: [TimeInterval] = []
        for _ in 0..<6 {
            await fast.acquire()
            fastTimes.append(fastClock.now)
        }
        // A burst of three, then one every third of a second.
        let expected: [TimeInterval] = [0, 0, 0, 1.0 / 3, 2.0 / 3, 1]
        #expect(zip(fastTimes, expected).allSatisfy { abs($0 - $1) < 1e-9 })

        // Time that passes refills the bucket (up to its capacity only).
        fastClock.advance(by: 10)
        let before = fastClock.sleeps.count
        for _ in 0..<3 { await fast.acquire() }
        #expect(fastClock.sleeps.count == before)
        await fast.acquire()
        #expect(fastClock.sleeps.count == before + 1)
    }

    /// A request granted on time but held up by the connection slots must not go out right before
    /// the next one: the sends are spaced, not only the grants.
    @Test func sendsAreSpacedEvenWhenAGrantWasHeldUp() async {
        let clock = ManualClock()
        let bucket = TokenBucket(rate: 1, clock: clock)
        await bucket.acquire()            // granted at 0
        clock.advance(by: 0.9)            // waited 0.9 s for a connection slot
        await bucket.awaitSendingTime()   // sent at 0.9
        #expect(clock.now == 0.9)
        await bucket.acquire()            // granted at 1.0
        #expect(abs(clock.now - 1.0) < 1e-9)
        await bucket.awaitSendingTime()   // not before 1.9
        #expect(abs(clock.now - 1.9) < 1e-9)

        // Three a second: a burst of three sends, the fourth a second after the first.
        let fastClock = ManualClock()
        let fast = TokenBucket(rate: 3, clock: fastClock)
        var sent: [TimeInterval] = []
        for _ in 0..<4 {
            await fast.awaitSendingTime()
            sent.append(fastClock.now)
        }
        #expect(zip(sent, [0, 0, 0, 1]).allSatisfy { abs($0 - $1) < 1e-9 })
    }

    @Test func logsRedactTheKey() {
        let client = HTTPClient()
        let url = URL(string: "https://www.googleapis.com/books/v1/volumes?q=isbn:9781761186769&key=SECRET")!
        #expect(client.redacted(url) == "https://www.googleapis.com/books/v1/volumes?q=isbn:9781761186769&key=REDACTED")
    }

    @Test func makeBuildsTheGivenSourcesInOrder() {
        let google = MetadataSources.Source.googleBooks(GoogleBooksSource.Settings(userAgent: Harness.product))
        let openLibrary = MetadataSources.Source.openLibrary(OpenLibrarySource.Settings(product: Harness.product))
        #expect(MetadataSources.make([openLibrary, google]).map(\.name) == ["openLibrary", "googleBooks"])
        #expect(MetadataSources.make([google]).map(\.name) == ["googleBooks"])
    }

    @Test func anAPIKeyIsNeverPrinted() {
        let settings = GoogleBooksSource.Settings(apiKey: APIKey("AIzaSECRET"), userAgent: Harness.product)
        #expect("\(settings.apiKey!)" == "<redacted>")
        for text in [String(describing: settings), String(reflecting: settings), { var out = ""; dump(settings, to: &out); return out }()] {
            #expect(!text.contains("AIzaSECRET"), "\(text)")
        }
    }

    @Test func openLibraryKeepsToItsPolicyUnlessARateIsSet() {
        #expect(OpenLibrarySource.Settings(product: "p").effectiveRequestsPerSecond == 1)
        #expect(OpenLibrarySource.Settings(product: "p", contact: "me@example.org").effectiveRequestsPerSecond == 3)
        #expect(OpenLibrarySource.Settings(product: "p", requestsPerSecond: 50).effectiveRequestsPerSecond == 50)
        #expect(OpenLibrarySource.Settings(product: "p", contact: "me@example.org").userAgent == "p (me@example.org)")
    }
}

@Suite struct HTTPCancellationTests {
    /// A cancelled task's request ends at once instead of waiting out the time-out
    /// (Ctrl-C during a scan queues the books whose lookups were in flight).
    @Test func cancellingTheTaskAbortsTheRequest() async throws {
        try await withFixtureServer(hangLimit: .seconds(60)) { server in
            server.neverAnswer("/hang")
            let client = HTTPClient(policy: .init(timeout: 60, retries: 0))
            let url = server.baseURL.appendingPathComponent("hang")
            let task = Task { () -> SourceError? in
                do throws(SourceError) { _ = try await client.get(url); return nil } catch { return error }
            }
            while server.requests.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
            task.cancel()
            #expect(await task.value == .network("request cancelled"))
        }
    }
}

/// The one back-off formula both retry paths use.
@Suite struct BackoffTests {
    @Test func doublesFromBaseCapsAndSpreads() {
        let backoff = Backoff(base: 0.5, maximum: 5, spread: 0.5...1.0)
        #expect(backoff.delay(afterAttempt: 1, random: 1) == 0.5)
        #expect(backoff.delay(afterAttempt: 3, random: 1) == 2)
        #expect(backoff.delay(afterAttempt: 3, random: 0) == 1)
        #expect(backoff.delay(afterAttempt: 40, random: 1) == 5)
        #expect(backoff.delay(afterAttempt: 0, random: 1) == 0.5)
    }
}
