import BarcodeReading
import BookCodes
import BookMetadata
import BookLookup
import Catalogue
import Foundation
import MetadataSources
import Pipeline
import Synchronization
import TestSupport
import Testing

/// The stages after decode on a real SQLite catalogue. Books are put in the cache first and
/// looked up with `offline`, so no network is involved; frames carry injected capture times.
/// Outcomes are checked as typed values (`ScanEvent.Outcome`), not strings.
@Suite struct SessionPipelineTests {
    private let start = Date(timeIntervalSince1970: 1_795_342_530)

    @Test func debounceSequenceAddsOnceThenReportsAlreadyOwned() async throws {
        try await withCatalogue { catalogue in
            let isbn = try cachedBook(9, in: catalogue)
            let (pipeline, output) = makePipeline(catalogue)
            for offset in [0.0, 1.0, 2.9, 3.1, 7.0] {
                await pipeline.process(frame("f\(offset).jpg", at: offset, codes: [bookCode(isbn)]))
            }
            #expect(output.kinds == [.added, .debounced, .debounced, .alreadyOwned, .alreadyOwned])
            let book = ScannedBook(isbn13: isbn, title: "Book Number 9", symbology: .ean13)
            #expect(output.events[0].outcome == .added(book))
            #expect(output.events[1].outcome == .debounced(.book(isbn, symbology: .ean13, text: isbn.digits)))
            #expect(output.events[3].outcome == .alreadyOwned(book))
            #expect(try catalogue.ownedCount() == 1)
            #expect(pipeline.record.badge == 1)
            #expect(pipeline.record.totals.debounced == 2)
            #expect(pipeline.record.totals.codes == 5)
        }
    }

    @Test func freePlanStopsAtFiftyOwnedBooks() async throws {
        try await withCatalogue { catalogue in
            try ownBooks(49, in: catalogue)
            let newBooks = try (100..<103).map { try cachedBook($0, in: catalogue) }
            let (pipeline, output) = makePipeline(catalogue)
            for (i, isbn) in newBooks.enumerated() {
                await pipeline.process(frame("new\(i).jpg", at: Double(i * 10), codes: [bookCode(isbn)]))
            }
            #expect(output.kinds == [.added, .libraryFull, .libraryFull])
            guard case let .libraryFull(book, owned, limit) = output.events[1].outcome else {
                Issue.record("not library full: \(output.events[1])"); return
            }
            #expect(owned == 50 && limit == 50)
            #expect(book.isbn13 == newBooks[1])
            #expect(try catalogue.ownedCount() == 50)
        }
    }

    @Test func proPlanAddsEveryBook() async throws {
        try await withCatalogue { catalogue in
            try ownBooks(49, in: catalogue)
            try catalogue.setPro(true)
            let newBooks = try (100..<103).map { try cachedBook($0, in: catalogue) }
            let (pipeline, output) = makePipeline(catalogue)
            for (i, isbn) in newBooks.enumerated() {
                await pipeline.process(frame("new\(i).jpg", at: Double(i * 10), codes: [bookCode(isbn)]))
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
            let pipeline = SessionPipeline(
                catalogue: catalogue, lookup: LookupService(catalogue: catalogue, sources: []),
                settings: .init(debounceWindow: 3, offline: true, listId: finished.id), output: output)
            await pipeline.process(frame("a.jpg", at: 0, codes: [bookCode(isbn)]))
            #expect(output.kinds == [.added])
            let item = try #require(try catalogue.item(isbn: isbn))
            #expect(item.listId == finished.id)
            #expect(item.isOwned && item.ownedFormat?.rawValue == "physical")
        }
    }

    @Test func offlineMissIsQueuedWithTheIntentToOwn() async throws {
        try await withCatalogue { catalogue in
            let isbn = try ISBN13(validating: "9780306406157")
            let (pipeline, output) = makePipeline(catalogue)
            let outcome = await pipeline.process(frame("a.jpg", at: 0, codes: [bookCode(isbn)]))
            #expect(output.kinds == [.queued])
            guard case let .queued(book, waitingFor, _) = output.events[0].outcome else { Issue.record("not queued"); return }
            #expect(waitingFor == .offline)
            #expect(waitingFor.name == "offline")
            #expect(book.isbn13 == isbn)
            #expect(outcome.settled)
            let pending = try #require(try catalogue.pendingLookup(isbn: isbn))
            #expect(pending.intent.addOwned)
            #expect(try catalogue.ownedCount() == 0)
        }
    }

    @Test func productsAndRejectedCodesAreReportedNotLookedUp() async throws {
        try await withCatalogue { catalogue in
            let gtin = try GTIN(validating: "4006381333931", as: .ean13)
            let (pipeline, output) = makePipeline(catalogue)
            await pipeline.process(frame("a.jpg", at: 0, codes: [detection("4006381333931"), detection("9780306406158")]))
            await pipeline.process(frame("b.jpg", at: 1, codes: [detection("4006381333931")]))
            await pipeline.process(frame("c.jpg", at: 2, codes: []))
            #expect(output.kinds == [.nonBook, .rejected, .debounced, .noCode])
            #expect(output.events[0].outcome == .nonBook(gtin))
            #expect(output.events[0].printedCode?.text == "4006381333931")
            #expect(output.events[1].reason == "check digit should be 7, not 8")
            #expect(output.events[2].outcome == .debounced(.product(gtin)))
            #expect(try catalogue.pendingLookups().isEmpty)
            #expect(pipeline.record.totals.rejected == 1)
        }
    }

    @Test func unreadableFramesAreNotSettled() async throws {
        try await withCatalogue { catalogue in
            let (pipeline, output) = makePipeline(catalogue)
            let outcome = await pipeline.process(DecodedFrame(frame: frame("bad.jpg", at: 0, codes: []).frame,
                                                              outcome: .unreadable(reason: "bad.jpg: empty file (0 bytes)")))
            #expect(!outcome.settled)
            #expect(output.kinds == [.unreadable])
            #expect(output.events[0].outcome == .unreadable(reason: "bad.jpg: empty file (0 bytes)"))
            #expect(pipeline.record.unreadableFiles.first?.reason == "bad.jpg: empty file (0 bytes)")
        }
    }

    /// The design in one test: lookups of later frames run while an earlier frame's lookup
    /// is slow, yet books are added, recorded and emitted in capture order.
    @Test func lookupsRunAheadButOutcomesFollowCaptureOrder() async throws {
        try await withCatalogue { catalogue in
            let isbns = generatedISBNs(3, prefix: "978")
            // The first book's answer waits until the others are in.
            let source = FakeSource(delays: [isbns[2]: 0.05], held: isbns[0])
            let output = CollectingOutput()
            let pipeline = SessionPipeline(
                catalogue: catalogue, lookup: LookupService(catalogue: catalogue, sources: [source]),
                settings: .init(), output: output)
            let planned = isbns.enumerated().map { i, isbn in
                pipeline.plan(frame("f\(i).jpg", at: Double(i), codes: [bookCode(isbn)]))
            }
            try await waitUntil { planned[1].isReady && planned[2].isReady }
            #expect(!planned[0].isReady, "later lookups finished while the first waits")
            source.release()
            for frame in planned { await pipeline.finish(frame) }
            #expect(output.events.map(\.file) == ["/frames/f0.jpg", "/frames/f1.jpg", "/frames/f2.jpg"])
            #expect(output.events.map(\.outcome) == isbns.map { .added(ScannedBook(isbn13: $0, title: "Fake \($0.digits)", symbology: .ean13)) })
            #expect(source.answeredOrder == [isbns[1], isbns[2], isbns[0]])
            #expect(try catalogue.ownedCount() == 3)
        }
    }

    /// Sources that cannot answer: the book is queued through the service's one pending
    /// path (its clock, its back-off), and the event says which source it waits for.
    @Test func anUnansweredLookupIsQueuedByTheServiceWithItsClock() async throws {
        try await withCatalogue { catalogue in
            let isbn = generatedISBN(42, prefix: "978")
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let service = LookupService(catalogue: catalogue, sources: [FakeSource(failing: true)], clock: { now },
                                        schedule: RetrySchedule(base: 60, maximum: 60, jitter: 0))
            let output = CollectingOutput()
            let pipeline = SessionPipeline(catalogue: catalogue, lookup: service, settings: .init(), output: output)
            await pipeline.process(frame("a.jpg", at: 0, codes: [bookCode(isbn)]))
            guard case let .queued(book, waitingFor, reason) = output.events.first?.outcome else {
                Issue.record("not queued: \(output.events)"); return
            }
            #expect(book.isbn13 == isbn)
            #expect(waitingFor == .source("fake"))
            #expect(reason.contains("down"))
            let pending = try #require(try catalogue.pendingLookup(isbn: isbn))
            #expect(pending.queuedAt == now, "queued with the injected clock, not Date()")
            #expect(pending.nextRetryAt > now, "with the back-off")
            #expect(pending.intent.addOwned)
        }
    }

    // MARK: - Helpers

    private func withCatalogue(_ body: (Catalogue) async throws -> Void) async throws {
        try await withTemporaryDirectory { directory in
            try await body(try Catalogue(path: directory.appendingPathComponent("library.sqlite").path))
        }
    }

    private func makePipeline(_ catalogue: Catalogue) -> (SessionPipeline, CollectingOutput) {
        let output = CollectingOutput()
        let service = LookupService(catalogue: catalogue, sources: [])
        let pipeline = SessionPipeline(catalogue: catalogue, lookup: service,
                                       settings: .init(debounceWindow: 3, offline: true), output: output)
        return (pipeline, output)
    }

    private func frame(_ name: String, at offset: TimeInterval, codes: [Detection]) -> DecodedFrame {
        let url = URL(fileURLWithPath: "/frames/\(name)")
        let time = start.addingTimeInterval(offset)
        return DecodedFrame(frame: Frame(url: url, size: 1, modified: time, captureTime: CaptureTime(date: time, origin: .fileName)),
                            outcome: .read(codes))
    }
}

/// A barcode as zbar reports it (EAN-13), validated like the reader does.
func detection(_ text: String, _ symbology: Symbology = .ean13) -> Detection {
    Detection(symbology: symbology, text: text, quality: 1, bounds: BoundingBox(x: 0, y: 0, width: 1, height: 1))
}

func bookCode(_ isbn: ISBN13) -> Detection { detection(isbn.digits) }

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

/// A metadata source answering after a per-ISBN delay (or failing), recording the order it answered in.
final class FakeSource: MetadataSource {
    let name = "fake"
    private let delays: [ISBN13: Double]
    private let failing: Bool
    private let answered = Mutex<[ISBN13]>([])
    /// An ISBN whose answer waits for `release()`.
    private let held: ISBN13?
    private let released = Mutex(false)

    init(delays: [ISBN13: Double] = [:], failing: Bool = false, held: ISBN13? = nil) {
        self.delays = delays
        self.failing = failing
        self.held = held
    }

    func release() { released.withLock { $0 = true } }

    var answeredOrder: [ISBN13] { answered.withLock { $0 } }

    func edition(isbn: ISBN13) async throws(SourceError) -> EditionMetadata? {
        if failing { throw .network("fake source is down") }
        try? await Task.sleep(for: .seconds(delays[isbn] ?? 0))
        while isbn == held, !released.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(5)) }
        answered.withLock { $0.append(isbn) }
        return EditionMetadata(isbn13: isbn.digits, title: "Fake \(isbn.digits)", authors: ["Someone"], apiSource: "fake")
    }

    func search(title: String, author: String?, limit: Int) async throws(SourceError) -> [EditionMetadata] { [] }
}

/// Collects events (a test's view of stage "emit").
final class CollectingOutput: EventOutput {
    var events: [ScanEvent] = []
    var notes: [SessionNote] = []
    var summary: SessionSummary?
    var kinds: [ScanEvent.Kind] { events.map(\.kind) }
    func started(totalFrames: Int?) {}
    func emit(_ event: ScanEvent, record: SessionRecord) { events.append(event) }
    func frameFinished(record: SessionRecord) {}
    func note(_ note: SessionNote) { notes.append(note) }
    func finished(_ summary: SessionSummary) { self.summary = summary }
}
