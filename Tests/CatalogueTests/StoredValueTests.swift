import BookCodes
@testable import Catalogue
import Foundation
import GRDB
import Testing
import TestSupport

/// Every stored value is decoded as one that can fail: a row holding a value its column cannot
/// hold is named (table, rowid, key, column, value, what is wrong) and skipped, or read
/// without that field; nothing traps and one bad row never fails a whole read.
@Suite struct StoredValueTests {
    /// Owns Dune, Foundation and Gatsby (rowids 1, 2, 3).
    func shelf(_ temp: TemporaryCatalogue) throws {
        for (code, title) in [("9780441013593", "Dune"), ("9780553293357", "Foundation"), ("9780743273565", "The Great Gatsby")] {
            let work = try temp.catalogue.record(edition(title), for: isbn(code))
            _ = try temp.catalogue.addOwned(isbn: isbn(code), work: work)
        }
    }

    @Test func aBadRequiredValueSkipsTheRowAndABadOptionalOneIsLeftOut() throws {
        let temp = try TemporaryCatalogue(onFile: true)
        try shelf(temp)
        try temp.execute("""
            UPDATE items SET addedAt = 'not a date' WHERE isbn = '9780441013593';
            UPDATE items SET rating = 99, ownedFormat = 'vinyl' WHERE isbn = '9780553293357';
            UPDATE items SET status = 7 WHERE isbn = '9780743273565';
            UPDATE lists SET itemCount = -2 WHERE id = 'local_toRead';
            """)
        #expect(try temp.catalogue.ownedItems().map(\.title) == ["Foundation"])
        let foundation = try #require(try temp.catalogue.item(isbn: isbn("9780553293357")))
        #expect(foundation.rating == nil && foundation.ownedFormat == nil && foundation.isOwned)
        #expect(try temp.catalogue.lists().first { $0.id == "local_toRead" }?.itemCount == 0)
        let found = temp.catalogue.damage.found
        #expect(found.contains(DamagedValue(table: "items", rowid: 1, key: found.first { $0.column == "addedAt" }?.key, column: "addedAt",
                                            value: "'not a date'", problem: "is not a date", rowSkipped: true)))
        #expect(found.contains { $0.column == "rating" && $0.value == "99" && !$0.rowSkipped && $0.rowid == 2 })
        #expect(found.contains { $0.column == "ownedFormat" && $0.value == "'vinyl'" && !$0.rowSkipped })
        #expect(found.contains { $0.column == "status" && $0.value == "'7'" && $0.rowSkipped && $0.rowid == 3 })
        #expect(found.contains { $0.table == "lists" && $0.column == "itemCount" && $0.value == "-2" })
        // Read again: each damaged value is reported once.
        _ = try temp.catalogue.ownedItems()
        #expect(temp.catalogue.damage.found.count == found.count)
        // The snapshot an export writes holds every row that can be read.
        #expect(try temp.catalogue.snapshot().items.map(\.title) == ["Foundation"])
    }

    @Test func aWriteOnADamagedRowSaysWhichRowInsteadOfGuessing() throws {
        let temp = try TemporaryCatalogue()
        try shelf(temp)
        try temp.execute("UPDATE items SET isbn = 'not-an-isbn', addedAt = x'00' WHERE bookId = (SELECT bookId FROM items WHERE title = 'Dune')")
        let dune = try #require(try temp.catalogue.work(forISBN: isbn("9780441013593")))
        // Another edition of the same work: the damaged row is named, never taken for "not owned".
        let error = #expect(throws: CatalogueError.self) { try temp.catalogue.addOwned(isbn: isbn("9780441172719"), work: dune) }
        guard case let .damaged(value)? = error else { Issue.record("expected .damaged, got \(String(describing: error))"); return }
        #expect(value.table == "items" && value.rowSkipped && value.column == "isbn" && value.rowid == 1)
        #expect(error?.description.contains("a stored value cannot be read: items row rowid 1") == true)
        // A damaged item can still be removed, and the counts follow.
        let id = try #require(try temp.catalogue.itemIds(matching: LibraryQuery(terms: ["dune"])).first)
        #expect(try temp.catalogue.removeItems(ids: [id]) == 1)
        #expect(try temp.catalogue.lists().first { $0.id == "local_toRead" }?.itemCount == 2)
    }

    @Test func aDamagedCacheRowIsAMissThatTheNextAnswerRepairs() throws {
        let temp = try TemporaryCatalogue()
        let code = isbn("9780441013593")
        _ = try temp.catalogue.record(edition("Dune"), for: code)
        try temp.execute("UPDATE works SET createdAt = 'yesterday', pageCount = -5")
        #expect(try temp.catalogue.work(forISBN: code) == nil)
        #expect(temp.catalogue.damage.found.map(\.column).sorted() == ["createdAt", "pageCount"])
        let repaired = try temp.catalogue.record(edition("Dune", pages: 412), for: code)
        #expect(repaired.pageCount == 412)
        #expect(try temp.catalogue.work(forISBN: code) == repaired)
    }

    @Test func aDatabaseFromANewerRapidscanIsRefusedUnwritten() throws {
        let temp = try TemporaryCatalogue(onFile: true)
        try temp.execute("INSERT INTO grdb_migrations (identifier) VALUES ('v99-future')")
        #expect(throws: CatalogueError.newerVersion(path: temp.path, detail: "migration 'v99-future' unknown to this rapidscan")) {
            try Catalogue(path: temp.path)
        }
        #expect(throws: CatalogueError.newerVersion(path: temp.path, detail: "migration 'v99-future' unknown to this rapidscan")) {
            try Catalogue(path: temp.path, readOnly: true)
        }
        try temp.execute("DELETE FROM grdb_migrations WHERE identifier = 'v99-future'; PRAGMA user_version = 2")
        #expect(throws: CatalogueError.newerVersion(path: temp.path, detail: "user_version 2; this rapidscan knows 0")) {
            try Catalogue(path: temp.path)
        }
    }

    @Test func storedISBNsAreCheckedWithTheirCheckDigit() {
        #expect(StoredRow.isISBN13("9780441013593"))
        #expect(!StoredRow.isISBN13("9780441013594"))
        #expect(!StoredRow.isISBN13("978044101359"))
        #expect(!StoredRow.isISBN13("978044101359X"))
    }
}
