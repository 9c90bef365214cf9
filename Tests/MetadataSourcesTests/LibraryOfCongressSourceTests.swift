import BookCodes
import Foundation
import MetadataSources
import Testing
import TestSupport

/// The Library of Congress SRU service over real HTTP on 127.0.0.1, replaying the replies in
/// Tests/Recordings/libraryofcongress (written from the documented format: its README says why).
@Suite struct LibraryOfCongressSourceTests {
    static let path = "/LCDB"

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func anAACR2RecordBecomesAnEdition() async throws {
        try await Harness.with { harness in
            harness.server.route(Self.path, query: ["query": "bath.isbn=9780060273224"],
                                 response: try Recordings.response("libraryofcongress/isbn_9780060273224_sabriel_aacr2.xml"))

            let edition = try #require(try await harness.libraryOfCongress.edition(isbn: isbn("9780060273224")))
            #expect(edition.title == "Sabriel")
            #expect(edition.subtitle == nil)
            #expect(edition.isbn13 == "9780060273224")
            #expect(edition.isbn10 == "0060273224")
            // "Nix, Garth," $d 1963- and the illustrator: direct order, dates and punctuation dropped.
            #expect(edition.authors == ["Garth Nix", "Leo Dillon"])
            #expect(edition.publisher == "HarperCollins")
            #expect(edition.publishDate == "1996")
            #expect(edition.pageCount == 292)
            #expect(edition.categories == ["Fantasy", "Magic"])
            #expect(edition.language == "en")
            #expect(edition.description?.hasPrefix("Sabriel, daughter of the necromancer Abhorsen") == true)
            #expect(edition.apiSource == "libraryOfCongress")

            let request = try #require(harness.server.requests.first)
            #expect(harness.server.requests.count == 1)
            #expect(request.path == Self.path)
            #expect(request.query("operation") == "searchRetrieve" && request.query("version") == "1.1")
            #expect(request.query("recordSchema") == "marcxml")
            #expect(request.header("User-Agent") == Harness.product)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func anRDARecordIsReadInComposedUnicode() async throws {
        try await Harness.with { harness in
            harness.server.route(Self.path, query: ["query": "bath.isbn=9780141393599"],
                                 response: try Recordings.response("libraryofcongress/isbn_9780141393599_miserables_rda.xml"))

            let edition = try #require(try await harness.libraryOfCongress.edition(isbn: isbn("9780141393599")))
            // The record writes é as e + U+0301; stored composed, as the other sources write it.
            #expect(edition.title.unicodeScalars.elementsEqual("Les mis\u{E9}rables".unicodeScalars), "\(edition.title.unicodeScalars.map(\.value))")
            #expect(edition.subtitle == "a new translation")
            // The 700 $t (a name/title entry for the original work) is not an author.
            #expect(edition.authors == ["Victor Hugo", "Christine Donougher"])
            #expect(edition.publisher == "Penguin Classics, an imprint of Penguin Books")
            #expect(edition.publishDate == "2013")
            #expect(edition.pageCount == 1431)
            #expect(edition.categories == ["Ex-convicts", "Paris (France)"])
            #expect(edition.language == "en")
            #expect(edition.description?.unicodeScalars.contains("\u{E9}") == true)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func noRecordOrAnotherBooksRecordIsNotFound() async throws {
        try await Harness.with { harness in
            harness.server.route(Self.path, query: ["query": "bath.isbn=9780306406157"],
                                 response: try Recordings.response("libraryofcongress/zero_hits.xml"))
            // A reply whose record lists other ISBNs describes another book.
            harness.server.route(Self.path, query: ["query": "bath.isbn=9780441013593"],
                                 response: try Recordings.response("libraryofcongress/isbn_9780141393599_miserables_rda.xml"))

            #expect(try await harness.libraryOfCongress.edition(isbn: isbn("9780306406157")) == nil)
            #expect(try await harness.libraryOfCongress.edition(isbn: isbn("9780441013593")) == nil)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func diagnosticsAndBrokenXMLAreErrorsNotMisses() async throws {
        try await Harness.with(retries: 0) { harness in
            harness.server.route(Self.path, query: ["query": "bath.isbn=9780306406157"],
                                 response: try Recordings.response("libraryofcongress/diagnostic_query_syntax.xml"))
            harness.server.route(Self.path, query: ["query": "bath.isbn=9780060273224"],
                                 response: FixtureResponse(body: Data(#"<zs:searchRetrieveResponse xmlns:zs="http://www.loc.gov/zing/srw/"><zs:records><record><datafield"#.utf8)))
            harness.server.route(Self.path, query: ["query": "bath.isbn=9780141393599"],
                                 response: FixtureResponse(body: Data("<html><body>Service unavailable</body></html>".utf8)))

            let diagnostic = await sourceError { _ = try await harness.libraryOfCongress.edition(isbn: isbn("9780306406157")) }
            #expect(diagnostic == .badResponse("Library of Congress: Query syntax error (bath.isbn=)"), "\(String(describing: diagnostic))")
            let broken = await sourceError { _ = try await harness.libraryOfCongress.edition(isbn: isbn("9780060273224")) }
            guard case .badResponse(let reason)? = broken else {
                Issue.record("expected badResponse, got \(String(describing: broken))")
                return
            }
            #expect(reason.hasPrefix("Library of Congress sent XML that cannot be read") || reason.hasPrefix("Library of Congress sent a reply that ends early"), "\(reason)")
            let page = await sourceError { _ = try await harness.libraryOfCongress.edition(isbn: isbn("9780141393599")) }
            #expect(page == .badResponse("Library of Congress sent <html>, not an SRU searchRetrieveResponse"), "\(String(describing: page))")
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func requestsArePacedAtOneASecond() async throws {
        try await Harness.with { harness in
            harness.server.route(Self.path, response: try Recordings.response("libraryofcongress/zero_hits.xml"))
            let source = harness.libraryOfCongress
            for code in ["9780306406157", "9780060273224", "9780141393599"] {
                #expect(try await source.edition(isbn: isbn(code)) == nil)
            }
            // The first request goes at once; each next one waits its second on the (manual) clock.
            #expect(harness.server.requests.count == 3)
            #expect(harness.clock.sleeps.count == 2, "\(harness.clock.sleeps)")
            #expect(harness.clock.sleeps.allSatisfy { (0.9...1.0).contains($0) }, "\(harness.clock.sleeps)")
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func searchAsksByTitleAndAuthorInCQL() async throws {
        try await Harness.with { harness in
            harness.server.route(Self.path, response: try Recordings.response("libraryofcongress/isbn_9780060273224_sabriel_aacr2.xml"))

            let found = try await harness.libraryOfCongress.search(title: "Sabriel \"the\"", author: "Garth Nix", limit: 3)
            #expect(found.map(\.title) == ["Sabriel"])
            #expect(found.first?.isbn13 == "9780060273224")
            let request = try #require(harness.server.requests.first)
            #expect(request.query("query") == #"dc.title="Sabriel \"the\"" and dc.creator="Garth Nix""#, "\(request.rawQuery)")
            #expect(request.query("maximumRecords") == "3")

            // CQL's masking characters in a title are matched as written, not as wildcards.
            harness.server.clearRequests()
            _ = try await harness.libraryOfCongress.search(title: "Who? *Me* ^", author: nil, limit: 3)
            #expect(harness.server.requests.first?.query("query") == #"dc.title="Who\? \*Me\* \^""#, "\(harness.server.requests.first?.rawQuery ?? "")")
        }
    }
}
