import BookCodes
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

    /// The loader reads an edition's ISBN texts on their bytes, summing the checksums as it
    /// goes; what it makes of each must be what the validators make of it (the 13-digit value,
    /// an ISBN-10 converted, or nothing).
    @Test func readsISBNsOnBytesAsTheValidatorsDo() throws {
        func expected(_ text: String) -> Int64? {
            let cleaned = text.filter { $0 != "-" && $0 != " " }
            let isbn = (try? ISBN13(validating: cleaned)) ?? (try? ISBN10(validating: cleaned))?.isbn13
            return isbn.flatMap { Int64($0.digits) }
        }
        var generator = SeededGenerator(seed: 33)
        var texts = ["", "X", "978", "0-7432-7356-7", "0743273567", "074327356X", "080442957X", "080442957x", "0 8044 2957 X",
                     "9780743273565", "978-0-7432-7356-5", "9790000000001", "9791032300822", "9781032300822", "97807432735650",
                     "123456789X1", "12345678X9", "ISBN 0743273567", "0743273567 ", "97807432735６5", "9780743273564"]
        for _ in 0..<4_000 {
            // Random digit strings of 9 to 14 digits, half with a right check digit, some hyphenated or with an X.
            let length = Int.random(in: 9...14, using: &generator)
            var digits = (0..<length).map { _ in Int.random(in: 0...9, using: &generator) }
            if Bool.random(using: &generator), length >= 10 { digits[0...2] = [9, 7, Int.random(in: 8...9, using: &generator)] }
            var text = digits.map(String.init).joined()
            if length == 10, Int.random(in: 0..<5, using: &generator) == 0 { text = String(text.prefix(9)) + "X" }
            if Int.random(in: 0..<4, using: &generator) == 0 { text.insert("-", at: text.index(text.startIndex, offsetBy: 3)) }
            texts.append(text)
            // The same body with each possible last digit: one of them is right.
            for last in 0...9 where length == 10 || length == 13 { texts.append(String(text.dropLast()) + String(last)) }
        }
        var valid = 0
        for text in texts {
            let value = DumpRowParser.isbnValue(text)
            #expect(value == expected(text), "\(text)")
            if value != nil { valid += 1 }
        }
        #expect(valid > 500)
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
