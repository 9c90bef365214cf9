import Foundation
import Pipeline
import Testing

@Suite struct SessionRecordTests {
    private let time = Date(timeIntervalSince1970: 1_795_342_530.25)

    @Test func keepsTenMostRecentNewestFirstWithTheirStates() {
        var record = SessionRecord()
        var ids: [Int] = []
        for i in 0..<12 {
            let isbn = "97800000000\(String(format: "%02d", i))"
            let id = record.beginScan(isbn13: isbn, file: "f\(i).jpg")
            ids.append(id)
            if i < 11 {
                record.record(ScanEvent(i % 2 == 0 ? .added : .alreadyOwned, file: "f\(i).jpg", captureTime: time,
                                        isbn13: isbn, title: "Book \(i)"), scanId: id)
            }
        }
        #expect(record.recent.count == 10)
        #expect(record.recent.first?.isbn13 == "9780000000011")
        #expect(record.recent.first?.state == .adding)
        #expect(record.recent.first?.state.label == "Adding…")
        #expect(record.recent[1].state == .added)
        #expect(record.recent[1].title == "Book 10")
        #expect(record.recent[2].state.label == "Already owned")
        #expect(record.recent.last?.isbn13 == "9780000000002")
        #expect(record.badge == 6)
        #expect(record.totals.alreadyOwned == 5)
    }

    @Test func countsTotalsAndUnreadableFiles() {
        var record = SessionRecord()
        record.countFrame()
        record.countFrame()
        record.countCodes(3)
        record.record(ScanEvent(.rejected, file: "a.jpg", captureTime: time, code: "9780306406158", symbology: "EAN-13", reason: "check digit should be 7, not 8"))
        record.record(ScanEvent(.debounced, file: "a.jpg", captureTime: time, isbn13: "9780306406157"))
        record.record(ScanEvent(.unreadable, file: "b.jpg", captureTime: time, reason: "b.jpg: empty file (0 bytes)"))
        let id = record.beginScan(isbn13: "9780306406157", file: "a.jpg")
        record.record(ScanEvent(.queued, file: "a.jpg", captureTime: time, isbn13: "9780306406157", source: "googleBooks"), scanId: id)
        let t = record.totals
        #expect([t.frames, t.codes, t.rejected, t.debounced, t.unreadable, t.queued, t.added] as [Int] == [2, 3, 1, 1, 1, 1, 0])
        #expect(record.unreadableFiles.map(\.file) == ["b.jpg"])
        #expect(record.recent.first?.state.label == "Queued (googleBooks)")
    }

    @Test func failedScansCarryTheirReason() {
        var record = SessionRecord()
        let id = record.beginScan(isbn13: "9780306406157", file: "a.jpg")
        record.record(ScanEvent(.failed, file: "a.jpg", captureTime: time, isbn13: "9780306406157", reason: "database is locked"), scanId: id)
        #expect(record.recent.first?.state.label == "Failed: database is locked")
        #expect(record.totals.failed == 1)
    }
}
