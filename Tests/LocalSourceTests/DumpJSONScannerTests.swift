import Foundation
@testable import LocalSource
import Testing
import TestSupport

/// The loader's byte scanner against Foundation's decoder (the full parser it falls back to):
/// on Open Library's real records it must read the same fields without falling back; on
/// tricky JSON it reads the same or says it is unsure, never something else.
@Suite struct DumpJSONScannerTests {
    static func bytes(_ json: String) -> ArraySlice<UInt8> { ArraySlice(Array(json.utf8)) }

    /// Every record of a fixture: an object, or the `entries` of a list.
    static func records(_ name: String) throws -> [ArraySlice<UInt8>] {
        let url = try #require(SharedFiles.fixture("openlibrary/" + name))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let records = (object["entries"] as? [[String: Any]]) ?? [object]
        // As a dump row holds them: one line, key order as written.
        return try records.map { ArraySlice(try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys])) }
            + (object["entries"] == nil ? [ArraySlice(try Data(contentsOf: url))] : [])
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped))
    func readsTheRealRecordsAsTheFullParserDoes() throws {
        try SharedFiles.requireShared()
        var editions = 0
        for name in ["books_OL22951843M_edition_description_typed_isbn10_only.json",
                     "books_OL23109860M_edition_gatsby_covers_notes.json",
                     "books_OL36884359M_edition_description_markdown_isbn13_only.json",
                     "works_OL15832982W_editions_list.json"] {
            for json in try Self.records(name) {
                let scanned = try DumpRowParser.scannedEditionFields(json)
                #expect(scanned == (try DumpRowParser.decodedEditionFields(json)), "\(name)")
                #expect(scanned.title != nil)
                editions += 1
            }
        }
        #expect(editions >= 18)
        for name in ["works_OL15832982W_work_author_role.json", "works_OL20126932W_description_string_covers_minus1.json"] {
            for json in try Self.records(name) {
                let scanned = try DumpRowParser.scannedWorkFields(json)
                #expect(scanned == (try DumpRowParser.decodedWorkFields(json)), "\(name)")
                #expect(scanned.title != nil && scanned.authors?.isEmpty == false)
            }
        }
        for json in try Self.records("authors_OL1A_minimal_2008.json") {
            let scanned = try DumpRowParser.scannedAuthorFields(json)
            #expect(scanned == (try DumpRowParser.decodedAuthorFields(json)) && scanned.name != nil)
        }
    }

    @Test func unescapesAsTheFullParserDoes() throws {
        let cases: [(json: String, title: String)] = [
            (#"{"title": "Say \"hello\" \\ back\/forth"}"#, #"Say "hello" \ back/forth"#),
            (#"{"title": "caf\u00e9 na\u00EFve \u4e2d"}"#, "café naïve 中"),
            (#"{"title": "smile \ud83d\ude00 done"}"#, "smile 😀 done"),
            (#"{"title": "tab\tline\nreturn\rbs\bff\f"}"#, "tab\tline\nreturn\rbs\u{08}ff\u{0C}"),
            (#"{"ti\u0074le": "key escaped"}"#, "key escaped"),
            ("{\"title\":\"raw UTF-8 \u{00E9}\u{1F4DA}\"}", "raw UTF-8 é📚"),
            (" {\t\"title\" :\r\n\"spaced\" } ", "spaced"),
            (#"{"notes": {"a": [1, -2.5e3, true, null, {"b": "\" } ]"}]}, "title": "after skipped"}"#, "after skipped"),
            (#"{"title": "nul \u0000 char"}"#, "nul \u{0000} char"),
        ]
        for (json, title) in cases {
            let scanned = try DumpRowParser.scannedEditionFields(Self.bytes(json))
            #expect(scanned.title == title, "\(json)")
            #expect(scanned == (try DumpRowParser.decodedEditionFields(Self.bytes(json))), "\(json)")
        }
    }

    @Test func readsOddShapesAsTheDecodersDoOrLeavesThemToThem() throws {
        let cases = [
            #"{"title": 5, "subtitle": null, "publishers": ["A", 3, null, ["x"], "B"], "covers": [-1, "7", 12, null]}"#,
            #"{"title": "t", "number_of_pages": "300", "isbn_10": "0439023483", "isbn_13": []}"#,
            #"{"title": "t", "authors": [{"key": "/authors/OL1A"}, {"author": {"key": "/authors/OL2A"}}, {"key": 7}, {}]}"#,
            #"{"title": "t", "works": [{"key": null}, {"key": "/works/OL9W"}], "languages": [{"key": "/languages/eng"}]}"#,
            #"{"title": "t", "description": {"type": "/type/text", "value": "typed"}, "physical_format": ["x"]}"#,
            #"{"title": "t", "description": 12}"#,
            #"{"title": "t", "description": {"value": 3}}"#,
            #"{"title": "t", "works": "not a list", "authors": {"key": "/authors/OL1A"}}"#,
            #"{}"#,
            // Unsure: the full parser decides.
            #"{"title": "t", "number_of_pages": 300.0}"#,
            #"{"title": "t", "covers": [1e2, 5]}"#,
            #"{"title": "t", "covers": [123456789012345678901234]}"#,
            #"{"title": "one", "title": "two"}"#,
            #"{"title": "lone \ud83d surrogate"}"#,
            #"{"title": "t", "works": [{"key": 5}]}"#,
            #"{"title": "t", "authors": ["/authors/OL1A"]}"#,
            // Broken: both refuse.
            #"{"title": "t""#,
            #"{"title": "t"} trailing"#,
            #"{"title": "t", "notes": [1, 2,]}"#,
            #"{"title": "bad \x escape"}"#,
            "{\"title\": \"raw\tcontrol\"}",
            #"{"title": "t", "n": 012}"#,
            #"{"title": "t", "n": tru}"#,
            #"["title"]"#,
        ]
        var scannedCount = 0
        for json in cases {
            let decoded = try? DumpRowParser.decodedEditionFields(Self.bytes(json))
            if let scanned = try? DumpRowParser.scannedEditionFields(Self.bytes(json)) {
                scannedCount += 1
                #expect(scanned == decoded, "\(json)")
            }
            // What the loader stores: the scanner's reading or the decoder's, never a third.
            #expect((try? DumpRowParser.editionFields(Self.bytes(json))) == decoded, "\(json)")
        }
        #expect(scannedCount >= 9)
        #expect(throws: DumpJSONScanner.Unsure.self) { try DumpRowParser.scannedEditionFields(Self.bytes(#"{"title": "lone \ud83d surrogate"}"#)) }
        #expect(throws: DumpJSONScanner.Unsure.self) { try DumpRowParser.scannedEditionFields(Self.bytes(#"{"a": 1, "a": 2, "title": "x", "title": "y"}"#)) }

        let typed = try DumpRowParser.scannedWorkFields(Self.bytes(
            #"{"title": "W", "authors": [{"type": {"key": "/type/author_role"}, "author": {"key": "/authors/OL3A"}}], "covers": [-1, 9]}"#))
        #expect(typed.authors == ["/authors/OL3A"] && typed.covers == [-1, 9])
        let author = try DumpRowParser.scannedAuthorFields(Self.bytes(#"{"personal_name": "Fr\u00e9d\u00e9ric", "name": null}"#))
        #expect(author.name == nil && author.personalName == "Frédéric")
    }
}
