import BookCodes
import Catalogue
import Foundation
import GRDB
import Testing
import TestSupport

@Suite struct CatalogueCacheTests {
    @Test func migratesAnEmptyFileAndCreatesTheLocalUserAndDefaultLists() throws {
        let temp = try TemporaryCatalogue(userId: "abc123", onFile: true)
        #expect(FileManager.default.fileExists(atPath: temp.path))
        let tables = try DatabaseQueue(path: temp.path).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%' ORDER BY name")
        }
        // v1's tables; later migrations ("v2-…") add their own beside them.
        #expect(Set(["isbnIndex", "items", "lists", "pendingLookups", "processedFiles", "users", "works"]).isSubset(of: tables))
        #expect(Set(["worksSearch", "itemsSearch", "notFoundCodes", "importedRows", "spineReadings", "spineReplies"]).isSubset(of: tables))
        let journal = try DatabaseQueue(path: temp.path).read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(journal == "wal")
        let user = try temp.catalogue.user()
        #expect(user.id == "abc123" && !user.isPro && user.scanCount == 0)
        let lists = try temp.catalogue.lists()
        #expect(lists.map(\.id) == ["abc123_toRead", "abc123_completed"])
        #expect(lists.map(\.name) == ["Want to Read", "Finished"])
        #expect(lists.allSatisfy { $0.isDefault && $0.shareCode.count == 6 })
        #expect(Set(lists.map(\.listType)) == [.toRead, .completed])
    }

    /// Any GRDB writer gets the same migrations and local user as a file.
    @Test func opensOnAnyWriterWithTheSameSchemaAsAFile() throws {
        let onFile = try TemporaryCatalogue(onFile: true)
        let schema = "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name"
        let fileSchema = try DatabaseQueue(path: onFile.path).read { db in try Row.fetchAll(db, sql: schema) }
        let queue = try DatabaseQueue()
        let inMemory = try Catalogue(writer: queue, userId: "abc123")
        let memorySchema = try queue.read { db in try Row.fetchAll(db, sql: schema) }
        #expect(memorySchema == fileSchema)
        #expect(try inMemory.user().id == "abc123")
        #expect(try inMemory.lists().map(\.id) == ["abc123_toRead", "abc123_completed"])
        // Opening again on the same writer migrates nothing and adds no second user.
        let again = try Catalogue(writer: queue, userId: "abc123")
        #expect(try again.lists().count == 2)
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM users") } == 1)
        let book = isbn("9781984878106")
        try inMemory.record(edition("Think Again"), for: book)
        #expect(try again.work(forISBN: book)?.workKey == "thinkagain_adamgrant")
    }

    @Test func reopeningKeepsDataAndDoesNotDuplicateTheUser() throws {
        let temp = try TemporaryCatalogue(onFile: true)
        let book = isbn("9781984878106")
        try temp.catalogue.record(edition("Think Again"), for: book)
        let reopened = try Catalogue(path: temp.path)
        #expect(try reopened.work(forISBN: book)?.workKey == "thinkagain_adamgrant")
        #expect(try reopened.lists().count == 2)
        let users = try DatabaseQueue(path: temp.path).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM users") }
        #expect(users == 1)
    }

    @Test func aFileThatIsNotADatabaseIsAClearError() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalogue-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("notes.sqlite").path
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try Catalogue(path: path)
            Issue.record("opening a text file should fail")
        } catch {
            #expect(error.description.hasPrefix("cannot open the database \(path): "))
            #expect(error.description.contains("not a database"))
        }
    }

    @Test func hardcoverAndPaperbackMergeIntoOneWorkInTheDatabase() throws {
        let temp = try TemporaryCatalogue()
        let hardcover = isbn("9781984878106"), paperback = isbn("9781984878113")
        try temp.catalogue.record(edition("Think Again", pages: 320, date: "2021-02-02", format: "hardcover"), for: hardcover)
        try temp.catalogue.record(edition("THINK AGAIN", description: "Complete.", cover: "https://x/y.jpg", pages: 336,
                                          date: "2023", format: "paperback", source: "openLibrary"), for: paperback)
        let work = try #require(try temp.catalogue.work(forISBN: paperback))
        #expect(work == (try temp.catalogue.work(forISBN: hardcover)))
        let formats = try temp.catalogue.editions(of: work).map(\.format)
        #expect(formats == ["paperback", "hardcover"])  // primary edition first
        #expect(work.editions == [hardcover.digits, paperback.digits] && work.editionCount == 2)
        #expect(work.pageCount == 320 && work.publishDate == "2021-02-02" && work.description == "Complete.")
        #expect(work.primaryIsbn == paperback.digits)
        let stats = try temp.catalogue.stats()
        #expect(stats.works == 1 && stats.editions == 2 && stats.isbnIndexEntries == 2)
    }

    @Test func isbn10AndIsbn13OfOneBookHitTheSameRow() throws {
        let temp = try TemporaryCatalogue(onFile: true)
        try temp.catalogue.record(edition("The Great Gatsby", by: "F. Scott Fitzgerald"), for: isbn("0-7432-7356-7"))
        try temp.catalogue.record(edition("The Great Gatsby", by: "F. Scott Fitzgerald", pages: 180), for: isbn("9780743273565"))
        let rows = try DatabaseQueue(path: temp.path).read { db in try String.fetchAll(db, sql: "SELECT isbn FROM isbnIndex") }
        #expect(rows == ["9780743273565"])
        let work = try #require(try temp.catalogue.work(forISBN: isbn("0743273567")))
        #expect(work.workKey == "greatgatsby_fscottfitzgerald" && work.editions == ["9780743273565"] && work.pageCount == 180)
    }

    @Test func anIndexedISBNStaysWithItsWorkWhenASourceRetitlesIt() throws {
        let temp = try TemporaryCatalogue()
        let book = isbn("9781984878106")
        try temp.catalogue.record(edition("Think Again"), for: book)
        let work = try temp.catalogue.record(edition("Think Again (Deluxe)", pages: 300), for: book)
        #expect(work.workKey == "thinkagain_adamgrant" && work.pageCount == 300)
        #expect(try temp.catalogue.stats().works == 1)
    }

    @Test func searchIsACaseInsensitivePrefixIgnoringLeadingArticles() throws {
        let temp = try TemporaryCatalogue()
        try temp.catalogue.record(edition("The Great Gatsby", by: "F. Scott Fitzgerald"), for: isbn("9780743273565"))
        try temp.catalogue.record(edition("Great Expectations", by: "Charles Dickens"), for: isbn("9780141439563"))
        try temp.catalogue.record(edition("Think Again"), for: isbn("9781984878106"))
        #expect(try temp.catalogue.searchWorks(title: "great").map(\.title).sorted() == ["Great Expectations", "The Great Gatsby"])
        #expect(try temp.catalogue.searchWorks(title: "THE GREAT  gat").map(\.title) == ["The Great Gatsby"])
        #expect(try temp.catalogue.searchWorks(title: "great", author: "dickens").map(\.title) == ["Great Expectations"])
        #expect(try temp.catalogue.searchWorks(title: "reat").isEmpty)
        #expect(try temp.catalogue.searchWorks(title: "g%").isEmpty)
        #expect(try temp.catalogue.searchWorks(title: "great", limit: 1).count == 1)
    }

    @Test func searchResultsWithoutISBNAreKeptAsWorks() throws {
        let temp = try TemporaryCatalogue()
        let work = try temp.catalogue.recordSearchResult(edition("The Stranger", by: "Albert Camus"))
        #expect(work.editions.isEmpty && work.primaryIsbn == "")
        let withISBN = try temp.catalogue.recordSearchResult(edition("The Stranger", by: "Albert Camus", isbn13: "9780679720201"))
        #expect(withISBN.editions == ["9780679720201"] && withISBN.primaryIsbn == "9780679720201")
        #expect(try temp.catalogue.work(forISBN: isbn("9780679720201"))?.workKey == "stranger_albertcamus")
    }
}
