import BookCodes
import Foundation
import Pipeline
import Testing

@Suite struct OutputTests {
    private let time = Date(timeIntervalSince1970: 1_795_342_530.25)

    @Test func lookupsInFlightCountFromAcceptanceToOutcome() {
        var record = SessionRecord()
        let first = record.beginScan(isbn13: "9780306406157", file: "a.jpg")
        _ = record.beginScan(isbn13: "9781250313188", file: "b.jpg")
        #expect(record.lookupsInFlight == 2)
        record.record(ScanEvent(.queued, file: "a.jpg", captureTime: time, isbn13: "9780306406157"), scanId: first)
        #expect(record.lookupsInFlight == 1)
    }

    @Test func jsonLineHasSchemaAndEventFirstAndOnlyKnownFields() {
        let event = ScanEvent(.added, file: "shelf/a \"1\".jpg", captureTime: time, isbn13: "9780306406157", title: "Café\nLine")
        #expect(JSONLinesOutput.line(for: event).text
            == #"{"schema":1,"event":"added","file":"shelf/a \"1\".jpg","captureTime":"2026-11-22T10:15:30.250Z","isbn13":"9780306406157","title":"Café\nLine"}"#)
    }

    @Test func aBooksPriceAddOnTravelsWithItsEventNotAsTheISBN() throws {
        var event = ScanEvent(.added, file: "a.jpg", captureTime: time, isbn13: "9781250313188")
        event.addOn = try AddOn(validating: "52899")
        // docs/CLI.md: `addon` is an object in every command (as in `decode --json`).
        #expect(JSONLinesOutput.line(for: event).text.hasSuffix(
            #""isbn13":"9781250313188","addon":{"text":"52899","symbology":"EAN-5","price":"US$28.99"}}"#))
    }

    @Test func jsonLinesParseAsJSON() throws {
        let event = ScanEvent(.libraryFull, file: "x.jpg", captureTime: time, isbn13: "9780306406157", title: "T", owned: 50, limit: 50)
        let data = Data(JSONLinesOutput.line(for: event).text.utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["event"] as? String == "libraryFull")
        #expect(object["owned"] as? Int == 50)
        #expect(object["captureTime"] as? String == "2026-11-22T10:15:30.250Z")
    }

    @Test func summaryLineCountsEverything() throws {
        var record = SessionRecord()
        record.countFrame()
        record.record(ScanEvent(.unreadable, file: "bad.jpg", captureTime: time, reason: "bad.jpg: not a JPEG"))
        let summary = SessionSummary(record: record, elapsed: 2, interrupted: true)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(summary.jsonLine.text.utf8)) as? [String: Any])
        #expect(object["event"] as? String == "summary")
        #expect(object["frames"] as? Int == 1)
        #expect(object["unreadable"] as? Int == 1)
        #expect(object["interrupted"] as? Bool == true)
        let files = try #require(object["unreadableFiles"] as? [[String: Any]])
        #expect(files.first?["reason"] as? String == "bad.jpg: not a JPEG")
        // The file was reported on standard error when it came; the summary counts it and
        // does not print its path again (it used to: "bad.jpg: bad.jpg: not a JPEG").
        #expect(summary.humanLines.contains("  Unreadable:         1 (reported on standard error)"))
        #expect(!summary.humanLines.contains { $0.contains("bad.jpg") })
        #expect(object["schema"] as? Int == 1)
        #expect(summary.humanLines.first?.hasPrefix("Interrupted after 1 frame") == true)
    }

    @Test func toastsUseTheSeedsWording() {
        #expect(ScanEvent(.added, file: "", captureTime: time, isbn13: "9780306406157", title: "Dune").toast
            == ("Added to Library", "Dune"))
        #expect(ScanEvent(.libraryFull, file: "", captureTime: time, owned: 50, limit: 50).toast
            == ("Library Full", "50/50 books. Upgrade to Pro"))
        #expect(ScanEvent(.notFound, file: "", captureTime: time).toast == ("Book Not Found", "Try scanning again"))
        #expect(ScanEvent(.queued, file: "", captureTime: time, source: "googleBooks").toast
            == ("Queued", "will retry when googleBooks answers"))
    }

    @Test func humanOutputWritesToastLinesAndTheSummary() throws {
        let pipe = Pipe()
        let output = HumanOutput(live: .none, out: OutputStream(descriptor: pipe.fileHandleForWriting.fileDescriptor),
                                 err: OutputStream(descriptor: pipe.fileHandleForWriting.fileDescriptor))
        var record = SessionRecord()
        output.started(totalFrames: 2)
        let added = ScanEvent(.added, file: "a.jpg", captureTime: time, isbn13: "9780306406157", title: "Dune")
        record.record(added)
        output.emit(added, record: record)
        output.emit(ScanEvent(.debounced, file: "b.jpg", captureTime: time, isbn13: "9780306406157"), record: record)
        output.finished(SessionSummary(record: record, elapsed: 1, interrupted: false))
        try pipe.fileHandleForWriting.close()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.hasPrefix("✓ Added to Library — Dune  [a.jpg]\n"))
        #expect(!text.contains("b.jpg"))  // repeats are counted, not toasted
        #expect(text.contains("Added to Library:   1"))
    }

    @Test func progressBarShowsRateAndETA() {
        #expect(ProgressBar.render(done: 50, total: 200, elapsed: 10, width: 20)
            == "[#####---------------] 50/200 frames  5.0/s  ETA 0:30")
        #expect(ProgressBar.render(done: 0, total: 10, elapsed: 0, width: 4) == "[----] 0/10 frames  0.0/s  ETA --:--")
        // Waiting on the network: the line says so instead of standing at 0.0/s.
        #expect(ProgressBar.render(done: 0, total: 10, elapsed: 5, lookingUp: 3, width: 4)
                == "[----] 0/10 frames  0.0/s  3 looking up  ETA --:--")
        #expect(ProgressBar.clock(3725) == "1:02:05")
    }

    @Test func panelListsRecentScans() {
        var record = SessionRecord()
        let id = record.beginScan(isbn13: "9780306406157", file: "a.jpg")
        record.record(ScanEvent(.added, file: "a.jpg", captureTime: time, isbn13: "9780306406157", title: "Dune"), scanId: id)
        _ = record.beginScan(isbn13: "9781250313188", file: "b.jpg")
        let lines = RecentPanel.render(record: record, title: "watch frames/")
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("watch frames/ — 1 added"))
        #expect(lines[1].contains("Adding…") && lines[1].contains("9781250313188"))
        #expect(lines[2].contains("Added") && lines[2].contains("Dune"))
    }
}
