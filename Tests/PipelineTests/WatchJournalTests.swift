import BookCodes
import Foundation
import Pipeline
import TestSupport
import Testing

/// `watch`'s journal on a real SQLite file: what is held survives the process (a reopened
/// journal has it), belongs to one library, and leaves only when released.
@Suite struct WatchJournalTests {
    @Test func heldBooksSurviveAReopenAndLeaveOnlyWhenReleased() throws {
        try withTemporaryDirectory { folder in try heldBooksSurviveAReopen(in: folder) }
    }

    private func heldBooksSurviveAReopen(in folder: URL) throws {
        let path = folder.appendingPathComponent("state/rapidscan/watch-journal-desk.sqlite")
        let isbns = generatedISBNs(3, prefix: "978")
        let capture = Date(timeIntervalSince1970: 1_795_342_530.25)
        do {
            let journal = try WatchJournal(path: path, library: "postgresql://u@db:5432/books")
            for (i, isbn) in isbns.enumerated() {
                _ = try journal.hold(isbn, symbology: .ean13, file: "f\(i).png", capturedAt: capture)
            }
        }
        // Another library's journal rows are not this one's.
        let other = try WatchJournal(path: path, library: "postgresql://u@db:5432/other")
        #expect(try other.held().isEmpty)

        let reopened = try WatchJournal(path: path, library: "postgresql://u@db:5432/books")
        let held = try reopened.held()
        #expect(held.map(\.isbn13) == isbns, "oldest first")
        #expect(held.map(\.file) == ["f0.png", "f1.png", "f2.png"])
        #expect(held.first?.symbology == .ean13)
        #expect(held.first?.capturedAt == capture)
        try reopened.release(held[1])
        #expect(try reopened.held().map(\.isbn13) == [isbns[0], isbns[2]])
    }

    @Test func aBookHeldThenStoredIsNoLongerCountedHeld() {
        var record = SessionRecord()
        let isbn = generatedISBNs(1, prefix: "978")[0]
        let id = record.beginScan(isbn13: isbn, file: "f.png")
        let time = Date()
        record.record(ScanEvent(file: "f.png", captureTime: time, outcome: .held(ScannedBook(isbn13: isbn), reason: "server away")), scanId: id)
        #expect(record.totals.held == 1)
        #expect(record.recent.first?.state == .held)
        record.recordReleased(ScanEvent(file: "f.png", captureTime: time, outcome: .added(ScannedBook(isbn13: isbn, title: "Back"))))
        #expect(record.totals.held == 0)
        #expect(record.totals.added == 1)
        #expect(record.recent.first?.state == .added)
        #expect(record.recent.first?.title == "Back")
    }
}
