import BookCodes
@testable import Catalogue
import Foundation
import GRDB
import Testing
import TestSupport

@Suite struct CatalogueReliabilityTests {
    /// SQLite's result code survives into the error, each with a message a user can act on.
    @Test func sqliteResultCodesKeepTheirOwnMessages() {
        let path = "/data/library.sqlite"
        #expect(CatalogueError(DatabaseError(resultCode: .SQLITE_READONLY), path: path) == .readOnly(path: path))
        #expect(CatalogueError(DatabaseError(resultCode: .SQLITE_BUSY), path: path) == .busy(path: path))
        #expect(CatalogueError(DatabaseError(resultCode: .SQLITE_LOCKED), path: path) == .busy(path: path))
        guard case .diskFull(path, _, _) = CatalogueError(DatabaseError(resultCode: .SQLITE_FULL), path: path) else {
            Issue.record("SQLITE_FULL should be diskFull"); return
        }
        #expect(CatalogueError.readOnly(path: path).description.contains("read-only"))
        let full = CatalogueError.diskFull(path: path, walBytes: 3 << 20, freeBytes: 0).description
        #expect(full.contains("disk holding /data/library.sqlite is full") && full.contains("Free at least 6"))
    }

    /// A reply with absurd field sizes is stored cut to a sane length.
    @Test func storedFieldsAreCapped() throws {
        let temp = try TemporaryCatalogue()
        let huge = String(repeating: "é", count: 300_000)
        let code = try ISBN13(validating: "9780306406157")
        let work = try temp.catalogue.record(
            edition(String(repeating: "T", count: 5_000), description: huge, categories: Array(repeating: "c", count: 500)), for: code)
        #expect(work.description?.count == StoredFieldLimits.description)
        #expect(work.title.count == StoredFieldLimits.title)
        #expect(work.categories.count <= StoredFieldLimits.listCount)
        let stored = try #require(try temp.catalogue.work(forISBN: code))
        #expect(stored.description?.count == StoredFieldLimits.description)
    }
}
