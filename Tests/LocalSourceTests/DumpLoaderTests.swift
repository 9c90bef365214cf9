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
        let report = try loader.load(file: dump.path, malformed: { line, _ in reported.append(line) })
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
        let fromPlain = try plainLoader.load(file: plain.path)
        let fromGzip = try gzipLoader.load(file: gzip.path)
        #expect(fromPlain.lines == fromGzip.lines && fromPlain.editions == fromGzip.editions)
        #expect(fromPlain.works == fromGzip.works && fromPlain.authors == fromGzip.authors)
        let plainState = try LocalDumpSource(path: plainLoader.path).state()
        let gzipState = try LocalDumpSource(path: gzipLoader.path).state()
        #expect(plainState.editions == gzipState.editions && plainState.editions > 40)
        #expect(gzipState.dumpDate == "2024-01-01")

        let again = try gzipLoader.load(file: gzip.path)
        #expect(again.alreadyLoaded && again.editions == 0)
        // The same rows in another file (the plain text): every revision is already stored.
        let sameRows = try gzipLoader.load(file: plain.path)
        #expect(!sameRows.alreadyLoaded && sameRows.editions == 0 && sameRows.works == 0 && sameRows.authors == 0)
        #expect(try LocalDumpSource(path: gzipLoader.path).state().editions == gzipState.editions)
    }

    @Test func aFileThatIsNotThereIsNamed() throws {
        let directory = try makeTemporaryDirectory(prefix: "local-source")
        defer { try? FileManager.default.removeItem(at: directory) }
        let loader = try DumpLoader(path: directory.appendingPathComponent("d.sqlite").path)
        #expect { try loader.load(file: "/nonexistent/ol_dump.txt.gz") } throws: { error in
            "\(error)".contains("/nonexistent/ol_dump.txt.gz")
        }
    }
}
