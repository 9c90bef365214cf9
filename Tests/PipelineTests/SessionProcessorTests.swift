import BookCodes
import BookLookup
import BookMetadata
import Catalogue
import Foundation
import Pipeline
import TestSupport
import Testing

/// The stages after decode on a real SQLite catalogue. Books are put in the cache first and
/// looked up with `offline`, so no network is involved; frames carry injected capture times.
@Suite struct SessionProcessorTests {
    private let start = Date(timeIntervalSince1970: 1_795_342_530)

    @Test func debounceSequenceAddsOnceThenReportsAlreadyOwned() async throws {
        try await withCatalogue { catalogue in
            let isbn = try cachedBook(9, in: catalogue)
            let (processor, output) = makeProcessor(catalogue)
            for offset in [0.0, 1.0, 2.9, 3.1, 7.0] {
                await processor.process(frame("f\(offset).jpg", at: offset, codes: [.book(isbn, symbology: .isbn13, text: isbn.digits)]))
            }
            #expect(output.kinds == [.added, .debounced, .debounced, .alreadyOwned, .alreadyOwned])
            #expect(try catalogue.ownedCount() == 1)
            #expect(processor.record.badge == 1)
            #expect(processor.record.totals.debounced == 2)
            #expect(processor.record.totals.codes == 5)
        }
    }

    @Test func freePlanStopsAtFiftyOwnedBooks() async throws {
        try await withCatalogue { catalogue in
            try ownBooks(49, in: catalogue)
            let newBooks = try (100..<103).map { try cachedBook($0, in: catalogue) }
            let (processor, output) = makeProcessor(catalogue)
            for (i, isbn) in newBooks.enumerated() {
                await processor.process(frame("new\(i).jpg", at: Double(i * 10), codes: [.book(isbn, symbology: .isbn13, text: isbn.digits)]))
            }
            #expect(output.kinds == [.added, .libraryFull, .libraryFull])
            #expect(output.events[1].owned == 50 && output.events[1].limit == 50)
            #expect(output.events[1].toast.subtitle.hasPrefix("50/50 books. Upgrade to Pro"))
            #expect(try catalogue.ownedCount() == 50)
        }
    }

    @Test func proPlanAddsEveryBook() async throws {
        try await withCatalogue { catalogue in
            try ownBooks(49, in: catalogue)
            try catalogue.setPro(true)
            let newBooks = try (100..<103).map { try cachedBook($0, in: catalogue) }
            let (processor, output) = makeProcessor(catalogue)
            for (i, isbn) in newBooks.enumerated() {
                await processor.process(frame("new\(i).jpg", at: Double(i * 10), codes: [.book(isbn, symbology: .isbn13, text: isbn.digits)]))
            }
            #expect(output.kinds == [.added, .added, .added])
            #expect(try catalogue.ownedCount() == 52)
        }
    }

    @Test func addsToTheChosenList() async throws {
        try await withCatalogue { catalogue in
            let isbn = try cachedBook(7, in: catalogue)
            let finished = try #require(try catalogue.lists().first { $0.name == "Finished" })
            let output = CollectingOutput()
            let processor = SessionProcessor(
                debounceWindow: 3,
                lookup: LookupStage(service: LookupService(catalogue: catalogue, sources: []), offline: true, listId: finished.id),
                library: LibraryStage(catalogue: catalogue, listId: finished.id), output: output)
            await processor.process(frame("a.jpg", at: 0, codes: [.book(isbn, symbology: .isbn13, text: isbn.digits)]))
            #expect(output.kinds == [.added])
            let item = try #require(try catalogue.item(isbn: isbn))
            #expect(item.listId == finished.id)
            #expect(item.isOwned && item.ownedFormat?.rawValue == "physical")
        }
    }

    @Test func offlineMissIsQueuedWithTheIntentToOwn() async throws {
        try await withCatalogue { catalogue in
            let isbn = try ISBN13(validating: "9780306406157")
            let (processor, output) = makeProcessor(catalogue)
            let outcome = await processor.process(frame("a.jpg", at: 0, codes: [.book(isbn, symbology: .ean13, text: isbn.digits)]))
            #expect(output.kinds == [.queued])
            #expect(output.events[0].source == "offline")
            #expect(outcome.settled)
            let pending = try #require(try catalogue.pendingLookup(isbn: isbn))
            #expect(pending.intent.addOwned)
            #expect(try catalogue.ownedCount() == 0)
        }
    }

    @Test func productsAndRejectedCodesAreReportedNotLookedUp() async throws {
        try await withCatalogue { catalogue in
            let gtin = try GTIN(validating: "4006381333931")
            let (processor, output) = makeProcessor(catalogue)
            await processor.process(frame("a.jpg", at: 0, codes: [
                .product(gtin),
                .rejected(symbology: .ean13, text: "9780306406158", reason: "check digit should be 7, not 8"),
            ]))
            await processor.process(frame("b.jpg", at: 1, codes: [.product(gtin)]))
            await processor.process(frame("c.jpg", at: 2, codes: []))
            #expect(output.kinds == [.nonBook, .rejected, .debounced, .noCode])
            #expect(output.events[0].code == "4006381333931")
            #expect(output.events[1].reason == "check digit should be 7, not 8")
            #expect(try catalogue.pendingLookups().isEmpty)
            #expect(processor.record.totals.rejected == 1)
        }
    }

    @Test func unreadableFramesAreNotSettled() async throws {
        try await withCatalogue { catalogue in
            let (processor, output) = makeProcessor(catalogue)
            let outcome = await processor.process(DecodedFrame(frame: frame("bad.jpg", at: 0, codes: []).frame,
                                                               outcome: .unreadable(reason: "bad.jpg: empty file (0 bytes)")))
            #expect(!outcome.settled)
            #expect(output.kinds == [.unreadable])
            #expect(processor.record.unreadableFiles.first?.reason == "bad.jpg: empty file (0 bytes)")
        }
    }

    // MARK: - Helpers

    private func withCatalogue(_ body: (Catalogue) async throws -> Void) async throws {
        try await withTemporaryDirectory { directory in
            try await body(try Catalogue(path: directory.appendingPathComponent("library.sqlite").path))
        }
    }

    private func makeProcessor(_ catalogue: Catalogue) -> (SessionProcessor, CollectingOutput) {
        let output = CollectingOutput()
        let service = LookupService(catalogue: catalogue, sources: [])
        let processor = SessionProcessor(
            debounceWindow: 3, lookup: LookupStage(service: service, offline: true, listId: nil),
            library: LibraryStage(catalogue: catalogue, listId: nil), output: output)
        return (processor, output)
    }

    private func frame(_ name: String, at offset: TimeInterval, codes: [ReadCode]) -> DecodedFrame {
        let url = URL(fileURLWithPath: "/frames/\(name)")
        let time = start.addingTimeInterval(offset)
        return DecodedFrame(frame: Frame(url: url, size: 1, modified: time, captureTime: CaptureTime(date: time, origin: .fileName)),
                            outcome: .read(codes))
    }
}

/// A Bookland ISBN-13 "978" + 9-digit `n` + its check digit, recorded in the cache as its own work.
func cachedBook(_ n: Int, in catalogue: Catalogue) throws -> ISBN13 {
    let isbn = generatedISBN(n, prefix: "978")
    _ = try catalogue.record(EditionMetadata(isbn13: isbn.digits, title: "Book Number \(n)", authors: ["Author \(n)"],
                                             apiSource: "googleBooks"), for: isbn)
    return isbn
}

/// Makes `count` distinct books owned.
func ownBooks(_ count: Int, in catalogue: Catalogue) throws {
    for n in 0..<count {
        let isbn = try cachedBook(1000 + n, in: catalogue)
        let work = try #require(try catalogue.work(forISBN: isbn))
        _ = try catalogue.addOwned(isbn: isbn, work: work)
    }
}

/// Collects events (a test's view of stage "output").
final class CollectingOutput: EventOutput {
    var events: [ScanEvent] = []
    var summary: SessionSummary?
    var kinds: [ScanEvent.Kind] { events.map(\.kind) }
    func started(totalFrames: Int?) {}
    func emit(_ event: ScanEvent, record: SessionRecord) { events.append(event) }
    func frameFinished(record: SessionRecord) {}
    func finished(_ summary: SessionSummary) { self.summary = summary }
}
