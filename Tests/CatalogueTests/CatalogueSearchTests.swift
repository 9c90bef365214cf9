import BookCodes
import Catalogue
import Foundation
import GRDB
import Testing
import TestSupport

@Suite struct CatalogueSearchTests {
    func shelf(_ temp: TemporaryCatalogue) throws -> [String: Work] {
        let books: [(String, String, String)] = [
            ("9780441013593", "Dune", "Frank Herbert"),
            ("9780553293357", "Foundation", "Isaac Asimov"),
            ("9780060883287", "One Hundred Years of Solitude", "Gabriel García Márquez"),
            ("9780743273565", "The Great Gatsby", "F. Scott Fitzgerald"),
            ("9780441172719", "Dune Messiah", "Frank Herbert"),
        ]
        var works: [String: Work] = [:]
        for (code, title, author) in books {
            works[title] = try temp.catalogue.record(edition(title, by: author, publisher: "Ace"), for: isbn(code))
        }
        return works
    }

    @Test func matchesWordsAnywhereInTitleOrAuthorsRankedByBM25() throws {
        let temp = try TemporaryCatalogue()
        let works = try shelf(temp)
        // A word in the middle of the title, in another case.
        #expect(try temp.catalogue.searchWorks("SOLITUDE").map(\.title) == ["One Hundred Years of Solitude"])
        // Author words, accents ignored, word prefixes.
        #expect(try temp.catalogue.searchWorks("garcia marq").map(\.workKey) == [works["One Hundred Years of Solitude"]!.workKey])
        // Both Herbert books; the one with "dune" as its whole title ranks first.
        #expect(try temp.catalogue.searchWorks("dune herbert").map(\.title) == ["Dune", "Dune Messiah"])
        #expect(try temp.catalogue.searchWorks("messiah", limit: 1).map(\.title) == ["Dune Messiah"])
    }

    @Test func punctuationQuotesAndFTSSyntaxInUserTextAreJustText() throws {
        let temp = try TemporaryCatalogue()
        _ = try shelf(temp)
        for text in ["\"great gatsby", "great: gatsby)", "gatsby*", "(the) AND great - gatsby", "NOT gatsby", "F. Scott"] {
            #expect(try temp.catalogue.searchWorks(text).map(\.title) == ["The Great Gatsby"], "\(text)")
        }
        #expect(try temp.catalogue.searchWorks("\"()*:-").isEmpty)
        #expect(try temp.catalogue.searchWorks("   ").isEmpty)
    }

    @Test func noisyTextFallsBackToAnyWordStillRanked() throws {
        let temp = try TemporaryCatalogue()
        _ = try shelf(temp)
        // OCR of a spine: one real title word among noise.
        let found = try temp.catalogue.searchWorks("FOUNDATI0N xqzt asimov")
        #expect(found.first?.title == "Foundation")
    }

    @Test func indexFollowsInsertsUpdatesAndDeletes() throws {
        let temp = try TemporaryCatalogue(onFile: true)
        let works = try shelf(temp)
        let dune = works["Dune"]!
        let pool = try DatabasePool(path: temp.path)
        // Any writer's update (here another connection's) reaches the index through its trigger.
        try pool.write { db in try db.execute(sql: "UPDATE works SET publisher = 'Chilton Books' WHERE workKey = ?", arguments: [dune.workKey]) }
        #expect(try temp.catalogue.searchWorks("chilton").map(\.workKey) == [dune.workKey])
        #expect(try temp.catalogue.searchWorks("dune").count == 2)

        try pool.write { db in try db.execute(sql: "DELETE FROM works WHERE workKey = ?", arguments: [dune.workKey]) }
        #expect(try temp.catalogue.searchWorks("dune").map(\.title) == ["Dune Messiah"])
        let rows = try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM worksSearch") }
        #expect(rows == 4)
    }

    @Test func itemsAreSearchableForTheirOwnerOnly() throws {
        let temp = try TemporaryCatalogue(onFile: true)
        let works = try shelf(temp)
        let code = isbn("9780553293357")
        guard case let .added(item) = try temp.catalogue.addOwned(isbn: code, work: works["Foundation"]!) else {
            Issue.record("expected added"); return
        }
        // Through the library query the CLI runs (`library list <words>`).
        func itemIds(_ catalogue: Catalogue, _ words: String) throws -> [String] {
            var query = LibraryQuery()
            query.words = words
            query.ownedOnly = false
            return try catalogue.itemIds(matching: query)
        }
        #expect(try itemIds(temp.catalogue, "asimov") == [item.id])
        #expect(try itemIds(temp.catalogue, "dune").isEmpty)
        let other = try Catalogue(path: temp.path, userId: "someone")
        #expect(try itemIds(other, "asimov").isEmpty)
    }
}
