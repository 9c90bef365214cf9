import BookCodes
import Foundation
import LocalSource
import MetadataSources
import Testing
import TestSupport

/// Dumps written by scripts/generate-ol-dump from the real Open Library records and the
/// goodbooks catalogue, loaded into a real SQLite file and read back through the source.
@Suite struct DumpLoaderTests {
    static func generate(_ arguments: [String], in directory: URL, name: String) async throws -> (URL, [(line: Int, reason: String)]) {
        let dump = try await GeneratedDump.generate(arguments, to: directory.appendingPathComponent(name))
        return (dump.file, dump.malformed)
    }

    static var catalogue: String { GeneratedDump.catalogue }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped))
    func loadsRevisionsAuthorsFromWorksAndReportsMalformedRowsByLine() async throws {
        try SharedFiles.requireShared()
        let directory = try makeTemporaryDirectory(prefix: "local-source")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (dump, expectedMalformed) = try await Self.generate(
            ["--catalogue", Self.catalogue, "--limit", "60", "--filler", "30", "--malformed"], in: directory, name: "dump.txt")
        #expect(expectedMalformed.count == 5)

        let database = directory.appendingPathComponent("dump.sqlite").path
        let loader = try DumpLoader(path: database, batchSize: 7)
        var reported: [Int] = []
        let report = try await loader.load(file: dump.path, malformed: { line, _ in reported.append(line) })
        #expect(reported == expectedMalformed.map(\.line))
        #expect(report.malformed == 5 && !report.alreadyLoaded)
        #expect(report.editions > 60)

        let source = try LocalDumpSource(path: database)
        // Goodbooks row 0 is written with its ISBN-10 only, its author only on the work, and an
        // older revision after the newer one; row 1 with its ISBN-13 only.
        let hungerGames = try #require(try await source.edition(isbn: isbn("9780439023481")))
        #expect(hungerGames.title == "The Hunger Games (The Hunger Games, #1)")
        #expect(hungerGames.authors == ["Suzanne Collins"])
        #expect(hungerGames.isbn10 == "0439023483")
        #expect(hungerGames.apiSource == "localDump")
        let kiteRunner = try #require(try await source.edition(isbn: isbn("9781594480003")))
        #expect(kiteRunner.title == "The Kite Runner" && kiteRunner.authors == ["Khaled Hosseini"])
        let potter = try #require(try await source.edition(isbn: isbn("9780439554930")))
        #expect(potter.title.hasPrefix("Harry Potter and the Sorcerer's Stone"))
        #expect(potter.authors == ["J.K. Rowling", "Mary GrandPré"])
        // Rows 0, 20, 40 come older revision first (stored, then replaced: two stores, one
        // edition); rows 10, 30, 50 newer first (the older one then changes nothing).
        #expect(try source.state().editions == report.editions - 3)
        #expect(report.skipped >= 3)
        // The real Sabriel record: author through the author rows, description, cover, publisher.
        let sabriel = try #require(try await source.edition(isbn: isbn("9780060273224")))
        #expect(sabriel.title == "Sabriel" && sabriel.authors == ["Garth Nix"])
        #expect(sabriel.publisher == "Harper Trophy" && sabriel.format == "hardcover")
        #expect(sabriel.coverImageUrl?.hasPrefix("https://covers.openlibrary.org/b/id/") == true)
        #expect(try await source.edition(isbn: isbn("9780306406157")) == nil)

        let found = try await source.search(title: "hunger games", author: "Collins", limit: 5)
        #expect(found.first?.title == "The Hunger Games (The Hunger Games, #1)")
        #expect(try await source.search(title: "hunger games", author: "Tolkien", limit: 5).isEmpty)
        // FTS syntax in a title is only words.
        _ = try await source.search(title: "\"AND* NEAR(", author: nil, limit: 5)
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped))
    func gzipAndPlainLoadTheSameAndAFileLoadedAgainAddsNothing() async throws {
        try SharedFiles.requireShared()
        let directory = try makeTemporaryDirectory(prefix: "local-source")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (plain, _) = try await Self.generate(["--catalogue", Self.catalogue, "--limit", "40"], in: directory, name: "d.txt")
        let (gzip, _) = try await Self.generate(["--catalogue", Self.catalogue, "--limit", "40", "--gzip"], in: directory, name: "d.txt.gz")

        let plainLoader = try DumpLoader(path: directory.appendingPathComponent("plain.sqlite").path)
        let gzipLoader = try DumpLoader(path: directory.appendingPathComponent("gzip.sqlite").path, batchSize: 5)
        let fromPlain = try await plainLoader.load(file: plain.path)
        let fromGzip = try await gzipLoader.load(file: gzip.path)
        #expect(fromPlain.lines == fromGzip.lines && fromPlain.editions == fromGzip.editions)
        #expect(fromPlain.works == fromGzip.works && fromPlain.authors == fromGzip.authors)
        let plainState = try LocalDumpSource(path: plainLoader.path).state()
        let gzipState = try LocalDumpSource(path: gzipLoader.path).state()
        #expect(plainState.editions == gzipState.editions && plainState.editions > 40)
        #expect(gzipState.dumpDate == "2024-01-01")

        let again = try await gzipLoader.load(file: gzip.path)
        #expect(again.alreadyLoaded && again.editions == 0)
        // The same rows in another file (the plain text): every revision is already stored.
        let sameRows = try await gzipLoader.load(file: plain.path)
        #expect(!sameRows.alreadyLoaded && sameRows.editions == 0 && sameRows.works == 0 && sameRows.authors == 0)
        #expect(try LocalDumpSource(path: gzipLoader.path).state().editions == gzipState.editions)
    }

    /// `rows` loaded as one dump (`editions` of them editions) into a new local source in
    /// `directory`, and that source's title search, as the titles it finds.
    static func titleSearch(of rows: [String], editions: Int, in directory: URL) async throws -> (String) async throws -> [String] {
        let dump = directory.appendingPathComponent("dump.txt")
        try (rows.joined(separator: "\n") + "\n").write(to: dump, atomically: true, encoding: .utf8)
        let database = directory.appendingPathComponent("dump.sqlite").path
        #expect(try await DumpLoader(path: database).load(file: dump.path).editions == editions)
        let source = try LocalDumpSource(path: database)
        return { reading in try await source.search(title: reading, author: nil, limit: 5).map(\.title) }
    }

    /// Rows as the all-types dump writes them (`type \t key \t revision \t last_modified \t JSON`).
    static func row(_ type: String, _ key: String, _ revision: Int, _ json: String) -> String {
        "/type/\(type)\t\(key)\t\(revision)\t2024-03-01T00:00:00.000000\t\(json)"
    }

    @Test func deletesAndRedirectsAndAnAuthorAlone() async throws {
        let directory = try makeTemporaryDirectory(prefix: "local-source")
        defer { try? FileManager.default.removeItem(at: directory) }
        let doomedOlder = Self.row("edition", "/books/OL103M", 1, #"{"title": "Doomed", "isbn_13": ["9780306406157"], "authors": [{"key": "/authors/OL2A"}]}"#)
        let rows = [
            Self.row("author", "/authors/OL1A", 1, #"{"name": "Terry Pratchett"}"#),
            Self.row("author", "/authors/OL2A", 1, #"{"name": "Neil Gaiman"}"#),
            Self.row("author", "/authors/OL3A", 1, #"{"name": "T. Pratchett"}"#),
            Self.row("work", "/works/OL10W", 1, #"{"title": "Mort", "authors": [{"author": {"key": "/authors/OL1A"}}]}"#),
            Self.row("work", "/works/OL11W", 1, #"{"title": "Guards! Guards!", "authors": [{"author": {"key": "/authors/OL2A"}}]}"#),
            Self.row("edition", "/books/OL100M", 1, #"{"title": "Mort", "isbn_10": ["0552131067"], "authors": [{"key": "/authors/OL1A"}], "works": [{"key": "/works/OL10W"}]}"#),
            // No author of its own; its work is redirected to one whose author is Pratchett.
            Self.row("edition", "/books/OL101M", 1, #"{"title": "Guards! Guards!", "isbn_13": ["9780552134637"], "works": [{"key": "/works/OL11W"}]}"#),
            // Its author is redirected to Pratchett, who is also listed (twice): one name.
            Self.row("edition", "/books/OL102M", 1, #"{"title": "Eric", "isbn_13": ["9780575046368"], "authors": [{"key": "/authors/OL3A"}, {"key": "/authors/OL1A"}, {"key": "/authors/OL1A"}]}"#),
            doomedOlder,
            Self.row("edition", "/books/OL104M", 1, #"{"title": "Coraline", "isbn_13": ["9780000001115"], "authors": [{"key": "/authors/OL2A"}]}"#),
            Self.row("delete", "/books/OL103M", 2, #"{"key": "/books/OL103M", "type": {"key": "/type/delete"}}"#),
            Self.row("redirect", "/works/OL11W", 2, #"{"location": "/works/OL10W", "type": {"key": "/type/redirect"}}"#),
            Self.row("redirect", "/authors/OL3A", 2, #"{"location": "/authors/OL1A"}"#),
            // A redirect to nowhere usable changes nothing; a delete older than the record neither.
            Self.row("redirect", "/books/OL104M", 3, #"{"location": "/works/OL10W"}"#),
            Self.row("delete", "/books/OL100M", 1, #"{}"#),
        ]
        let dump = directory.appendingPathComponent("ol_dump_2024-03-01.txt")
        try (rows.joined(separator: "\n") + "\n").write(to: dump, atomically: true, encoding: .utf8)
        let database = directory.appendingPathComponent("dump.sqlite").path
        let loader = try DumpLoader(path: database, batchSize: 4)
        let report = try await loader.load(file: dump.path)
        #expect(report.retired == 3 && report.malformed == 0)

        let source = try LocalDumpSource(path: database)
        #expect(try await source.edition(isbn: isbn("9780306406157")) == nil)
        #expect(try await source.edition(isbn: isbn("9780552131063"))?.authors == ["Terry Pratchett"])
        #expect(try await source.edition(isbn: isbn("9780552134637"))?.authors == ["Terry Pratchett"])
        #expect(try await source.edition(isbn: isbn("9780575046368"))?.authors == ["Terry Pratchett"])
        #expect(try await source.edition(isbn: isbn("9780000001115"))?.title == "Coraline")
        #expect(try source.state().authors == 2)

        // The deleted edition's older row, in another file, does not bring it back.
        let again = directory.appendingPathComponent("older.txt")
        try (doomedOlder + "\n").write(to: again, atomically: true, encoding: .utf8)
        #expect(try await loader.load(file: again.path).editions == 0)
        #expect(try await source.edition(isbn: isbn("9780306406157")) == nil)

        // An author's name alone: the editions naming them first, on the edition or its work.
        let pratchett = try await source.search(author: "Terry Pratchett", limit: 10)
        #expect(Set(pratchett.map(\.title)) == ["Mort", "Guards! Guards!", "Eric"])
        #expect(try await source.search(author: "pratchett", limit: 10).count == 3)
        #expect(try await source.search(author: "Gaiman", limit: 10).map(\.title) == ["Coraline"])
        #expect(try await source.search(author: "Rowling", limit: 10).isEmpty)
        // Through the title search a spine reading that is only a name gets there too.
        #expect(try await source.search(title: "Neil Gaiman", author: nil, limit: 5).map(\.title) == ["Coraline"])
        #expect(try await source.search(title: "", author: "Gaiman", limit: 5).map(\.title) == ["Coraline"])
        #expect(try await source.search(title: "Mort", author: nil, limit: 5).map(\.title) == ["Mort"])
    }

    /// Spine readings as OCR gives them: a junk word, a word cut short or with a letter run on.
    /// Into an empty store the ISBN and title indexes are filled at the end of the load; a
    /// second file then keeps them up row by row (a newer revision's title replaces the old one).
    @Test func spineReadingsWithJunkOrCutWordsFindTheirTitleAndNothingElse() async throws {
        let directory = try makeTemporaryDirectory(prefix: "local-source")
        defer { try? FileManager.default.removeItem(at: directory) }
        let rows = [
            Self.row("author", "/authors/OL1A", 1, #"{"name": "Terry Pratchett"}"#),
            Self.row("author", "/authors/OL2A", 1, #"{"name": "Neil Gaiman"}"#),
            Self.row("author", "/authors/OL3A", 1, #"{"name": "Terry Brooks"}"#),
            Self.row("edition", "/books/OL1M", 1, #"{"title": "The Colour of Magic", "isbn_13": ["9780552124751"], "authors": [{"key": "/authors/OL1A"}]}"#),
            Self.row("edition", "/books/OL2M", 1, #"{"title": "Magic Kingdom for Sale", "isbn_13": ["9780345317582"], "authors": [{"key": "/authors/OL3A"}]}"#),
            Self.row("edition", "/books/OL3M", 1, #"{"title": "American Gods", "isbn_13": ["9780380789030"], "authors": [{"key": "/authors/OL2A"}]}"#),
            Self.row("edition", "/books/OL4M", 1, #"{"title": "The Ocean at the End of the Lane", "isbn_13": ["9780062255655"], "authors": [{"key": "/authors/OL2A"}]}"#),
            Self.row("edition", "/books/OL5M", 1, #"{"title": "Sourcery Wrong Title", "isbn_13": ["9780552131070"], "authors": [{"key": "/authors/OL1A"}]}"#),
        ]
        let dump = directory.appendingPathComponent("first.txt")
        try (rows.joined(separator: "\n") + "\n").write(to: dump, atomically: true, encoding: .utf8)
        let database = directory.appendingPathComponent("dump.sqlite").path
        let loader = try DumpLoader(path: database, batchSize: 3)
        #expect(try await loader.load(file: dump.path).editions == 5)
        let newer = directory.appendingPathComponent("second.txt")
        try (Self.row("edition", "/books/OL5M", 2, #"{"title": "Sourcery", "isbn_13": ["9780552131070"], "authors": [{"key": "/authors/OL1A"}]}"#) + "\n")
            .write(to: newer, atomically: true, encoding: .utf8)
        #expect(try await loader.load(file: newer.path).editions == 1)

        let source = try LocalDumpSource(path: database)
        #expect(try await source.edition(isbn: isbn("9780380789030"))?.title == "American Gods")
        func titles(_ reading: String, _ author: String? = nil) async throws -> [String] {
            try await source.search(title: reading, author: author, limit: 5).map(\.title)
        }
        #expect(try await titles("COLOUR OF MAGIC xqzt") == ["The Colour of Magic"])
        #expect(try await titles("Ocean at the End of the Lan") == ["The Ocean at the End of the Lane"])
        #expect(try await titles("AMERICAN GODSS") == ["American Gods"])
        #expect(try await titles("AMERIC GODS", "Gaiman") == ["American Gods"])
        // Both share two words: the best covered first; an author named keeps only theirs.
        #expect(try await titles("magic kingdom colour sale zzq") == ["Magic Kingdom for Sale", "The Colour of Magic"])
        #expect(try await titles("colour magic kingdom zzq", "Pratchett") == ["The Colour of Magic"])
        // One shared common word is no match; a title no edition has finds nothing.
        #expect(try await titles("MAGIC zzkq").isEmpty)
        #expect(try await titles("Unseen Academicals").isEmpty)
        // The replaced revision's title words are gone from the index, the new one's are there.
        #expect(try await titles("Wrong Title").isEmpty)
        #expect(try await titles("Sourcery") == ["Sourcery"])
    }

    /// A spine shows a book's main title: a series in brackets need not be read ("the host STEPHENIE
    /// MEYER" is *The Host (The Host, #1)*, found online and not in the dump before). A surname read
    /// beside a word of its book's title, too few words for the closest titles, finds that author's
    /// book ("HARLOW Minigr Rider"); a surname with no word of its books' titles finds nothing. A word
    /// whose first letters were lost at the spine's edge still counts. Readings of issue 35's held-out
    /// shelves (minhan_img1538, minhan_img1539) and the rendered hard shelves.
    @Test func aSpineFindsTheMainTitleAndAnAuthorsBookByOneTitleWord() async throws {
        let directory = try makeTemporaryDirectory(prefix: "local-source")
        defer { try? FileManager.default.removeItem(at: directory) }
        let rows = [
            Self.row("author", "/authors/OL1A", 1, #"{"name": "Stephenie Meyer"}"#),
            Self.row("author", "/authors/OL2A", 1, #"{"name": "Marie Lu"}"#),
            Self.row("author", "/authors/OL3A", 1, #"{"name": "Joan Hiatt Harlow"}"#),
            Self.row("author", "/authors/OL4A", 1, #"{"name": "Fran Cannon Slayton"}"#),
            Self.row("author", "/authors/OL5A", 1, #"{"name": "H. Rider Haggard"}"#),
            Self.row("edition", "/books/OL1M", 1, #"{"title": "The Host (The Host, #1)", "isbn_13": ["9780316068048"], "authors": [{"key": "/authors/OL1A"}]}"#),
            Self.row("edition", "/books/OL2M", 1, #"{"title": "Prodigy (Legend, #2)", "isbn_13": ["9780399256769"], "authors": [{"key": "/authors/OL2A"}]}"#),
            Self.row("edition", "/books/OL3M", 1, #"{"title": "Midnight Rider", "isbn_13": ["9780689874055"], "authors": [{"key": "/authors/OL3A"}]}"#),
            Self.row("edition", "/books/OL4M", 1, #"{"title": "Star in the Storm", "isbn_13": ["9780689845062"], "authors": [{"key": "/authors/OL3A"}]}"#),
            Self.row("edition", "/books/OL5M", 1, #"{"title": "When the Whistle Blows", "isbn_13": ["9780399251894"], "authors": [{"key": "/authors/OL4A"}]}"#),
            Self.row("edition", "/books/OL6M", 1, #"{"title": "King Solomon's Mines", "isbn_13": ["9780140437201"], "authors": [{"key": "/authors/OL5A"}]}"#),
            Self.row("author", "/authors/OL6A", 1, #"{"name": "Zizou Corder"}"#),
            Self.row("edition", "/books/OL7M", 1, #"{"title": "Lionboy", "isbn_13": ["9780142402405"], "authors": [{"key": "/authors/OL6A"}]}"#),
            Self.row("edition", "/books/OL8M", 1, #"{"title": "Dragon Rider", "isbn_13": ["9780439456951"]}"#),
        ]
        let titles = try await Self.titleSearch(of: rows, editions: 8, in: directory)
        #expect(try await titles("the host STEPHENIE MEYER") == ["The Host (The Host, #1)"])
        #expect(try await titles("MARIE LU PRODIGY") == ["Prodigy (Legend, #2)"])
        #expect(try await titles("HARLOW Minigr Rider") == ["Midnight Rider"])
        // A word's first letters lost at the spine's edge: with another word of the title, or its author read.
        #expect(try await titles("agon Rider") == ["Dragon Rider"])
        #expect(try await titles("-CORDER IONBOY") == ["Lionboy"])
        // "Rider" names Haggard too, but no other word read is in his titles; Slayton's title has no word read.
        #expect(try await titles("SLAYTON SLAYTON Scarce Ble").isEmpty)
        #expect(try await titles("RIDER Minigr zzq").isEmpty)
    }

    /// A title word read one letter off (`BLOOOSWORN` on minhan_img1538) shares no word with any
    /// title as read: the tolerant search finds the titles one letter (changed, left out, added,
    /// two swapped) from its long words (`nwind`, Unwind without its first letter, on minhan_img1539).
    /// Two letters off, or a word under five letters, finds nothing.
    @Test func aTitleWordReadOneLetterOffIsFound() async throws {
        let directory = try makeTemporaryDirectory(prefix: "local-source")
        defer { try? FileManager.default.removeItem(at: directory) }
        let rows = [
            Self.row("author", "/authors/OL1A", 1, #"{"name": "Scott Reintgen"}"#),
            Self.row("edition", "/books/OL1M", 1, #"{"title": "Bloodsworn (Ashlords, #2)", "isbn_13": ["9780593119174"], "authors": [{"key": "/authors/OL1A"}]}"#),
            Self.row("edition", "/books/OL2M", 1, #"{"title": "Blood and Bone", "isbn_13": ["9780062412249"]}"#),
            Self.row("edition", "/books/OL3M", 1, #"{"title": "Unwind", "isbn_13": ["9781416912040"]}"#),
        ]
        let dump = directory.appendingPathComponent("spines.txt")
        try (rows.joined(separator: "\n") + "\n").write(to: dump, atomically: true, encoding: .utf8)
        let database = directory.appendingPathComponent("dump.sqlite").path
        #expect(try await DumpLoader(path: database).load(file: dump.path).editions == 3)
        let source = try LocalDumpSource(path: database)
        func titles(_ reading: String) async throws -> [String] {
            try await source.search(title: reading, author: nil, limit: 5).map(\.title)
        }
        #expect(try await titles("BLOOOSWORN") == ["Bloodsworn (Ashlords, #2)"])
        #expect(try await titles("BLODSWORN") == ["Bloodsworn (Ashlords, #2)"])
        #expect(try await titles("BLOODSOWRN") == ["Bloodsworn (Ashlords, #2)"])
        #expect(try await titles("BLOOOSWURN").isEmpty)
        #expect(try await titles("nwind") == ["Unwind"])
        #expect(try await titles("nwnd").isEmpty)
    }

    /// Chinese titles are one index term a run (no spaces): a spine read with a publisher glued
    /// on, or cut short, still finds its title by the run's two-character pieces and is ranked
    /// character by character. Titles and authors of the labelled shelf dianaaaa_img09 (../shared).
    @Test func aChineseTitleReadInPartOrInsideJunkIsFound() async throws {
        let directory = try makeTemporaryDirectory(prefix: "local-source")
        defer { try? FileManager.default.removeItem(at: directory) }
        let rows = [
            Self.row("author", "/authors/OL1A", 1, #"{"name": "张桂刚"}"#),
            Self.row("author", "/authors/OL2A", 1, #"{"name": "宋杰"}"#),
            Self.row("edition", "/books/OL1M", 1, #"{"title": "大数据背后的核心技术", "isbn_13": ["9787111547112"], "authors": [{"key": "/authors/OL1A"}]}"#),
            Self.row("edition", "/books/OL2M", 1, #"{"title": "大数据处理平台能耗优化方法的研究", "isbn_13": ["9787121321900"], "authors": [{"key": "/authors/OL2A"}]}"#),
            Self.row("edition", "/books/OL3M", 1, #"{"title": "数据流知识发现", "isbn_13": ["9787302470120"]}"#),
        ]
        let titles = try await Self.titleSearch(of: rows, editions: 3, in: directory)
        #expect(try await titles("大数据背后的核心技术") == ["大数据背后的核心技术"])
        #expect(try await titles("大数据背后的核心技") .first == "大数据背后的核心技术")
        #expect(try await titles("大数据处理平台能耗优化方法的研究电子工业出版社").first == "大数据处理平台能耗优化方法的研究")
        #expect(try await titles("RS 数据流知识发现 清华").first == "数据流知识发现")
        // Characters no title starts with find nothing.
        #expect(try await titles("机械工业出版社").isEmpty)
    }

    @Test func aFileThatIsNotThereIsNamed() async throws {
        let directory = try makeTemporaryDirectory(prefix: "local-source")
        defer { try? FileManager.default.removeItem(at: directory) }
        let loader = try DumpLoader(path: directory.appendingPathComponent("d.sqlite").path)
        await #expect { try await loader.load(file: "/nonexistent/ol_dump.txt.gz") } throws: { error in
            "\(error)".contains("/nonexistent/ol_dump.txt.gz")
        }
    }
}
