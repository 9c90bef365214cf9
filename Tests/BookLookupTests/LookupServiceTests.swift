import BookCodes
import BookLookup
import BookMetadata
import Catalogue
import Foundation
import GRDB
import Testing
import TestSupport

@Suite struct LookupServiceTests {
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func googleHitIsRecordedAndTheSecondLookupMakesNoRequest() async throws {
        try SharedFiles.requireShared()
        try await LookupHarness.with { harness in
            try harness.googleHas("9780990582939", fixture: "volumes_isbn_9780990582939_no_edge_curl_us.json")

            let first = await harness.service.lookup(isbn("9780990582939"))
            guard case let .found(work, fromCache) = first else { Issue.record("expected found, got \(first)"); return }
            #expect(!fromCache)
            #expect(work.workKey == "craftinginterpreters_robertnystrom")
            #expect(work.coverImageUrl == "https://books.google.com/books/content?id=ySOBzgEACAAJ&printsec=frontcover&img=1&zoom=1&source=gbs_api")
            #expect(work.pageCount == 640 && work.publishDate == "2021-07-27" && work.apiSource == "googleBooks")
            #expect(harness.server.requests.count == 1)

            // What landed in the database.
            let stored = try #require(try harness.catalogue.work(key: "craftinginterpreters_robertnystrom"))
            #expect(stored == work)
            #expect(try harness.catalogue.isbnIndexEntry(isbn("9780990582939"))?.workKey == work.workKey)
            #expect(try harness.count("works") == 1 && harness.count("isbnIndex") == 1 && harness.count("pendingLookups") == 0)

            harness.server.clearRequests()
            let second = await harness.service.lookup(isbn("0990582930"))  // the ISBN-10 of the same book
            #expect(second == .found(stored, fromCache: true))
            #expect(harness.server.requests.isEmpty)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func googleMissFallsBackToOpenLibrary() async throws {
        try SharedFiles.requireShared()
        try await LookupHarness.with { harness in
            try harness.googleHasNothing("9780060273224")
            try harness.openLibraryHasSabriel()

            let result = await harness.service.lookup(isbn("0060273224"))
            guard case let .found(work, false) = result else { Issue.record("expected found, got \(result)"); return }
            #expect(work.workKey == "sabriel_garthnix" && work.apiSource == "openLibrary")
            #expect(work.editions == ["9780060273224"])
            #expect(harness.server.requests.map(\.path).first == LookupHarness.volumes)
            #expect(harness.server.requests.map(\.path).contains("/books/OL22951843M.json"))
            #expect(try harness.catalogue.work(forISBN: isbn("9780060273224"))?.workKey == "sabriel_garthnix")
            #expect(try harness.count("pendingLookups") == 0)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func googleQuotaErrorFallsBackToOpenLibrary() async throws {
        try SharedFiles.requireShared()
        try await LookupHarness.with { harness in
            try harness.googleFails("9780060273224", status: 429, fixture: "error_429_quota_exceeded_per_day.json")
            try harness.openLibraryHasSabriel()

            let result = await harness.service.lookup(isbn("9780060273224"), intent: .own())
            guard case let .found(work, false) = result else { Issue.record("expected found, got \(result)"); return }
            #expect(work.title == "Sabriel")
            #expect(try harness.count("pendingLookups") == 0)
            #expect(try harness.count("works") == 1)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func bothSourcesDownQueuesTheISBNAndRetryResolvesItOnce() async throws {
        try SharedFiles.requireShared()
        try await LookupHarness.with { harness in
            try harness.googleHas("9781250313188", fixture: "volumes_isbn_9781250313188_no_edge_curl_us.json")
            await harness.server.stop()

            let code = isbn("9781250313188")
            let result = await harness.service.lookup(code, intent: .own())
            guard case let .unavailable(source, reason) = result else { Issue.record("expected unavailable, got \(result)"); return }
            #expect(source == .source("googleBooks"))
            #expect(!reason.isEmpty)
            let row = try #require(try harness.catalogue.pendingLookup(isbn: code))
            #expect(row.attempts == 1 && row.source == "googleBooks" && row.intent.addOwned)
            #expect(row.reason.contains("googleBooks") && row.reason.contains("openLibrary"))
            #expect(row.nextRetryAt > harness.now && row.nextRetryAt <= harness.now + 90)
            #expect(try harness.count("works") == 0)

            // A second scan while still down: the same row, one more attempt, later retry.
            _ = await harness.service.lookup(code, intent: .own())
            let again = try #require(try harness.catalogue.pendingLookup(isbn: code))
            #expect(again.attempts == 2 && again.nextRetryAt > row.nextRetryAt - 20)
            #expect(try harness.count("pendingLookups") == 1)

            // Not due yet: nothing is retried.
            #expect(try await harness.retryPending(now: harness.now).isEmpty)

            try await harness.server.start()
            let outcomes = try await harness.retryPending(now: harness.now + 3600)
            #expect(outcomes.count == 1)
            guard case .found(let work, false)? = outcomes.first?.result, case .added(let item)? = outcomes.first?.added else {
                Issue.record("expected found and added, got \(outcomes)"); return
            }
            #expect(work.title == "Gideon the Ninth" && item.isbn == code.digits && item.isOwned)
            #expect(try harness.count("pendingLookups") == 0)
            #expect(try harness.count("works") == 1 && harness.count("isbnIndex") == 1 && harness.count("items") == 1)

            // Nothing left to do; a repeat changes nothing.
            #expect(try await harness.retryPending(now: harness.now + 7200, onlyDue: false).isEmpty)
            #expect(try harness.count("items") == 1 && harness.count("works") == 1)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func everySourceSayingNoSuchBookIsNotFoundAndNotQueued() async throws {
        try SharedFiles.requireShared()
        try await LookupHarness.with { harness in
            try harness.googleHasNothing("9780306406157")
            try harness.openLibraryHasNothing("9780306406157")

            #expect(await harness.service.lookup(isbn("9780306406157"), intent: .own()) == .notFound)
            #expect(try harness.count("pendingLookups") == 0 && harness.count("works") == 0)
            #expect(harness.server.requests.map(\.path) == [LookupHarness.volumes, "/isbn/9780306406157.json"])
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aServerErrorIsNeverNotFoundEvenWhenTheOtherSourceMisses() async throws {
        try SharedFiles.requireShared()
        try await LookupHarness.with { harness async throws in
            try harness.googleFails("9780306406157", status: 503, fixture: "error_503_backend_failed.json")
            try harness.openLibraryHasNothing("9780306406157")

            let result = await harness.service.lookup(isbn("9780306406157"))
            #expect(result == .unavailable(source: .source("googleBooks"), reason: SourceErrorText.server503))
            let row = try #require(try harness.catalogue.pendingLookup(isbn: isbn("9780306406157")))
            #expect(row.intent == .lookupOnly && row.source == "googleBooks")
        }
    }

    @Test func offlineLookupsUseTheCacheOnly() async throws {
        try await LookupHarness.with { harness async throws in
            let code = isbn("9780306406157")
            #expect(await harness.service.lookup(code, offline: true) == .unavailable(source: .offline, reason: "not in the local cache (offline)"))
            #expect(try harness.count("pendingLookups") == 0)
            _ = await harness.service.lookup(code, offline: true, intent: .own())
            #expect(try harness.catalogue.pendingLookup(isbn: code)?.intent.addOwned == true)
            #expect(harness.server.requests.isEmpty)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func searchGoesToTheCacheFirstThenTheSources() async throws {
        try SharedFiles.requireShared()
        try await LookupHarness.with { harness in
            try harness.server.replay(LookupHarness.volumes, fixture: "googlebooks/volumes_search_intitle_the_fifth_element_10_items.json")

            let first = await harness.service.search(title: "The Fifth Element")
            #expect(first.source == .source("googleBooks"))
            #expect(!first.works.isEmpty)
            #expect(harness.server.requests.first?.query("q")?.contains("intitle:") == true)
            let stored = try harness.count("works")
            #expect(stored == first.works.count)

            harness.server.clearRequests()
            let title = try #require(first.works.first?.title)
            let second = await harness.service.search(title: String(title.prefix(4)).lowercased())
            #expect(second.source == .cache && second.works.contains { $0.title == title })
            #expect(harness.server.requests.isEmpty)
        }
    }
}

enum SourceErrorText {
    static let server503 = "server error (HTTP 503)"
}

@Suite struct LookupServiceFallbackTests {
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func searchFallsBackToOpenLibraryWhenGoogleBooksFails() async throws {
        try SharedFiles.requireShared()
        try await LookupHarness.with { harness in
            try harness.server.replay(LookupHarness.volumes, fixture: "googlebooks/error_503_backend_failed.json", status: 503)
            try harness.server.replay("/search.json", fixture: "openlibrary/search_json_title_author_institute_king_2024.json")

            let outcome = await harness.service.search(title: "The Institute", author: "Stephen King")
            #expect(outcome.source == .source("openLibrary"))
            #expect(outcome.failures.map(\.source) == ["googleBooks"])
            #expect(outcome.works.contains { $0.workKey == "institute_stephenking" })
            #expect(harness.server.requests(to: "/search.json").first?.query("author") == "Stephen King")
            #expect(try harness.catalogue.work(key: "institute_stephenking") != nil)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aPlainLookupKeepsAnEarlierScansWishToOwnTheBook() async throws {
        try SharedFiles.requireShared()
        try await LookupHarness.with { harness in
            try harness.googleHas("9781761186769", fixture: "volumes_isbn_9781761186769_single_hit_nz.json")
            let code = isbn("9781761186769")
            await harness.server.stop()
            guard case .unavailable = await harness.service.lookup(code, intent: .own()) else { Issue.record("expected unavailable"); return }

            try await harness.server.start()
            guard case let .found(work, false) = await harness.service.lookup(code) else { Issue.record("expected found"); return }
            #expect(work.coverImageUrl == "https://books.google.com/books/content?id=iEGqEAAAQBAJ&printsec=frontcover&img=1&zoom=1&source=gbs_api")
            #expect(try harness.catalogue.pendingLookup(isbn: code)?.intent.addOwned == true)

            harness.server.clearRequests()
            let outcomes = try await harness.retryPending(now: harness.now, onlyDue: false)
            guard case .added(let item)? = outcomes.first?.added else { Issue.record("expected added, got \(outcomes)"); return }
            #expect(item.bookId == work.workKey)
            #expect(harness.server.requests.isEmpty)  // resolved from the cache
            #expect(try harness.count("pendingLookups") == 0 && harness.count("items") == 1)
        }
    }
}

@Suite struct PendingRetryLibraryLimitTests {
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func queuedScansFillTheLastFreeSlotInQueueOrder() async throws {
        try SharedFiles.requireShared()
        try await LookupHarness.with { harness in
            for n in 0..<49 {
                let code = generatedISBN(n, prefix: "97910")
                let work = try harness.catalogue.record(EditionMetadata(title: "Owned \(n)", authors: ["A"], apiSource: "manual"), for: code)
                _ = try harness.catalogue.addOwned(isbn: code, work: work)
            }
            let queued = ["9780990582939", "9781250313188", "9781761186769"]
            for code in queued {
                try harness.googleHas(code, fixture: code == "9781761186769"
                    ? "volumes_isbn_9781761186769_single_hit_nz.json" : "volumes_isbn_\(code)_no_edge_curl_us.json")
            }
            await harness.server.stop()
            for code in queued { _ = await harness.service.lookup(isbn(code), intent: .own()) }
            #expect(try harness.count("pendingLookups") == 3)

            try await harness.server.start()
            let outcomes = try await harness.retryPending(now: harness.now, onlyDue: false)
            #expect(outcomes.map(\.isbn.digits) == queued)
            guard case .added? = outcomes[0].added else { Issue.record("first should be added: \(outcomes[0])"); return }
            #expect(outcomes[1].added == .libraryFull(owned: 50, limit: 50))
            #expect(outcomes[2].added == .libraryFull(owned: 50, limit: 50))
            #expect(try harness.catalogue.ownedCount() == 50)
            #expect(try harness.count("isbnIndex") == 52)
            // The two that did not fit stay queued, said why, and are added once the plan allows.
            #expect(outcomes[1].stillPending?.reason.contains("library full") == true)
            let kept = try harness.catalogue.pendingLookups().map(\.isbn).sorted()
            #expect(kept == Array(queued.dropFirst()))
            #expect(try harness.catalogue.pendingLookups().allSatisfy { $0.intent.addOwned })

            try harness.catalogue.setPro(true)
            let later = try await harness.retryPending(now: harness.now, onlyDue: true)
            #expect(later.compactMap { if case .added? = $0.added { $0.isbn.digits } else { nil } } == Array(queued.dropFirst()))
            #expect(try harness.catalogue.ownedCount() == 52 && harness.count("pendingLookups") == 0)
        }
    }

    @Test func aBookThatCannotBeQueuedIsADatabaseFailureNotQueued() async throws {
        try await LookupHarness.with { harness in
            await harness.server.stop()
            // The queue's table is gone under the service: the queue write fails.
            try await DatabaseQueue(path: harness.catalogue.path).write { db in try db.execute(sql: "DROP TABLE pendingLookups") }
            let result = await harness.service.lookup(isbn("9781250313188"), intent: .own())
            guard case let .unavailable(source, reason) = result else { Issue.record("expected unavailable, got \(result)"); return }
            #expect(source == .database)
            #expect(reason.contains("could not be queued") && reason.contains("pendingLookups"))
        }
    }
}


extension LookupHarness {
    /// `retryPending` with the catalogue's add as the intake passes it (the Intake module's own tests cover the intake).
    func retryPending(now: Date, onlyDue: Bool = true) async throws -> [PendingRetryOutcome] {
        try await service.retryPending(now: now, onlyDue: onlyDue) { isbn, work, intent throws(CatalogueError) in
            try catalogue.addOwned(isbn: isbn, work: work, listId: intent.listId, format: intent.format, now: now)
        }
    }
}
