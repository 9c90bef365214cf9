import BookCodes
import Foundation
import MetadataSources
import Testing
import TestSupport

/// Open Library over real HTTP on 127.0.0.1, replaying recorded responses.
@Suite struct OpenLibrarySourceTests {
    /// Sabriel: /isbn → 302 → edition (typed description, ISBN-10 only) → work (author role) → author.
    private func serveSabriel(_ server: FixtureServer) throws {
        try server.replay("/isbn/9780060273224.json", fixture: "openlibrary/isbn_redirect_302.http")
        try server.replay("/books/OL7353617M.json", fixture: "openlibrary/books_OL22951843M_edition_description_typed_isbn10_only.json")
        try server.replay("/works/OL15832982W.json", fixture: "openlibrary/works_OL15832982W_work_author_role.json")
        try server.replay("/authors/OL382982A.json", fixture: "openlibrary/authors_OL1A_minimal_2008.json")
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func isbnRedirectEditionWorkAndAuthorAreCombined() async throws {
        try await Harness.with { harness in
            try serveSabriel(harness.server)

            let edition = try #require(try await harness.openLibrary.edition(isbn: isbn("9780060273224")))
            #expect(edition.title == "Sabriel")
            #expect(edition.isbn13 == "9780060273224")
            #expect(edition.isbn10 == "0060273224")
            #expect(edition.authors == ["Sachi Rautroy"])  // the recorded author record served for OL382982A
            #expect(edition.description?.hasPrefix("Sabriel, daughter of the necromancer Abhorsen") == true)
            #expect(edition.pageCount == 491)
            #expect(edition.publishDate == "1996")
            #expect(edition.publisher == "Harper Trophy")
            #expect(edition.language == "en")
            #expect(edition.format == "hardcover")
            #expect(edition.categories == ["Fantasy."])
            // The edition has no covers; the work's first cover is used.
            #expect(edition.coverImageUrl == "https://covers.example.org/b/id/6796986-L.jpg")
            #expect(edition.apiSource == "openLibrary")

            let requests = harness.server.requests
            #expect(requests.map(\.path) == [
                "/isbn/9780060273224.json", "/books/OL7353617M.json", "/works/OL15832982W.json", "/authors/OL382982A.json",
            ])
            #expect(requests.allSatisfy { $0.header("User-Agent") == "\(Harness.product) (you@example.com)" })
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func workDescriptionStringAndCoversMinusOne() async throws {
        try await Harness.with { harness in
            let server = harness.server
            server.route("/isbn/9781982110567.json", response: .json(#"""
                {"key": "/books/OL27309432M", "title": "The Institute", "covers": [-1],
                 "works": [{"key": "/works/OL20126932W"}], "publish_date": "September 10, 2019",
                 "physical_format": "Mass Market Paperback", "isbn_13": ["9781982110567"]}
                """#))
            try server.replay("/works/OL20126932W.json", fixture: "openlibrary/works_OL20126932W_description_string_covers_minus1.json")
            server.route("/authors/OL19981A.json", response: .json(#"{"key": "/authors/OL19981A", "name": "Stephen King"}"#))

            let edition = try #require(try await harness.openLibrary.edition(isbn: isbn("9781982110567")))
            #expect(edition.authors == ["Stephen King"])
            #expect(edition.description?.hasPrefix("In the middle of the night") == true)
            #expect(edition.description?.contains("\r") == false)
            // -1 means "no cover": skipped in favour of the work's first real cover.
            #expect(edition.coverImageUrl == "https://covers.example.org/b/id/10712767-L.jpg")
            #expect(edition.publishDate == "2019-09-10")
            #expect(edition.format == "paperback")
            #expect(edition.isbn10 == "1982110562")
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func onlyMinusOneCoversMeansNoCover() async throws {
        try await Harness.with { harness in
            harness.server.route("/isbn/9781943899159.json", response: .json(#"""
                {"title": "The Stars with You", "covers": [-1], "publish_date": "Mar 2022", "number_of_pages": 0,
                 "description": {"type": "/type/text", "value": "A chapbook."}}
                """#))
            let edition = try #require(try await harness.openLibrary.edition(isbn: isbn("9781943899159")))
            #expect(edition.coverImageUrl == nil)
            #expect(edition.pageCount == nil)
            #expect(edition.publishDate == "2022-03")
            #expect(edition.description == "A chapbook.")
            #expect(edition.authors.isEmpty)
            #expect(harness.server.requests.count == 1)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func editionCoversWinAndMissingWorkIsSkipped() async throws {
        try await Harness.with { harness in
            let server = harness.server
            try server.replay("/isbn/9780743273565.json", fixture: "openlibrary/books_OL23109860M_edition_gatsby_covers_notes.json")
            // The work record is gone (404): the edition alone still makes a book.
            try server.replay("/works/OL468431W.json", fixture: "openlibrary/error_404_notfound.json", status: 404)
            server.route("/authors/OL27349A.json", response: .json(#"{"name": "F. Scott Fitzgerald"}"#))

            let edition = try #require(try await harness.openLibrary.edition(isbn: isbn("9780743273565")))
            #expect(edition.title == "The Great Gatsby")
            #expect(edition.authors == ["F. Scott Fitzgerald"])
            #expect(edition.coverImageUrl == "https://covers.example.org/b/id/6776207-L.jpg")
            #expect(edition.format == "paperback")  // "Trade Paperback"
            #expect(edition.pageCount == 180)
            #expect(edition.description == nil)  // `notes` are not a description
            #expect(edition.categories.first == "Traffic accidents -- Fiction")
            #expect(server.requests.map(\.path) == ["/isbn/9780743273565.json", "/works/OL468431W.json", "/authors/OL27349A.json"])
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func missingAuthorRecordFallsBackToByStatementOrNothing() async throws {
        try await Harness.with { harness in
            try harness.server.replay(
                "/isbn/9781943899159.json", fixture: "openlibrary/books_OL36884359M_edition_description_markdown_isbn13_only.json")
            // No routes for the work or the author: the fixture server answers 404 for both.
            let edition = try #require(try await harness.openLibrary.edition(isbn: isbn("9781943899159")))
            #expect(edition.title == "The Stars with You")
            #expect(edition.authors.isEmpty)
            #expect(edition.description?.hasPrefix(">\"She didn't choose her garden\"") == true)
            #expect(edition.isbn10 == "1943899150")
            #expect(edition.publishDate == "2022")
            #expect(edition.pageCount == 36)
            #expect(harness.server.requests.count == 3)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func notFoundIsNil() async throws {
        try await Harness.with { harness in
            try harness.server.replay("/isbn/9780000000002.json", fixture: "openlibrary/error_404_notfound.json", status: 404)
            #expect(try await harness.openLibrary.edition(isbn: isbn("9780000000002")) == nil)
            #expect(harness.server.requests.count == 1, "404 is an answer, not retried")
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func search2024Envelope() async throws {
        try await Harness.with { harness in
            try harness.server.replay("/search.json", fixture: "openlibrary/search_json_title_author_institute_king_2024.json")
            let results = try await harness.openLibrary.search(title: "The Institute", author: "Stephen King", limit: 5)
            #expect(results.count == 3)
            #expect(results[0].title == "The Institute")
            #expect(results[0].authors == ["Stephen King"])
            #expect(results[0].publishDate == "2019")
            #expect(results[0].coverImageUrl == "https://covers.example.org/b/id/10712767-L.jpg")
            #expect(results[0].language == "nl")  // first of ["dut", "eng", "fre"]
            #expect(results[1].coverImageUrl == nil)

            let request = try #require(harness.server.requests.first)
            #expect(request.query("title") == "The Institute")
            #expect(request.query("author") == "Stephen King")
            #expect(request.query("limit") == "5")
            #expect(request.query("fields")
                == "key,title,author_name,first_publish_year,isbn,cover_i,number_of_pages_median,publisher,language,subject")
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func anAuthorsBooksAreAskedWithoutATitle() async throws {
        try await Harness.with { harness in
            try harness.server.replay("/search.json", fixture: "openlibrary/search_json_title_author_institute_king_2024.json")
            let results = try await harness.openLibrary.search(title: "", author: "Stephen King", limit: 40)
            #expect(results.count == 3)
            let request = try #require(harness.server.requests.first)
            #expect(request.query("title") == nil)
            #expect(request.query("author") == "Stephen King")
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func search2020LegacyEnvelope() async throws {
        try await Harness.with { harness in
            try harness.server.replay("/search.json", fixture: "openlibrary/search_json_2020_legacy_fields.json")
            let results = try await harness.openLibrary.search(title: "This Is How You Lose the Time War", author: nil, limit: 10)
            #expect(results.count == 2)
            #expect(results[0].isbn13 == "9781534431003")
            #expect(results[0].isbn10 == "1534431004")
            #expect(results[0].authors == ["Amal El-Mohtar", "Max Gladstone"])
            #expect(results[0].publisher == "Simon and Schuster")
            #expect(results[0].categories == ["epistolary", "science fiction", "time-traveling", "LGBT"])
            #expect(results[1].isbn13 == nil)
            #expect(results[1].coverImageUrl == "https://covers.example.org/b/id/8665647-L.jpg")
            #expect(harness.server.requests.first?.query("author") == nil)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func forbiddenForUnidentifiedClientIsPermanent() async throws {
        try await Harness.with(contact: nil) { harness in
            try harness.server.replay(
                "/isbn/9780060273224.json", fixture: "openlibrary/error_403_forbidden_nginx_unidentified_user_agent.html", status: 403)
            let error = try #require(await sourceError { _ = try await harness.openLibrary.edition(isbn: isbn("9780060273224")) })
            guard case .forbidden(let reason) = error else {
                Issue.record("expected .forbidden, got \(error)")
                return
            }
            #expect(reason.contains("contact"))
            #expect(!error.isTransient)
            #expect(harness.server.requests.first?.header("User-Agent") == Harness.product)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func tooManyRequestsHonoursRetryAfterThenSucceeds() async throws {
        try await Harness.with(retries: 2) { harness in
            try serveSabriel(harness.server)
            harness.server.route("/isbn/9780060273224.json", responses: [
                try .fixture("openlibrary/error_429_too_many_requests.json", status: 429, headers: ["Retry-After": "7"]),
                try .fixture("openlibrary/isbn_redirect_302.http"),
            ])
            let edition = try await harness.openLibrary.edition(isbn: isbn("9780060273224"))
            #expect(edition?.title == "Sabriel")
            #expect(harness.server.requests(to: "/isbn/9780060273224.json").count == 2)
            // The retry waited exactly what the server asked; with a contact (3/s) nothing else waited.
            #expect(harness.clock.sleeps == [7])
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func tooManyRequestsThatPersistIsRateLimited() async throws {
        try await Harness.with(retries: 1) { harness in
            try harness.server.replay(
                "/isbn/9780060273224.json", fixture: "openlibrary/error_429_too_many_requests.json", status: 429,
                headers: ["Retry-After": "120"])
            let error = await sourceError { _ = try await harness.openLibrary.edition(isbn: isbn("9780060273224")) }
            #expect(error == .rateLimited(retryAfter: 120))
            #expect(error?.retryAfter == 120)
            // Retry-After above the longest back-off (30 s by default) is not waited for: the
            // lookup is queued rather than holding up a scan.
            #expect(harness.clock.sleeps.isEmpty)
            #expect(harness.server.requests.count == 1)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func unidentifiedClientIsPacedAtOneRequestPerSecond() async throws {
        try await Harness.with(contact: nil) { harness in
            try serveSabriel(harness.server)
            _ = try await harness.openLibrary.edition(isbn: isbn("9780060273224"))
            // Three requests by this source (the redirect is followed inside one request):
            // the first is free, the next two each wait a second.
            #expect(harness.server.requests.count == 4)
            #expect(harness.clock.sleeps.count == 2)
            #expect(harness.clock.sleeps.allSatisfy { abs($0 - 1) < 1e-9 })
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func identifiedClientMayBurstThreeRequests() async throws {
        try await Harness.with(contact: "you@example.com") { harness in
            try serveSabriel(harness.server)
            _ = try await harness.openLibrary.edition(isbn: isbn("9780060273224"))
            #expect(harness.clock.sleeps.isEmpty)
        }
    }
}
