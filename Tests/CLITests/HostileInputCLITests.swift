import Foundation
import Testing
import TestSupport

/// Issue 37 (5, 8, 9, 10): hostile text from servers and files, hostile file names and
/// special files as export targets, through the real binary.
@Suite struct HostileInputCLITests {
    static let volumes = "/books/v1/volumes"
    static let isbn = "9780990582939"

    /// Terminal control in text: CSI, OSC 52 (clipboard), OSC 0 (title), C1 CSI, bidi override, NUL.
    static let hostileTitle = #"Evil\u001b[2J Title\u0000Tail"#
    static let hostileAuthors = #"["Ann\u001b]52;c;ZXZpbA==\u0007 Author", "Bob \u202eReversed"]"#

    /// Google Books answering `isbn:` queries with a volume of the ISBN asked, its text full of escapes.
    static func hostileVolume(isbn: String = isbn, listedISBN: String? = nil) -> FixtureResponse {
        .json(#"""
        {"totalItems": 1, "items": [{"id": "x", "volumeInfo": {
          "title": "\#(hostileTitle)", "authors": \#(hostileAuthors),
          "publisher": "Pub\u009b31mlisher\u001b]0;pwned\u0007",
          "description": "Line one\u001bc\nLine two\u0085",
          "categories": ["\u001b[5mFiction"],
          "industryIdentifiers": [{"type": "ISBN_13", "identifier": "\#(listedISBN ?? isbn)"}]}}]}
        """#)
    }

    /// No ESC, BEL, NUL, C1 control or bidi override anywhere in the text.
    static func isTerminalSafe(_ text: String) -> Bool {
        !text.unicodeScalars.contains { scalar in
            (scalar.value < 0x20 && scalar != "\n" && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
                || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
        }
    }

    @Test func escapesFromAMetadataServerAreNeitherStoredNorPrinted() async throws {
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        harness.server.route(Self.volumes, query: ["q": "isbn:\(Self.isbn)"], response: Self.hostileVolume())

        let lookup = try await harness.run("lookup", Self.isbn)
        #expect(lookup.status == 0, "\(lookup.stderr)")
        #expect(Self.isTerminalSafe(lookup.stdout + lookup.stderr), "\(lookup.stdout.debugDescription)")
        // The NUL is dropped, not an end: the text after it stays.
        #expect(lookup.stdout.contains("Evil Title" + "Tail — Ann Author, Bob Reversed"))

        let add = try await harness.run("library", "add", Self.isbn)
        #expect(add.status == 0 && Self.isTerminalSafe(add.stdout + add.stderr))
        for command in [["library", "list"], ["library", "show", Self.isbn], ["library", "list", "--json"],
                        ["export", "--format", "csv"], ["export", "--format", "json"]] {
            let result = try await harness.run(command)
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(Self.isTerminalSafe(result.stdout.replacingOccurrences(of: "\r", with: "")), "\(command): \(result.stdout.debugDescription)")
        }
        let show = try await harness.run("library", "show", "--json", Self.isbn)
        let item = try #require(show.jsonLines.first?["item"] as? [String: Any])
        #expect(item["title"] as? String == "Evil TitleTail")

        // Typed or pasted by hand: stored clean too.
        let manual = try await harness.run("library", "add", "9780306406157", "--title", "Hand\u{1B}]52;c;eA==\u{07}made", "--author", "Ed\u{202E}itor")
        #expect(manual.status == 0, "\(manual.stderr)")
        #expect(manual.stdout.contains("Handmade — Editor") && Self.isTerminalSafe(manual.stdout))
    }

    @Test func aVolumeOfAnotherISBNIsNotThatBook() async throws {
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        // Both sources answer with another book: Google with a volume listing 9780306406157,
        // Open Library with an edition whose ISBNs are others.
        harness.server.route(Self.volumes, response: Self.hostileVolume(listedISBN: "9780306406157"))
        harness.server.route("/isbn/\(Self.isbn).json", response: .json(#"""
            {"key": "/books/OL1M", "title": "Someone Else's Book", "isbn_13": ["9780306406157"], "isbn_10": ["0306406152"]}
            """#))
        let lookup = try await harness.run("lookup", "--json", Self.isbn)
        #expect(lookup.status == 2, "\(lookup.stdout) \(lookup.stderr)")
        #expect(lookup.jsonLines.first?["status"] as? String == "notFound")
        let stats = try #require(try await harness.run("cache", "stats", "--json").jsonLines.first?["stats"] as? [String: Any])
        #expect(stats["works"] as? Int == 0, "nothing cached: \(stats)")
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func fileNamesWithEscapesAndNewlinesArePrintedEscaped() async throws {
        try SharedFiles.requireShared()
        let harness = try CLIHarness()
        let folder = harness.directory.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let hostileName = "shelf\u{1B}]0;pwned\u{07}\u{1B}[2J\nnext.png"
        try FileManager.default.copyItem(at: SharedFiles.sampleImages.appendingPathComponent("isbn-9780306406157.png"),
                                         to: folder.appendingPathComponent(hostileName))
        try Data("not an image".utf8).write(to: folder.appendingPathComponent("broken\u{1B}[31m\u{202E}.jpg"))
        let shown = #"shelf\x1B]0;pwned\x07\x1B[2J\nnext.png"#

        let decode = try await harness.run("decode", folder.path)
        #expect(Self.isTerminalSafe(decode.stdout + decode.stderr), "\(decode.stdout.debugDescription) \(decode.stderr.debugDescription)")
        #expect(decode.stdout.contains(shown) && decode.stdout.contains("9780306406157"))
        #expect(decode.stderr.contains(#"broken\x1B[31m\u{202E}.jpg"#))

        let scan = try await harness.run("scan", "--offline", folder.path)
        #expect(Self.isTerminalSafe(scan.stdout + scan.stderr), "\(scan.stdout.debugDescription) \(scan.stderr.debugDescription)")
        #expect(scan.stdout.contains(shown))
        #expect(scan.stderr.contains(#"broken\x1B[31m\u{202E}.jpg"#))

        let list = harness.directory.appendingPathComponent("isbns\u{1B}[2J\n.txt")
        try "9780306406157\nnot-an-isbn\u{1B}[2J\n".write(to: list, atomically: true, encoding: .utf8)
        let imported = try await harness.run("import", "--offline", list.path)
        #expect(Self.isTerminalSafe(imported.stdout + imported.stderr), "\(imported.stderr.debugDescription)")
        #expect(imported.stderr.contains(#"isbns\x1B[2J\n.txt:2: 'not-an-isbn\x1B[2J' is not an ISBN"#), "\(imported.stderr)")
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func escapesInAVisionReplyAreNotStoredOrPrinted() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        // The model's reply (JSON-escaped inside the chat answer) holds CSI, OSC 52, a bidi override and a NUL.
        let answer = #"{"spines": [{"text": "THE SILENT\u001b[2J ORCHARD\u001b]52;c;ZXZpbA==\u0007 MARGOT\u0000 HALE", "title": "The Silent\u202e Orchard", "author": "Margot\u009b31m Hale", "position": 0, "confidence": 0.8}]}"#
        let content = String(decoding: try JSONSerialization.data(withJSONObject: [answer]), as: UTF8.self).dropFirst().dropLast()
        harness.server.route("/v1/chat/completions", method: "POST", response: .json(
            #"{"choices":[{"index":0,"message":{"role":"assistant","content":\#(content)},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":10}}"#))
        harness.server.route(Self.volumes, response: .json(#"{"totalItems": 0}"#))
        harness.extraEnvironment = [
            "RAPIDSCAN_VISION_PROVIDER": "openai",
            "RAPIDSCAN_VISION_URL": harness.server.baseURL.appendingPathComponent("v1").absoluteString,
            "RAPIDSCAN_VISION_MODEL": "shelf-test-model",
            "RAPIDSCAN_VISION_API_KEY_ENV": "SHELF_TEST_KEY",
            "SHELF_TEST_KEY": "sk-e2e-secret-value",
            "RAPIDSCAN_SOURCES": "googleBooks",
        ]
        let photo = harness.directory.appendingPathComponent("shelf.jpg")
        try FileManager.default.copyItem(at: try #require(SharedFiles.fixture("shelves/minhan_img1346_top_shelf.jpg")), to: photo)

        let spines = try await harness.run("spines", photo.path)
        #expect(Self.isTerminalSafe(spines.stdout + spines.stderr), "\(spines.stdout.debugDescription) \(spines.stderr.debugDescription)")
        #expect(spines.stdout.contains(#""THE SILENT ORCHARD MARGOT HALE""#), "\(spines.stdout)")
        // Stored clean: the JSON of the run read back from the reply cache says the same.
        let again = try await harness.run("spines", "--json", photo.path)
        let reading = try #require(again.jsonLines.first { $0["reading"] != nil }?["reading"] as? String)
        #expect(reading == "THE SILENT ORCHARD MARGOT HALE")
    }

    @Test func escapesInAnImportFileAreNotStored() async throws {
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        // The last route that matches answers: the ISBN's own after the catch-all.
        harness.server.route(Self.volumes, response: .json(#"{"totalItems": 0}"#))
        try harness.server.replay(Self.volumes, fixture: "googlebooks/volumes_isbn_9780990582939_no_edge_curl_us.json",
                                  query: ["q": "isbn:\(Self.isbn)"])
        harness.server.route("/isbn/*", response: .json("{}", status: 404))
        harness.server.route("/search.json", response: .json(#"{"docs": []}"#))
        let header = "Book Id,Title,Author,Author l-f,Additional Authors,ISBN,ISBN13,My Rating,Average Rating,Publisher,Binding,Number of Pages,Year Published,Original Publication Year,Date Read,Date Added,Bookshelves,Bookshelves with positions,Exclusive Shelf,My Review,Spoiler,Private Notes,Read Count,Owned Copies"
        let rows = [
            "1,Crafting Interpreters,Robert Nystrom,,,,=\"\(Self.isbn)\",0,,,,,,,,,owned,owned,to-read,,,\"Note\u{1B}]52;c;ZXZpbA==\u{07} kept!\",0,1",
            "2,Gone\u{1B}[2J Book\u{202E},Nobody\u{9B}31m,,,,,0,,,,,,,,,owned,owned,to-read,,,,0,1",
        ]
        let file = harness.directory.appendingPathComponent("goodreads.csv")
        try ([header] + rows).joined(separator: "\n").appending("\n").write(to: file, atomically: true, encoding: .utf8)
        let imported = try await harness.run("import", file.path)
        #expect(Self.isTerminalSafe(imported.stdout + imported.stderr), "\(imported.stdout.debugDescription) \(imported.stderr.debugDescription)")
        #expect(imported.stderr.contains("Book Not Found: Gone Book — Nobody"), "\(imported.stderr)")
        let show = try await harness.run("library", "show", "--json", Self.isbn)
        #expect((show.jsonLines.first?["item"] as? [String: Any])?["notes"] as? String == "Note kept!", "\(show.stdout)")
    }

    @Test func escapesInABackupAreNotStored() async throws {
        let source = try CLIHarness()
        #expect(try await source.run("library", "add", "9780306406157", "--title", "A Local History", "--author", "Ann Writer").status == 0)
        let backup = source.directory.appendingPathComponent("backup.json")
        #expect(try await source.run("export", "--format", "json", "-o", backup.path).status == 0)
        // A crafted backup: the same book with terminal controls in its text (JSON escapes).
        var text = try String(contentsOf: backup, encoding: .utf8)
        #expect(text.contains("A Local History") && text.contains("Ann Writer"))
        text = text.replacingOccurrences(of: "A Local History", with: #"A Local\u001b[2J History\u202e"#)
        text = text.replacingOccurrences(of: "Ann Writer", with: #"Ann\u001b]52;c;ZXZpbA==\u0007 Writer"#)
        try text.write(to: backup, atomically: true, encoding: .utf8)

        let target = try CLIHarness()
        let imported = try await target.run("import", backup.path)
        #expect(imported.status == 0, "\(imported.stderr)")
        let show = try await target.run("library", "show", "--json", "9780306406157")
        let item = show.jsonLines.first?["item"] as? [String: Any]
        #expect(item?["title"] as? String == "A Local History", "\(show.stdout)")
        #expect(item?["authors"] as? [String] == ["Ann Writer"], "\(show.stdout)")
        #expect(Self.isTerminalSafe(show.stdout + imported.stdout + imported.stderr))
    }

    @Test func exportWritesIntoDevicesFIFOsAndSymlinkTargets() async throws {
        let harness = try CLIHarness()
        #expect(try await harness.run("library", "add", "9780306406157", "--title", "A Local History", "--author", "Ann Writer").status == 0)

        // /dev/null stays a character device (renaming over it, as root, made it a file).
        let devNull = try await harness.run("export", "--format", "csv", "-o", "/dev/null")
        #expect(devNull.status == 0, "\(devNull.stderr)")
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)

        // A FIFO is written into: its reader gets the export, and it is still a FIFO.
        let fifo = harness.directory.appendingPathComponent("export.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = Task.detached { () -> Data in
            (try? FileHandle(forReadingFrom: URL(fileURLWithPath: fifo)).readToEnd()) ?? Data()
        }
        let toFIFO = try await harness.run("export", "--format", "csv", "-o", fifo)
        #expect(toFIFO.status == 0, "\(toFIFO.stderr)")
        let received = String(decoding: await reader.value, as: UTF8.self)
        #expect(received.contains("A Local History"))
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)

        // A symlink: its target gets the export; the link stays a link.
        let target = harness.directory.appendingPathComponent("real.csv")
        try "old\n".write(to: target, atomically: true, encoding: .utf8)
        let link = harness.directory.appendingPathComponent("link.csv")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let toLink = try await harness.run("export", "--format", "csv", "-o", link.path)
        #expect(toLink.status == 0, "\(toLink.stderr)")
        #expect(lstat(link.path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
        #expect(try String(contentsOf: target, encoding: .utf8).contains("A Local History"))

        // A regular file is replaced whole and keeps its permissions; a folder is refused.
        try "old\n".write(to: target, atomically: true, encoding: .utf8)
        #expect(chmod(target.path, 0o640) == 0)
        #expect(try await harness.run("export", "--format", "json", "-o", target.path).status == 0)
        #expect(stat(target.path, &info) == 0 && info.st_mode & 0o777 == 0o640)
        #expect(try String(contentsOf: target, encoding: .utf8).contains("\"rapidscanExport\""))
        let folder = try await harness.run("export", "--format", "csv", "-o", harness.directory.path)
        #expect(folder.status == 1 && folder.stderr.contains("directory"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: harness.directory.path).filter { $0.hasPrefix(".rapidscan-export") }
        #expect(leftovers.isEmpty)
    }

    @Test func csvExportsNeutraliseFormulasAndImportRestoresThem() async throws {
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        harness.server.route(Self.volumes, query: ["q": "isbn:\(Self.isbn)"], response: .json(#"""
            {"totalItems": 1, "items": [{"volumeInfo": {"title": "=HYPERLINK(\"http://evil.example\",\"click\")",
             "authors": ["@SUM(1+1)", "-2+3"], "publisher": "+cmd|' /C calc'!A0", "pageCount": 120,
             "industryIdentifiers": [{"type": "ISBN_13", "identifier": "\#(Self.isbn)"}]}}]}
            """#))
        #expect(try await harness.run("library", "add", Self.isbn).status == 0)
        #expect(try await harness.run("library", "set", Self.isbn, "--notes", "=1+2", "--rating", "4").status == 0)

        let csv = try await harness.run("export", "--format", "csv")
        let csvRow = try #require(csv.stdoutLines.dropFirst().first)
        #expect(csvRow.hasPrefix("\(Self.isbn),0990582930,\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"click\"\")\",'@SUM(1+1); -2+3,'+cmd|' /C calc'!A0,"), "\(csvRow)")
        #expect(csvRow.contains(",120,") && csvRow.contains(",4,") && csvRow.contains(",'=1+2,"), "numbers untouched, notes protected: \(csvRow)")

        let goodreads = try await harness.run("export", "--format", "goodreads")
        let grRow = try #require(goodreads.stdoutLines.dropFirst().first)
        #expect(grRow.contains(",'@SUM(1+1),"), "\(grRow)")
        #expect(grRow.contains(",'-2+3,"), "additional authors: \(grRow)")
        #expect(grRow.contains(#","=""0990582930""","=""9780990582939""",4,"#), "Goodreads' own ISBN cells and the rating stay: \(grRow)")
        #expect(grRow.contains(",'=1+2,"))

        // Our own Goodreads export read back restores the text as it was.
        let file = harness.directory.appendingPathComponent("goodreads.csv")
        try goodreads.stdout.write(to: file, atomically: true, encoding: .utf8)
        let other = try CLIHarness()
        other.extraEnvironment = harness.server.sourcesEnvironment()
        let imported = try await other.run("import", file.path)
        #expect(imported.status == 0, "\(imported.stderr)")
        let show = try await other.run("library", "show", "--json", Self.isbn)
        #expect((show.jsonLines.first?["item"] as? [String: Any])?["notes"] as? String == "=1+2", "\(show.stdout)")
    }

    /// The attack used 50 MB (1.5 GB before; the report has that run's figures): 8 MB here
    /// shows the same path without a minute of a debug build's time. A line past the 1 MB
    /// limit is refused by its number before the file is held as text; a shorter one that is
    /// still no ISBN is quoted short.
    @Test func aLongOneLineFileIsRefusedByItsLineAndQuotedShort() async throws {
        let harness = try CLIHarness()
        let file = harness.directory.appendingPathComponent("one-line.txt")
        try (Data("9780306406157\n".utf8) + Data(repeating: UInt8(ascii: "7"), count: 8 << 20) + Data("\n9780306406157\n".utf8)).write(to: file)
        let result = try await harness.run("import", "--offline", file.path)
        #expect(result.status == 1)
        #expect(result.stderr.utf8.count < 1000, "the error echoes an excerpt: \(result.stderr.utf8.count) bytes")
        #expect(result.stderr.contains("one-line.txt:2: a line of 8.0 MB, longer than any row an import holds (at most 1 MB a line)"),
                "\(result.stderr.prefix(500))")
        #expect(try await harness.run("pending", "list", "--json").jsonLines.isEmpty, "nothing of the file was imported")

        let shorter = harness.directory.appendingPathComponent("long-row.txt")
        try Data(repeating: UInt8(ascii: "7"), count: 512 << 10).write(to: shorter)
        let quoted = try await harness.run("import", "--offline", shorter.path)
        #expect(quoted.status == 1)
        #expect(quoted.stderr.utf8.count < 1000, "the error echoes an excerpt: \(quoted.stderr.utf8.count) bytes")
        #expect(quoted.stderr.contains("long-row.txt:1: '" + String(repeating: "7", count: 39) + "… (524288 bytes)' is not an ISBN"), "\(quoted.stderr.prefix(500))")
    }

    @Test func utf16FilesWithABOMAreImported() async throws {
        let harness = try CLIHarness()
        #expect(try await harness.run("library", "add", "9780306406157", "--title", "Café Stories", "--author", "Zoë Writer").status == 0)
        let text = "ISBN\n9780306406157\n"
        for (name, bom, encoding) in [("le.txt", [UInt8]([0xFF, 0xFE]), String.Encoding.utf16LittleEndian),
                                      ("be.txt", [0xFE, 0xFF], .utf16BigEndian)] {
            let file = harness.directory.appendingPathComponent(name)
            try (Data(bom) + (text.data(using: encoding) ?? Data())).write(to: file)
            let result = try await harness.run("import", "-v", "--offline", file.path)
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect(result.stderr.contains("isbns, utf-16\(name.prefix(2)), 1 rows"), "\(result.stderr)")
            #expect(result.stdout.contains("Already in Library: Café Stories"), "\(result.stdout)")
        }
    }

    @Test func anAPIKeyInAWorldReadableConfigIsWarnedAbout() async throws {
        let harness = try CLIHarness()
        let folder = harness.directory.appendingPathComponent("config/rapidscan")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let config = folder.appendingPathComponent("config.toml")
        let key = "canary-world-readable-\(UUID().uuidString)"
        try "[sources.googleBooks]\napiKey = \"\(key)\"\n".write(to: config, atomically: true, encoding: .utf8)

        #expect(chmod(config.path, 0o644) == 0)
        let readable = try await harness.run("library", "list")
        #expect(readable.status == 0, "\(readable.stderr)")
        #expect(readable.stderr.contains("warning: \(config.path) holds an API key"))
        #expect(readable.stderr.contains("mode 644") && readable.stderr.contains("chmod 600 \(config.path)"))
        #expect(readable.stderrLines.filter { $0.contains("holds an API key") }.count == 1, "said once")
        #expect(!readable.stderr.contains(key) && !readable.stdout.contains(key))

        #expect(chmod(config.path, 0o600) == 0)
        let closed = try await harness.run("library", "list")
        #expect(closed.status == 0 && !closed.stderr.contains("API key"))
    }
}
