import Foundation
import Testing
import TestSupport

/// Issue 37 (10): import files are read as a stream, 1 MB at a time (`ImportText.chunkSize`),
/// through the real binary: characters and quoted cells cut by a chunk's end come out whole,
/// line numbers stay right, the encoding is known from the whole file, and memory stays at a
/// chunk whatever the file's size.
@Suite struct StreamedImportCLITests {
    static let chunk = 1 << 20
    static let goodreadsHeader = "Book Id,Title,Author,Author l-f,Additional Authors,ISBN,ISBN13,My Rating,Average Rating,Publisher,"
        + "Binding,Number of Pages,Year Published,Original Publication Year,Date Read,Date Added,Bookshelves,"
        + "Bookshelves with positions,Exclusive Shelf,My Review,Spoiler,Private Notes,Read Count,Owned Copies\n"

    static func goodreadsRow(_ id: Int, title: String, isbn: String, notes: String = "") -> String {
        "\(id),\(title),Ann Author,\"Author, Ann\",,,\(isbn),0,3.9,Pub,Paperback,100,2001,1999,,2024/01/02,,,to-read,,,\(notes),1,0\n"
    }

    /// Filler rows, then one row padded so that `text` + `marker` would start `offset` bytes
    /// before the next chunk boundary at or after `text`'s end.
    static func pad(_ text: inout String, toPutNext prefix: String, at boundary: Int, offset: Int, row: (Int, String) -> String) {
        var id = 1000
        while text.utf8.count + 2000 < boundary - offset { text += row(id, "Filler \(id)"); id += 1 }
        let base = row(id, "").utf8.count
        let padding = boundary - offset - text.utf8.count - prefix.utf8.count - base
        text += row(id, String(repeating: "x", count: max(0, padding)))
    }

    @Test func aCSVLargerThanAChunkKeepsCharactersQuotedCellsAndLineNumbersWhole() async throws {
        let harness = try CLIHarness()
        let cafe = "9780306406157", notes = "9780441013593", after = "9780553293357"
        var text = Self.goodreadsHeader
        // "é" (2 bytes in UTF-8) split by the first chunk's end.
        let cafeRow = Self.goodreadsRow(1, title: "Café Boundary", isbn: cafe)
        let cafePrefix = String(cafeRow.prefix { $0 != "é" })
        Self.pad(&text, toPutNext: cafePrefix, at: Self.chunk, offset: 1) { Self.goodreadsRow($0, title: $1, isbn: "") }
        #expect(text.utf8.count + cafePrefix.utf8.count == Self.chunk - 1)
        text += cafeRow
        // A quoted note of three lines across the second chunk's end.
        let noteRow = Self.goodreadsRow(2, title: "Notes", isbn: notes, notes: "\"first line\nsecond, with a comma\nthird \"\"quoted\"\"\"")
        let notePrefix = String(noteRow.prefix { $0 != "\n" })
        Self.pad(&text, toPutNext: notePrefix, at: 2 * Self.chunk, offset: 0) { Self.goodreadsRow($0, title: $1, isbn: "") }
        text += noteRow
        text += Self.goodreadsRow(3, title: "After", isbn: after)
        let brokenLine = text.filter { $0 == "\n" }.count + 1
        text += "123,Broken row,Someone\n"
        let file = harness.directory.appendingPathComponent("big-goodreads.csv")
        try text.write(to: file, atomically: true, encoding: .utf8)

        let result = try await harness.run("import", "--offline", "--json", file.path)
        #expect(result.status == 1, "a bad row: \(result.stderr)")
        let queued = Dictionary(result.jsonLines.filter { $0["event"] as? String == "queued" }
            .map { ($0["isbn13"] as? String ?? "", $0["title"] as? String ?? "") }, uniquingKeysWith: { first, _ in first })
        #expect(queued[cafe] == "Café Boundary", "\(queued)")
        #expect(queued[notes] == "Notes" && queued[after] == "After")
        let bad = result.jsonLines.filter { $0["event"] as? String == "badRow" }
        // The filler rows have no ISBN and a title no cache holds: not found, not bad.
        #expect(bad.count == 1, "\(bad)")
        #expect(bad.first?["line"] as? Int == brokenLine, "\(bad)")
    }

    @Test func aUTF16ListWithASurrogatePairCutByAChunkImports() async throws {
        let harness = try CLIHarness()
        // "ISBN", comment lines, one comment whose emoji (4 bytes in UTF-16) straddles the
        // first chunk's end, then an ISBN and a line that is no ISBN.
        var lines = ["ISBN"]
        var bytes = 2 + 10  // BOM + "ISBN\n"
        while bytes + 1000 < Self.chunk { lines.append("# " + String(repeating: "c", count: 400)); bytes += 2 * (lines.last!.count + 1) }
        let before = (Self.chunk - 4 - bytes) / 2  // the pair's first half ends the chunk
        lines.append("#" + String(repeating: "d", count: before) + "📚 shelf")
        lines.append("9780306406157")
        lines.append("not-an-isbn")
        let file = harness.directory.appendingPathComponent("utf16.txt")
        try (Data([0xFF, 0xFE]) + (lines.joined(separator: "\n") + "\n").data(using: .utf16LittleEndian)!).write(to: file)

        let result = try await harness.run("import", "--offline", "--json", file.path)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.jsonLines.contains { $0["event"] as? String == "queued" && $0["isbn13"] as? String == "9780306406157" }, "\(result.stdout)")
        let bad = result.jsonLines.filter { $0["event"] as? String == "badRow" }
        #expect(bad.map { $0["line"] as? Int } == [lines.count], "\(bad) \(result.stderr)")
    }

    @Test func aWindows1252ByteAfterTheFirstChunkStillDecidesTheEncoding() async throws {
        let harness = try CLIHarness()
        var data = Data("ISBN\n9780306406157\n".utf8)
        while data.count < 2 * Self.chunk { data += Data("# nothing but ASCII in the first two chunks\n".utf8) }
        data += Data([0x23, 0x20, 0x43, 0x61, 0x66, 0xE9, 0x0A])  // "# Café" in Windows-1252
        let file = harness.directory.appendingPathComponent("latin.txt")
        try data.write(to: file)
        let result = try await harness.run("import", "--offline", file.path)
        #expect(result.status == 3, "queued, nothing bad: \(result.stderr)")
        #expect(result.stderr.contains("latin.txt: isbns, cp1252, 1 rows"), "\(result.stderr)")
    }

    @Test func aQuotedCellNeverClosedEndsTheFileByItsLine() async throws {
        let harness = try CLIHarness()
        var text = Self.goodreadsHeader + Self.goodreadsRow(1, title: "Kept", isbn: "9780306406157")
        text += "2,\"Never closed,Ann,,,,9780441013593\n"
        for line in 0..<30_000 { text += "continuation line \(line) of the open cell\n" }
        let file = harness.directory.appendingPathComponent("open-quote.csv")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let result = try await harness.run("import", "--offline", file.path)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("open-quote.csv: line 3: a quoted cell is not closed within 1 MB"), "\(result.stderr.prefix(500))")
        #expect(result.stderr.utf8.count < 1000)
        // Found while the rows are counted, before any is imported: nothing half done.
        #expect(try await harness.run("pending", "list", "--json").jsonLines.isEmpty)
    }

    @Test func aJSONDocumentOverTheCapIsRefusedWithItsSize() async throws {
        let harness = try CLIHarness()
        let file = harness.directory.appendingPathComponent("huge.json")
        var data = Data("{\n".utf8)
        let line = Data("  \"padding\": \"\(String(repeating: "p", count: 1000))\",\n".utf8)
        let lines = (65 << 20) / line.count
        data.reserveCapacity(lines * line.count + 100)
        for _ in 0..<lines { data += line }
        data += Data("  \"end\": 1\n}\n".utf8)
        try data.write(to: file)
        let result = try await harness.run("import", "--offline", file.path)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("huge.json: a JSON document of 65.0 MB, larger than rapidscan reads whole (at most 64 MB)"), "\(result.stderr)")
    }

    /// 8 MB of ISBN lines (600,000 rows): held whole, the file, its text and its rows took
    /// hundreds of MB as soon as it was opened; read as a stream the process stays near its
    /// size without a file. Ctrl-C a few seconds in (counting the rows in a debug build is
    /// minutes on a busy machine) ends it at once.
    @Test func aLargeListIsReadWithMemoryBoundedByAChunk() async throws {
        let harness = try CLIHarness()
        let file = harness.directory.appendingPathComponent("large.txt")
        var text = ""
        text.reserveCapacity(9 << 20)
        var body = 978_000_000_000
        while text.utf8.count < 8 << 20 {
            // The check digit: weights 1, 3, 1, ... from the left (the 12th digit weighs 3).
            var rest = body, sum = 0
            for place in 0..<12 { sum += rest % 10 * (place % 2 == 0 ? 3 : 1); rest /= 10 }
            text += "\(body)\((10 - sum % 10) % 10)\n"
            body += 1
        }
        try text.write(to: file, atomically: true, encoding: .utf8)
        let running = try await harness.start(["import", "--offline", file.path])
        async let finished = running.finish(within: .seconds(600), maxResidentBytes: 150 << 20)
        try await Task.sleep(for: .seconds(4))
        running.signal(SIGINT)
        let (result, killed) = await finished
        #expect(killed == nil, "killed: \(killed ?? "")")
        #expect(result.status == 130, "\(result.stderr.suffix(500))")
        #expect(result.stdout.contains("interrupted; run again to continue"), "\(result.stdout)")
    }
}
