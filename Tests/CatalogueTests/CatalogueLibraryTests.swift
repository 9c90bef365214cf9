import BookCodes
import Catalogue
import Foundation
import Testing
import TestSupport

@Suite struct CatalogueLibraryTests {
    /// Records `count` distinct books and returns them with their works.
    func books(_ temp: TemporaryCatalogue, count: Int, startingAt start: Int = 0) throws -> [(ISBN13, Work)] {
        try generatedISBNs(count, startingAt: start).map { code in
            (code, try temp.catalogue.record(edition("Book \(code.digits)", by: "Author \(code.digits)"), for: code))
        }
    }

    @Test func addsAnOwnedBookToWantToRead() throws {
        let temp = try TemporaryCatalogue()
        let (code, work) = try books(temp, count: 1)[0]
        let now = Date(timeIntervalSince1970: 1_750_000_000)
        guard case let .added(item) = try temp.catalogue.addOwned(isbn: code, work: work, now: now) else {
            Issue.record("expected added"); return
        }
        #expect(item.isOwned && item.ownedFormat == .physical && item.ownedAt == now && item.status == .unread)
        #expect(item.listId == "local_toRead" && item.bookId == work.workKey && item.isbn == code.digits)
        #expect(try temp.catalogue.ownedItems() == [item])
        #expect(try temp.catalogue.lists().first { $0.id == "local_toRead" }?.itemCount == 1)
        #expect(try temp.catalogue.user().scanCount == 1)
    }

    @Test func aSecondScanOfTheSameISBNOrAnotherEditionIsAlreadyOwned() throws {
        let temp = try TemporaryCatalogue()
        let hardcover = isbn("9781984878106"), paperback = isbn("9781984878113")
        let work = try temp.catalogue.record(edition("Think Again"), for: hardcover)
        let workAgain = try temp.catalogue.record(edition("Think Again"), for: paperback)
        guard case let .added(item) = try temp.catalogue.addOwned(isbn: hardcover, work: work) else {
            Issue.record("expected added"); return
        }
        #expect(try temp.catalogue.addOwned(isbn: hardcover, work: work) == .alreadyOwned(item))
        #expect(try temp.catalogue.addOwned(isbn: paperback, work: workAgain) == .alreadyOwned(item))
        #expect(try temp.catalogue.ownedCount() == 1)
    }

    @Test func fortyNineOwnedPlusThreeNewAddsOneAndReportsTwoFull() throws {
        let temp = try TemporaryCatalogue()
        for (code, work) in try books(temp, count: 49) {
            guard case .added = try temp.catalogue.addOwned(isbn: code, work: work) else { Issue.record("setup failed"); return }
        }
        let outcomes = try books(temp, count: 3, startingAt: 100).map { code, work in
            try temp.catalogue.addOwned(isbn: code, work: work)
        }
        guard case .added = outcomes[0] else { Issue.record("first should be added: \(outcomes[0])"); return }
        #expect(outcomes[1] == .libraryFull(owned: 50, limit: 50))
        #expect(outcomes[2] == .libraryFull(owned: 50, limit: 50))
        #expect(try temp.catalogue.ownedCount() == 50)
        // An owned book is still reported as owned when the library is full.
        let (firstCode, firstWork) = try books(temp, count: 1)[0]
        guard case .alreadyOwned = try temp.catalogue.addOwned(isbn: firstCode, work: firstWork) else {
            Issue.record("expected alreadyOwned"); return
        }
    }

    @Test func proIsUnlimited() throws {
        let temp = try TemporaryCatalogue()
        try temp.catalogue.setPro(true)
        #expect(try temp.catalogue.user().isPro)
        for (code, work) in try books(temp, count: 52) {
            guard case .added = try temp.catalogue.addOwned(isbn: code, work: work) else { Issue.record("expected added"); return }
        }
        #expect(try temp.catalogue.ownedCount() == 52)
        try temp.catalogue.setPro(false)
        let (code, work) = try books(temp, count: 1, startingAt: 500)[0]
        #expect(try temp.catalogue.addOwned(isbn: code, work: work) == .libraryFull(owned: 52, limit: 50))
    }

    @Test func concurrentAddsForTheLastSlotAddExactlyOne() async throws {
        let temp = try TemporaryCatalogue()
        for (code, work) in try books(temp, count: 49) { _ = try temp.catalogue.addOwned(isbn: code, work: work) }
        let candidates = try books(temp, count: 8, startingAt: 200)
        let catalogue = temp.catalogue
        let outcomes = try await withThrowingTaskGroup(of: AddOutcome.self) { group in
            for (code, work) in candidates { group.addTask { try catalogue.addOwned(isbn: code, work: work) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { if case .added = $0 { true } else { false } }.count == 1)
        #expect(try catalogue.ownedCount() == 50)
    }

    @Test func rejectsUnknownListsAndFormats() throws {
        let temp = try TemporaryCatalogue()
        let (code, work) = try books(temp, count: 1)[0]
        #expect(throws: CatalogueError.unknownList("nope")) { try temp.catalogue.addOwned(isbn: code, work: work, listId: "nope") }
        #expect(throws: CatalogueError.invalidFormat("vinyl")) { try temp.catalogue.addOwned(isbn: code, work: work, format: "vinyl") }
        guard case let .added(item) = try temp.catalogue.addOwned(isbn: code, work: work, listId: "local_completed", format: "ebook") else {
            Issue.record("expected added"); return
        }
        #expect(item.listId == "local_completed" && item.ownedFormat == .ebook)
    }
}

@Suite struct CataloguePendingAndResumeTests {
    @Test func pendingKeepsOneRowPerISBNAndNeverForgetsAnIntentToOwn() throws {
        let temp = try TemporaryCatalogue()
        let code = isbn("9780306406157")
        let t0 = Date(timeIntervalSince1970: 1_000_000)
        try temp.catalogue.enqueuePending(isbn: code, reason: "timed out", source: "googleBooks",
                                          nextRetryAt: t0 + 30, intent: .own(listId: "local_completed"), now: t0)
        let row = try temp.catalogue.enqueuePending(isbn: code, reason: "HTTP 503", source: "openLibrary",
                                                    nextRetryAt: t0 + 90, intent: .lookupOnly, now: t0 + 40)
        #expect(row.attempts == 2 && row.reason == "HTTP 503" && row.source == "openLibrary")
        #expect(row.intent == .own(listId: "local_completed"))
        #expect(row.queuedAt == t0 && row.lastAttemptAt == t0 + 40)
        #expect(try temp.catalogue.pendingLookups().count == 1)
        #expect(try temp.catalogue.pendingLookups(dueBefore: t0 + 60).isEmpty)
        #expect(try temp.catalogue.pendingLookups(dueBefore: t0 + 90).map(\.isbn) == [code.digits])
        // Another failed attempt (what a retry records) keeps the intent to own.
        try temp.catalogue.enqueuePending(isbn: code, reason: "HTTP 429", source: "googleBooks", nextRetryAt: t0 + 500,
                                          intent: .lookupOnly, now: t0 + 100)
        #expect(try temp.catalogue.pendingLookup(isbn: code)?.attempts == 3)
        #expect(try temp.catalogue.pendingLookup(isbn: code)?.intent.addOwned == true)
        try temp.catalogue.removePending(isbn: code)
        #expect(try temp.catalogue.pendingLookups().isEmpty)
        #expect(try temp.catalogue.stats().pendingLookups == 0)
    }

    @Test func processedFilesMatchOnPathSizeAndModificationTime() throws {
        let temp = try TemporaryCatalogue(onFile: true)
        let modified = Date(timeIntervalSince1970: 1_700_000_000.123_456_7)
        #expect(try !temp.catalogue.isProcessed(path: "/photos/a.jpg", size: 1000, modified: modified))
        try temp.catalogue.markProcessed(path: "/photos/a.jpg", size: 1000, modified: modified, outcome: "added")
        #expect(try temp.catalogue.isProcessed(path: "/photos/a.jpg", size: 1000, modified: modified))
        #expect(try !temp.catalogue.isProcessed(path: "/photos/a.jpg", size: 1001, modified: modified))
        #expect(try !temp.catalogue.isProcessed(path: "/photos/a.jpg", size: 1000, modified: modified + 1))
        let reopened = try Catalogue(path: temp.path)
        #expect(try reopened.isProcessed(path: "/photos/a.jpg", size: 1000, modified: modified))
        #expect(try reopened.processedFile(path: "/photos/a.jpg")?.outcome == "added")
    }
}
