import Foundation
import Testing
import TestSupport

/// Issue 33: `export --format marc` (ISO 2709) and `marcxml` through the real binary, read
/// back by a standard MARC reader (yaz-marcdump, Debian's yaz: scripts/setup installs it).
@Suite struct MARCExportCLITests {
    static let yazMarcdump = URL(fileURLWithPath: "/usr/bin/yaz-marcdump")
    /// Multi-byte UTF-8 of two, three and four bytes: lengths in the directory must count bytes.
    static let unicodeTitle = "Les Misérables — 東京物語 📚"
    static let unicodeISBN = "9780306406157"
    static let plainISBN = "9780990582939"
    static let hostileISBN = "9780441013593"

    /// One record as MARC-in-JSON reads it: tag -> values (a control field's value, or a data
    /// field's subfields as "a=…|b=…" after its indicators).
    struct ParsedRecord {
        var leader: String
        var fields: [(tag: String, value: String)]

        func values(_ tag: String) -> [String] { fields.filter { $0.tag == tag }.map(\.value) }
        /// The subfield `code` of every `tag` field.
        func subfields(_ tag: String, _ code: String) -> [String] {
            values(tag).flatMap { $0.split(separator: "|").compactMap { part in
                part.hasPrefix(code + "=") ? String(part.dropFirst(code.count + 1)) : nil
            } }
        }
    }

    /// yaz-marcdump's MARC-in-JSON of `file` (records one after another), as records.
    static func readMARC(_ file: URL, xml: Bool) async throws -> (records: [ParsedRecord], warnings: String) {
        let arguments = (xml ? ["-i", "marcxml"] : []) + ["-o", "json", file.path]
        let dump = try await runProcess(yazMarcdump, arguments)
        #expect(dump.status == 0, "yaz-marcdump: \(dump.stderr)")
        let array = "[" + dump.stdout.replacingOccurrences(of: "\n}\n{", with: "\n},\n{") + "]"
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(array.utf8)) as? [[String: Any]], "\(dump.stdout.prefix(500))")
        let records = try objects.map { object -> ParsedRecord in
            let leader = try #require(object["leader"] as? String)
            let fields = try #require(object["fields"] as? [[String: Any]]).flatMap { field in
                field.map { tag, content -> (tag: String, value: String) in
                    if let text = content as? String { return (tag, text) }
                    let data = content as? [String: Any] ?? [:]
                    let subfields = (data["subfields"] as? [[String: String]] ?? []).flatMap { $0.map { "\($0.key)=\($0.value)" } }
                    return (tag, "\(data["ind1"] ?? "")\(data["ind2"] ?? "")|" + subfields.joined(separator: "|"))
                }
            }
            return ParsedRecord(leader: leader, fields: fields)
        }
        // The line format names structural damage ("No separator at end of field", "Separator but not at end").
        let lines = try await runProcess(yazMarcdump, (xml ? ["-i", "marcxml"] : []) + [file.path])
        return (records, lines.stdout.split(separator: "\n").filter { $0.contains("eparator") }.joined(separator: "\n") + lines.stderr)
    }

    static func record(_ records: [ParsedRecord], isbn: String) throws -> ParsedRecord {
        try #require(records.first { $0.subfields("020", "a").contains(isbn) }, "no record with ISBN \(isbn)")
    }

    @Test func marcAndMarcXMLExportsAreReadBackByAStandardReader() async throws {
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        let added = [
            try await harness.run("library", "add", Self.unicodeISBN, "--title", Self.unicodeTitle, "--author", "Victor Hugo",
                                  "--author", "Émile Zola", "--status", "read", "--owned-format", "physical"),
            try await harness.run("library", "add", Self.plainISBN, "--title", "Plain Title", "--author", "Ann Author"),
            try await harness.run("library", "add", Self.hostileISBN, "--title", "Placeholder", "--author", "Bob Writer"),
        ]
        for result in added { #expect(result.status == 0, "\(result.stderr)") }
        // A library written by another tool or an older rapidscan: MARC's own separators
        // (field 0x1E, record 0x1D, subfield 0x1F) and other controls inside stored text.
        try await DamagedLibraryCLITests.sqlite(harness.database, """
            UPDATE items SET title = 'Evil' || char(30) || 'Field' || char(29) || 'Record' || char(31) || 'aSub' || char(27) || '[2J<&>"' \
            WHERE isbn = '\(Self.hostileISBN)';
            UPDATE lists SET name = 'Shelf' || char(31) || 'z' || char(30) || 'One' WHERE id = (SELECT listId FROM items WHERE isbn = '\(Self.hostileISBN)');
            """)

        let marc = harness.directory.appendingPathComponent("library.mrc")
        let xml = harness.directory.appendingPathComponent("library.xml")
        let exportedMARC = try await harness.run("export", "--format", "marc", "-o", marc.path)
        #expect(exportedMARC.status == 0, "\(exportedMARC.stderr)")
        let exportedXML = try await harness.run("export", "--format", "marcxml", "-o", xml.path)
        #expect(exportedXML.status == 0, "\(exportedXML.stderr)")

        let bytes = try Data(contentsOf: marc)
        #expect(bytes.last == 0x1D, "the file ends with a record terminator, nothing after it")
        #expect(bytes.filter { $0 == 0x1D }.count == 3, "three records, one terminator each")

        for (file, isXML) in [(marc, false), (xml, true)] {
            let (records, warnings) = try await Self.readMARC(file, xml: isXML)
            #expect(warnings.isEmpty, "\(file.lastPathComponent): \(warnings)")
            #expect(records.count == 3, "\(file.lastPathComponent)")
            for record in records {
                #expect(record.leader.count == 24 && Array(record.leader)[9] == "a" && record.leader.hasSuffix("4500"), "\(record.leader)")
                #expect(record.values("008").first?.count == 40, "\(record.values("008"))")
            }

            let unicode = try Self.record(records, isbn: Self.unicodeISBN)
            #expect(unicode.subfields("245", "a") == [Self.unicodeTitle], "\(file.lastPathComponent): \(unicode.values("245"))")
            #expect(unicode.subfields("100", "a") == ["Victor Hugo"])
            #expect(unicode.subfields("700", "a") == ["Émile Zola"])
            #expect(unicode.subfields("020", "a") == [Self.unicodeISBN, "0306406152"])
            #expect(unicode.subfields("852", "z").contains("status: read") && unicode.subfields("852", "z").contains("format: physical"))

            let plain = try Self.record(records, isbn: Self.plainISBN)
            #expect(plain.subfields("245", "a") == ["Plain Title"])
            #expect(plain.subfields("100", "a") == ["Ann Author"])

            // The separators are gone from the data; the text around them stays, in one subfield.
            let hostile = try Self.record(records, isbn: Self.hostileISBN)
            #expect(hostile.subfields("245", "a") == [#"EvilFieldRecordaSub<&>""#], "\(file.lastPathComponent): \(hostile.values("245"))")
            #expect(hostile.subfields("100", "a") == ["Bob Writer"], "the fields after the hostile title are intact")
            #expect(hostile.subfields("852", "b") == ["ShelfzOne"], "\(hostile.values("852"))")
        }
    }

    @Test func marcToStandardOutputIsTheRecordsAlone() async throws {
        let harness = try CLIHarness()
        #expect(try await harness.run("library", "add", Self.plainISBN, "--offline", "--title", "Plain Title", "--author", "Ann").status == 0)
        let result = try await harness.run("export", "--format", "marc")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("\u{1E}\u{1D}"), "no newline after the last record: \(result.stdout.suffix(10).debugDescription)")
        let help = try await harness.run("export", "--format", "mrc")
        #expect(help.status != 0 && help.stderr.contains("marcxml or marc"), "\(help.stderr)")
    }
}
