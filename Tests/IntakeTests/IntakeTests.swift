import BookCodes
import BookLookup
import BookMetadata
import Catalogue
import Foundation
import Intake
import MetadataSources
import Testing
import TestSupport

/// The intake on a real SQLite file: each outcome, the origin a not-found code is
/// remembered with, and the free plan's limit for every batch form (import chunk, backup).
@Suite struct IntakeTests {
    @Test func addsOnceThenReportsAlreadyOwnedAndRemembersUnknownCodesWithTheirOrigin() async throws {
        try await withCatalogue { catalogue in
            let code = try cachedBook(1, in: catalogue)
            let intake = Intake(lookup: LookupService(catalogue: catalogue, sources: [NoSuchBook()]))
            let first = await intake.take(code, from: .importRow(file: "books.csv", line: 7))
            guard case let .added(book) = first else { Issue.record("expected added, got \(first)"); return }
            #expect(book.title == "Book Number 1" && book.source == "cache" && book.itemId != nil)
            #expect(await intake.take(code, from: .typed).kind == .alreadyOwned)
            #expect(try catalogue.ownedCount() == 1)

            let unknown = generatedISBN(2, prefix: "978")
            #expect(await intake.take(unknown, from: .importRow(file: "books.csv", line: 9)) == .notFound(IntakeBook(isbn13: unknown)))
            #expect(try catalogue.notFoundCodes().map(\.origin) == ["books.csv:9"])
        }
    }

    @Test func aSourceThatCannotAnswerQueuesAndAFullLibraryRefuses() async throws {
        try await withCatalogue { catalogue in
            let intake = Intake(lookup: LookupService(catalogue: catalogue, sources: [Unreachable()]))
            let waiting = generatedISBN(3, prefix: "978")
            let queued = await intake.take(waiting, from: .typed)
            #expect(queued.kind == .queued && queued.book?.isbn13 == waiting && queued.isStored)
            #expect(try catalogue.pendingLookup(isbn: waiting)?.intent.addOwned == true)

            for n in 0..<User.freeOwnedLimit {
                let code = try cachedBook(100 + n, in: catalogue)
                #expect(await intake.take(code, from: .typed).kind == .added)
            }
            let late = try cachedBook(99, in: catalogue)
            let full = await intake.take(late, from: .spine(photo: "shelf.jpg", position: 3))
            #expect(full == .libraryFull(IntakeBook(isbn13: late, title: "Book Number 99", authors: ["Author 99"],
                                                     workKey: full.book?.workKey, source: "cache"), owned: 50, limit: 50))
            #expect(!full.isStored && !full.isSettled)
            #expect(full.reason?.contains("50 of 50") == true)
        }
    }

    /// A database that cannot be written: a failure naming the file, never "queued" nor "added".
    @Test func aReadOnlyDatabaseIsAFailureNamingIt() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("library.sqlite").path
            let code: ISBN13
            do {
                let writable = try Catalogue(path: path)
                code = try cachedBook(5, in: writable)
            }
            let readOnly = try Catalogue(path: path, readOnly: true)
            let outcome = await Intake(catalogue: readOnly).take(code, from: .typed)
            #expect(outcome.kind == .failed && !outcome.isStored)
            #expect(outcome.reason?.contains(path) == true, "\(outcome)")
        }
    }

    /// Every batch form keeps the same limit: 50 owned on the free plan, the rest refused (37.6).
    @Test func aBackupRestoreHoldsTheFreePlansLimit() async throws {
        try await withCatalogue { source in
            try source.setPro(true)
            for n in 0..<200 {
                let code = try cachedBook(n, in: source)
                _ = Intake(catalogue: source).own(code, work: try #require(try source.work(forISBN: code)), source: "cache", from: .typed)
            }
            #expect(try source.ownedCount() == 200)
            let snapshot = try source.snapshot()
            try await withCatalogue { target in
                let restored = try Intake(catalogue: target).restore(snapshot)
                #expect(restored.added == 50 && restored.libraryFull == 150)
                #expect(try target.ownedCount() == 50)
                try target.setPro(true)
                let again = try Intake(catalogue: target).restore(snapshot)
                #expect(again.added == 150 && again.alreadyPresent == 50 && again.libraryFull == 0)
                #expect(try target.ownedCount() == 200)
            }
        }
    }
}

// MARK: - Helpers

private func withCatalogue(_ body: (Catalogue) async throws -> Void) async throws {
    try await withTemporaryDirectory { directory in
        try await body(try Catalogue(path: directory.appendingPathComponent("library.sqlite").path))
    }
}

private func cachedBook(_ n: Int, in catalogue: Catalogue) throws -> ISBN13 {
    let isbn = generatedISBN(n, prefix: "978")
    _ = try catalogue.record(EditionMetadata(isbn13: isbn.digits, title: "Book Number \(n)", authors: ["Author \(n)"],
                                             apiSource: "googleBooks"), for: isbn)
    return isbn
}

/// A source that knows no book.
private struct NoSuchBook: MetadataSource {
    let name = "none"
    func edition(isbn: ISBN13) async throws(SourceError) -> EditionMetadata? { nil }
    func search(title: String, author: String?, limit: Int) async throws(SourceError) -> [EditionMetadata] { [] }
}

/// A source that cannot be reached.
private struct Unreachable: MetadataSource {
    let name = "down"
    func edition(isbn: ISBN13) async throws(SourceError) -> EditionMetadata? { throw .network("unreachable") }
    func search(title: String, author: String?, limit: Int) async throws(SourceError) -> [EditionMetadata] { throw .network("unreachable") }
}
