import BookCodes
import Foundation
import MetadataSources
import Testing
import TestSupport

/// Google Books over real HTTP on 127.0.0.1, replaying recorded responses.
@Suite struct GoogleBooksSourceTests {
    static let volumes = "/books/v1/volumes"

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func singleHitIsParsedAndCoverIsHTTPSWithoutCurl() async throws {
        try await Harness.with { harness in
            try harness.server.replay(Self.volumes, fixture: "googlebooks/volumes_isbn_9781761186769_single_hit_nz.json")

            let edition = try #require(try await harness.google.edition(isbn: isbn("9781761186769")))
            #expect(edition.title == "Everything is Beautiful and Everything Hurts")
            #expect(edition.authors == ["Josie Shapiro"])
            #expect(edition.isbn13 == "9781761186769")
            #expect(edition.isbn10 == "1761186760")
            #expect(edition.pageCount == 292)
            #expect(edition.publishDate == "2023-05-16")
            #expect(edition.publisher == "Allen & Unwin")
            #expect(edition.language == "en")
            #expect(edition.categories == ["Fiction"])
            #expect(edition.apiSource == "googleBooks")
            #expect(edition.coverImageUrl
                == "https://books.google.com/books/content?id=iEGqEAAAQBAJ&printsec=frontcover&img=1&zoom=1&source=gbs_api")
            // Windows-1252 dashes that arrived as C1 controls (U+0097) become real dashes.
            let description = try #require(edition.description)
            #expect(description.contains("long distance runner — every pleasure"))
            #expect(!description.unicodeScalars.contains { (0x80...0x9F).contains($0.value) })

            let request = try #require(harness.server.requests.first)
            #expect(request.path == Self.volumes)
            #expect(request.query("q") == "isbn:9781761186769")
            #expect(request.query("key") == nil)
            #expect(request.header("User-Agent") == Harness.product)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func httpThumbnailWithoutCurlKeepsItsQuery() async throws {
        try await Harness.with { harness in
            try harness.server.replay(Self.volumes, fixture: "googlebooks/volumes_isbn_9780990582939_no_edge_curl_us.json")
            let edition = try #require(try await harness.google.edition(isbn: isbn("9780990582939")))
            #expect(edition.coverImageUrl
                == "https://books.google.com/books/content?id=ySOBzgEACAAJ&printsec=frontcover&img=1&zoom=1&source=gbs_api")
            #expect(edition.publishDate == "2021-07-27")
            #expect(edition.pageCount == 640)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func noItemsKeyMeansNotFound() async throws {
        try await Harness.with { harness in
            try harness.server.replay(Self.volumes, fixture: "googlebooks/volumes_zero_results_no_items_key.json")
            #expect(try await harness.google.edition(isbn: isbn("9780000000002")) == nil)
            #expect(try await harness.google.search(title: "Nothing", author: nil, limit: 5).isEmpty)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func editionLookupPicksTheItemCarryingTheISBN() async throws {
        try await Harness.with { harness in
            // Ten items; the wanted ISBN is the second one's (ISBN_13 listed first there).
            try harness.server.replay(Self.volumes, fixture: "googlebooks/volumes_search_intitle_the_fifth_element_10_items.json")
            let byISBN13 = try #require(try await harness.google.edition(isbn: isbn("9781438459851")))
            #expect(byISBN13.authors == ["Crystal Leigh Endsley"])
            #expect(byISBN13.publishDate == "2015-12-28")
            // ISBN_10 listed second in the first item; matched through the ISBN-10 of the wanted ISBN-13.
            let byISBN10 = try #require(try await harness.google.edition(isbn: isbn("9780006483465")))
            #expect(byISBN10.authors == ["Terry Bisson"])
            #expect(byISBN10.publishDate == "1997")
            // Nothing lists it: another book's volume is not this ISBN's book (issue 37).
            #expect(try await harness.google.edition(isbn: isbn("9780306406157")) == nil)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func searchHandlesOtherIdentifiersAndMissingFields() async throws {
        try await Harness.with { harness in
            try harness.server.replay(Self.volumes, fixture: "googlebooks/volumes_search_6_items_other_identifiers_missing_fields.json")
            let results = try await harness.google.search(title: "The School for Daughters", author: "Lawler", limit: 10)
            #expect(results.count == 6)
            // OTHER identifiers only: no ISBN, but the edition is still usable.
            #expect(results[0].isbn13 == nil)
            #expect(results[0].publishDate == "1808")
            #expect(results[0].coverImageUrl?.hasPrefix("https://") == true)
            #expect(results[0].coverImageUrl?.contains("edge=curl") == false)
            // Missing pageCount, cover and description stay nil.
            #expect(results[1].isbn13 == "9780975686263")
            #expect(results[1].pageCount == nil)
            #expect(results[1].coverImageUrl == nil)
            #expect(results[1].publishDate == "2004-01-01")
            // Missing authors.
            #expect(results[4].authors.isEmpty)

            let request = try #require(harness.server.requests.first)
            #expect(request.query("q") == #"intitle:"The School for Daughters" inauthor:"Lawler""#)
            #expect(request.query("maxResults") == "10")
            #expect(request.rawQuery.contains("intitle:%22The%20School%20for%20Daughters%22"))
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func anAuthorsBooksAreAskedWithoutATitle() async throws {
        // Shelf context asks for an author's books: no empty intitle: term to match nothing.
        try await Harness.with { harness in
            try harness.server.replay(Self.volumes, fixture: "googlebooks/volumes_search_6_items_other_identifiers_missing_fields.json")
            let results = try await harness.google.search(title: "", author: "Lawler", limit: 40)
            #expect(results.count == 6)
            let request = try #require(harness.server.requests.first)
            #expect(request.query("q") == #"inauthor:"Lawler""#)
            #expect(request.query("maxResults") == "40")
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func pageCountZeroMeansNone() async throws {
        try await Harness.with { harness in
            try harness.server.replay(Self.volumes, fixture: "googlebooks/volumes_search_intitle_the_stranger_ro_pagecount0.json")
            let results = try await harness.google.search(title: "The Stranger", author: nil, limit: 3)
            #expect(results.count == 3)
            let edition = try #require(try await harness.google.edition(isbn: isbn("9781590200650")))
            #expect(edition.authors == ["Max Frei"])
            #expect(edition.pageCount == nil)
            #expect(edition.publishDate == "2009-04-02")
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func htmlDescriptionIsCleanedAndYearMonthDateKept() async throws {
        try await Harness.with { harness in
            // The recorded volume-by-id body, wrapped as a volumes list.
            let volume = try FixtureResponse.fixture("googlebooks/volume_by_id_ySOBzgEACAAJ_publishedDate_yyyy_mm_html_description.json")
            let list = #"{"kind":"books#volumes","totalItems":1,"items":["# + String(decoding: volume.body, as: UTF8.self) + "]}"
            harness.server.route(Self.volumes, response: .json(list))

            let edition = try #require(try await harness.google.edition(isbn: isbn("9780990582939")))
            #expect(edition.title == "Crafting Interpreters")
            #expect(edition.publishDate == "2021-07")
            let description = try #require(edition.description)
            #expect(!description.contains("<"))
            #expect(description.hasPrefix("Despite using them every day"))
            #expect(description.contains("the final exam.\n\nThat fearsome reputation"))
            #expect(description.contains("\"compilers\""))
            #expect(edition.coverImageUrl?.hasPrefix("https://books.google.com/books/content?id=ySOBzgEACAAJ") == true)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func apiKeyIsSentButNeverShownAndInvalidKeyIsUnauthorized() async throws {
        let secret = "AIzaTEST-secret-0123456789"
        try await Harness.with(apiKey: secret) { harness in
            try harness.server.replay(Self.volumes, fixture: "googlebooks/error_400_api_key_invalid.json", status: 400)

            let error = await sourceError { _ = try await harness.google.edition(isbn: isbn("9781761186769")) }
            #expect(error == .unauthorized)
            #expect(error?.isTransient == false)
            #expect(harness.server.requests.count == 1, "a rejected key is not retried")
            // As a header, never in the URL a server could quote back.
            #expect(harness.server.requests[0].header("X-Goog-Api-Key") == secret)
            #expect(harness.server.requests[0].query("key") == nil)
            #expect(error.map { String(describing: $0) }?.contains(secret) == false)
            #expect(!harness.log.lines.isEmpty)
            #expect(harness.log.lines.allSatisfy { !$0.contains(secret) })
            #expect(!String(describing: harness.googleSettings).contains(secret))
            #expect(!String(reflecting: harness.googleSettings).contains(secret))
        }
    }

    /// A server quoting the request back (query, headers) in an error message: the key
    /// leaves in no encoding.
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aServerQuotingTheKeyBackNeverLeaksIt() async throws {
        let secret = "AIza+CANARY/x=y&z%41"
        try await Harness.with(retries: 0, apiKey: secret) { harness in
            harness.server.route(Self.volumes) { request in
                let echoed = "q=\(request.rawQuery) key=AIza%2BCANARY/x%3Dy%26z%2541 header=\(request.header("X-Goog-Api-Key") ?? "")"
                return .json(#"{"error": {"code": 400, "message": "Invalid request: \#(echoed)", "errors": [{"reason": "invalid"}]}}"#,
                             status: 400)
            }
            let error = try #require(await sourceError { _ = try await harness.google.edition(isbn: isbn("9781761186769")) })
            let text = String(describing: error)
            #expect(text.contains("REDACTED"))
            #expect(!text.contains("CANARY"), "\(text)")
            #expect(harness.log.lines.allSatisfy { !$0.contains("CANARY") })
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func dailyQuotaIsTransientAndRetriedOnlyUpToTheLimit() async throws {
        try await Harness.with(retries: 2) { harness in
            try harness.server.replay(Self.volumes, fixture: "googlebooks/error_429_quota_exceeded_per_day.json", status: 429)

            let error = await sourceError { _ = try await harness.google.edition(isbn: isbn("9781761186769")) }
            #expect(error == .quotaExceeded)
            #expect(error?.isTransient == true)
            #expect(harness.server.requests.count == 3)
            #expect(harness.clock.sleeps.count == 2)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func forbiddenWithQuotaReasonIsQuota() async throws {
        try await Harness.with(retries: 0) { harness in
            let body = #"{"error":{"code":403,"message":"Daily Limit Exceeded","errors":[{"domain":"usageLimits","reason":"dailyLimitExceeded"}]}}"#
            harness.server.route(Self.volumes, response: .json(body, status: 403))
            let error = await sourceError { _ = try await harness.google.edition(isbn: isbn("9781761186769")) }
            #expect(error == .quotaExceeded)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func plainTooManyRequestsWaitsForRetryAfterDate() async throws {
        try await Harness.with(retries: 1) { harness in
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            let inTwentySeconds = formatter.string(from: Date().addingTimeInterval(20))
            harness.server.route(Self.volumes, responses: [
                FixtureResponse(status: 429, headers: ["Retry-After": inTwentySeconds]),
                try .fixture("googlebooks/volumes_isbn_9781250313188_no_edge_curl_us.json"),
            ])
            let edition = try await harness.google.edition(isbn: isbn("9781250313188"))
            #expect(edition?.title == "Gideon the Ninth")
            #expect(harness.server.requests.count == 2)
            let waited = try #require(harness.clock.sleeps.first)
            // Wall time passes between writing the date and reading it (a loaded CI machine can
            // take seconds), so only assert the wait came from the date, not the 0.5 s back-off.
            #expect(waited > 2 && waited <= 20)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func unknownLocationIsPermanentAndNotRetried() async throws {
        try await Harness.with(retries: 2) { harness in
            try harness.server.replay(Self.volumes, fixture: "googlebooks/error_403_unknown_location.json", status: 403)
            let error = try #require(await sourceError { _ = try await harness.google.edition(isbn: isbn("9781761186769")) })
            guard case .forbidden(let reason) = error else {
                Issue.record("expected .forbidden, got \(error)")
                return
            }
            #expect(reason.contains("Cannot determine user location"))
            #expect(!error.isTransient)
            #expect(harness.server.requests.count == 1)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func serverErrorThenSuccessIsRetriedWithBackOff() async throws {
        try await Harness.with(retries: 2) { harness in
            harness.server.route(Self.volumes, responses: [
                try .fixture("googlebooks/error_503_backend_failed.json", status: 503),
                try .fixture("googlebooks/volumes_isbn_9781250313188_no_edge_curl_us.json"),
            ])
            let edition = try #require(try await harness.google.edition(isbn: isbn("9781250313188")))
            #expect(edition.title == "Gideon the Ninth")
            #expect(edition.isbn10 == "125031318X")
            #expect(harness.server.requests.count == 2)
            // One back-off wait: base delay 0.5 s with 50–100 % jitter.
            #expect(harness.clock.sleeps.count == 1)
            #expect((0.25...0.5).contains(harness.clock.sleeps[0]))
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func serverErrorThatPersistsIsReportedAsServerError() async throws {
        try await Harness.with(retries: 1) { harness in
            try harness.server.replay(Self.volumes, fixture: "googlebooks/error_503_backend_failed.json", status: 503)
            let error = await sourceError { _ = try await harness.google.edition(isbn: isbn("9781250313188")) }
            #expect(error == .server(status: 503))
            #expect(error?.isTransient == true)
            #expect(harness.server.requests.count == 2)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func malformedJSONIsABadResponse() async throws {
        try await Harness.with { harness in
            harness.server.route(Self.volumes, response: .json(#"{"kind":"books#volumes","totalItems":1,"items":[{"volumeInfo":"#))
            let error = try #require(await sourceError { _ = try await harness.google.edition(isbn: isbn("9781250313188")) })
            guard case .badResponse(let reason) = error else {
                Issue.record("expected .badResponse, got \(error)")
                return
            }
            #expect(reason.contains("malformed JSON"))
            #expect(!error.isTransient)
            #expect(harness.server.requests.count == 1)
        }
    }
}
