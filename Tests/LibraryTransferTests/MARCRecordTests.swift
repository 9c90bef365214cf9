import BookMetadata
import Foundation
@testable import LibraryTransfer
import Testing
import TestSupport

/// ISO 2709's limits: 4 digits of field length, 5 of record length and offsets, all in bytes.
@Suite struct MARCRecordTests {
    /// Walks the directory: every entry's length and offset land on a field terminator.
    static func directoryIsConsistent(_ record: [UInt8]) -> Bool {
        guard record.count >= 24, let length = Int(String(decoding: record[0..<5], as: UTF8.self)),
              let base = Int(String(decoding: record[12..<17], as: UTF8.self)),
              length == record.count, record.last == MARCRecord.recordTerminator, record[base - 1] == MARCRecord.fieldTerminator
        else { return false }
        var entry = 24
        while entry < base - 1 {
            guard let fieldLength = Int(String(decoding: record[(entry + 3)..<(entry + 7)], as: UTF8.self)),
                  let start = Int(String(decoding: record[(entry + 7)..<(entry + 12)], as: UTF8.self)),
                  base + start + fieldLength <= record.count - 1,
                  record[base + start + fieldLength - 1] == MARCRecord.fieldTerminator,
                  !record[(base + start)..<(base + start + fieldLength - 1)].contains(MARCRecord.fieldTerminator)
            else { return false }
            entry += 12
        }
        return true
    }

    @Test func oversizedValuesAreCutAtCharactersAndTheRecordStaysWithinItsDigits() async throws {
        let title = String(repeating: "東", count: 4_000)  // 12,000 bytes: more than a field's 9,999
        var fields: [MARCRecord.Field] = [
            .control(tag: "001", value: "x"),
            .data(tag: "245", indicators: "10", subfields: [("a", title)]),
        ]
        for index in 0..<60 {  // 60 × ~4,000 bytes: more than a record's 99,999
            fields.append(.data(tag: "650", indicators: " 4", subfields: [("a", "\(index) " + String(repeating: "é", count: 2_000))]))
        }
        fields.append(.data(tag: "852", indicators: "  ", subfields: [("b", "Shelf")]))
        let bytes = MARCRecord(fields: fields).iso2709()

        #expect(bytes.count <= MARCRecord.maxRecordBytes)
        #expect(Self.directoryIsConsistent(bytes))
        #expect(Array(String(decoding: bytes[0..<24], as: UTF8.self))[9] == "a")
        // Valid UTF-8 throughout: nothing cut inside a character.
        #expect(String(validating: bytes, as: UTF8.self) != nil)

        // A standard reader agrees: the title is whole characters, the holding is kept.
        let file = try makeTemporaryDirectory(prefix: "marc-record").appendingPathComponent("big.mrc")
        try Data(bytes).write(to: file)
        let dump = try await runProcess(URL(fileURLWithPath: "/usr/bin/yaz-marcdump"), [file.path])
        #expect(dump.status == 0 && !dump.stdout.contains("eparator"), "\(dump.stderr)")
        let titleLine = try #require(dump.stdout.split(separator: "\n").first { $0.hasPrefix("245") })
        let readTitle = titleLine.replacingOccurrences(of: "245 10 $a ", with: "")
        #expect(!readTitle.isEmpty && readTitle.allSatisfy { $0 == "東" } && readTitle.utf8.count <= 9_999 && readTitle.utf8.count > 9_990)
        #expect(dump.stdout.contains("852    $b Shelf"), "\(dump.stdout.suffix(300))")
    }

    @Test func textLosesControlsAndXMLNoncharactersOnly() {
        #expect(MARCRecord.value("A\u{1D}B\u{1E}C\u{1F}D\u{1B}[31mE\u{FFFF}F — é") == "ABCDEF — é")
        #expect(MARCRecord.escaped(#"<a & "b">"#) == "&lt;a &amp; &quot;b&quot;&gt;")
    }

    /// 008/35-37 holds MARC's (ISO 639-2/B) codes: "fre", not "fra"; unknown codes are "und".
    @Test func languagesAreWrittenInMARCsOwnCodes() {
        #expect(LanguageCode.bibliographic("en") == "eng")
        #expect(LanguageCode.bibliographic("fr") == "fre")
        #expect(LanguageCode.bibliographic("de") == "ger")
        #expect(LanguageCode.bibliographic("ger") == "ger")
        #expect(LanguageCode.bibliographic("xx") == nil)
    }
}
