import BookCodes
import BookLookup
import Foundation
import Pipeline
import TestSupport
import Testing

@Suite struct SessionRecordTests {
    private let time = Date(timeIntervalSince1970: 1_795_342_530.25)

    private func event(_ file: String, _ outcome: ScanEvent.Outcome) -> ScanEvent {
        ScanEvent(file: file, captureTime: time, outcome: outcome)
    }

    @Test func keepsTenMostRecentNewestFirstWithTheirStates() {
        var record = SessionRecord()
        let isbns = generatedISBNs(12, prefix: "978")
        for (i, isbn) in isbns.enumerated() {
            let id = record.beginScan(isbn13: isbn, file: "f\(i).jpg")
            if i < 11 {
                let book = ScannedBook(isbn13: isbn, title: "Book \(i)")
                record.record(event("f\(i).jpg", i % 2 == 0 ? .added(book) : .alreadyOwned(book)), scanId: id)
            }
        }
        #expect(record.recent.count == 10)
        #expect(record.recent.first?.isbn13 == isbns[11])
        #expect(record.recent.first?.state == .adding)
        #expect(record.recent.first?.state.label == "Adding…")
        #expect(record.recent[1].state == .added)
        #expect(record.recent[1].title == "Book 10")
        #expect(record.recent[2].state.label == "Already owned")
        #expect(record.recent.last?.isbn13 == isbns[2])
        #expect(record.badge == 6)
        #expect(record.totals.alreadyOwned == 5)
    }

    @Test func countsTotalsAndUnreadableFiles() throws {
        var record = SessionRecord()
        record.countFrame()
        record.countFrame()
        record.countCodes(3)
        let isbn = try ISBN13(validating: "9780306406157")
        record.record(event("a.jpg", .rejected(symbology: .ean13, text: "9780306406158", reason: "check digit should be 7, not 8")))
        record.record(event("a.jpg", .debounced(.book(isbn, symbology: .ean13, text: isbn.digits))))
        record.record(event("b.jpg", .unreadable(reason: "b.jpg: empty file (0 bytes)")))
        let id = record.beginScan(isbn13: isbn, file: "a.jpg")
        record.record(event("a.jpg", .queued(ScannedBook(isbn13: isbn), waitingFor: .source("googleBooks"), reason: "timeout")), scanId: id)
        let t = record.totals
        #expect([t.frames, t.codes, t.rejected, t.debounced, t.unreadable, t.queued, t.added] as [Int] == [2, 3, 1, 1, 1, 1, 0])
        #expect(record.unreadableFiles.map(\.file) == ["b.jpg"])
        #expect(record.recent.first?.state.label == "Queued (Google Books)")
    }

    @Test func failedScansCarryTheirReason() throws {
        var record = SessionRecord()
        let isbn = try ISBN13(validating: "9780306406157")
        let id = record.beginScan(isbn13: isbn, file: "a.jpg")
        record.record(event("a.jpg", .failed(ScannedBook(isbn13: isbn), reason: "database is locked")), scanId: id)
        #expect(record.recent.first?.state.label == "Failed: database is locked")
        #expect(record.totals.failed == 1)
    }

    @Test func lookupsInFlightCountFromAcceptanceToOutcome() throws {
        var record = SessionRecord()
        let (a, b) = (try ISBN13(validating: "9780306406157"), try ISBN13(validating: "9781250313188"))
        let first = record.beginScan(isbn13: a, file: "a.jpg")
        _ = record.beginScan(isbn13: b, file: "b.jpg")
        #expect(record.lookupsInFlight == 2)
        record.record(event("a.jpg", .queued(ScannedBook(isbn13: a), waitingFor: .offline, reason: "offline")), scanId: first)
        #expect(record.lookupsInFlight == 1)
    }

    /// Where a lookup was answered is a value, named once for output.
    @Test func provenanceNames() {
        #expect(LookupProvenance.source("openLibrary").name == "openLibrary")
        #expect([LookupProvenance.cache, .database, .offline].map(\.name) == ["cache", "database", "offline"])
    }
}
