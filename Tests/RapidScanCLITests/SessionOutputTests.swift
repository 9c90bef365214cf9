import BookCodes
import Foundation
import Pipeline
@testable import RapidScanCLI
import Testing

/// What `scan` and `watch` print: the library emits typed events; these are the words and
/// JSON the executable makes of them.
@Suite struct SessionOutputTests {
    private let time = Date(timeIntervalSince1970: 1_795_342_530.25)
    private let isbn = try! ISBN13(validating: "9780306406157")

    private func event(_ file: String, _ outcome: ScanEvent.Outcome) -> ScanEvent {
        ScanEvent(file: file, captureTime: time, outcome: outcome)
    }

    private func event(_ outcome: ScanEvent.Outcome) -> ScanEvent { event("", outcome) }

    @Test func jsonLineHasSchemaAndEventFirstAndOnlyKnownFields() {
        let event = event("shelf/a \"1\".jpg", .added(ScannedBook(isbn13: isbn, title: "Café\nLine")))
        #expect(JSONLinesOutput.line(for: event).text
            == #"{"schema":1,"event":"added","file":"shelf/a \"1\".jpg","captureTime":"2026-11-22T10:15:30.250Z","isbn13":"9780306406157","title":"Café\nLine"}"#)
    }

    @Test func aBooksPriceAddOnTravelsWithItsEventNotAsTheISBN() throws {
        let book = ScannedBook(isbn13: try ISBN13(validating: "9781250313188"), addOn: try AddOn(validating: "52899"))
        // docs/CLI.md: `addon` is an object in every command (as in `decode --json`).
        #expect(JSONLinesOutput.line(for: event("a.jpg", .added(book))).text.hasSuffix(
            #""isbn13":"9781250313188","addon":{"text":"52899","symbology":"EAN-5","price":"US$28.99"}}"#))
    }

    @Test func jsonLinesParseAsJSON() throws {
        let event = event("x.jpg", .libraryFull(ScannedBook(isbn13: isbn, title: "T"), owned: 50, limit: 50))
        let data = Data(JSONLinesOutput.line(for: event).text.utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["event"] as? String == "libraryFull")
        #expect(object["owned"] as? Int == 50)
        #expect(object["captureTime"] as? String == "2026-11-22T10:15:30.250Z")
    }

    /// Each outcome's fields, in the order docs/CLI.md lists them (byte-compatible with schema 1).
    @Test func everyOutcomeWritesItsFieldsInOrder() throws {
        let gtin = try GTIN(validating: "4006381333931", as: .ean13)
        let book = ScannedBook(isbn13: isbn)
        let head = #"{"schema":1,"#
        let lines: [(ScanEvent.Outcome, String)] = [
            (.queued(book, waitingFor: .offline, reason: "not in the local cache (offline)"),
             #""event":"queued","file":"a.jpg","captureTime":"2026-11-22T10:15:30.250Z","isbn13":"9780306406157","source":"offline","reason":"not in the local cache (offline)"}"#),
            (.nonBook(gtin),
             #""event":"nonBook","file":"a.jpg","captureTime":"2026-11-22T10:15:30.250Z","symbology":"EAN-13","code":"4006381333931"}"#),
            (.debounced(.product(gtin)),
             #""event":"debounced","file":"a.jpg","captureTime":"2026-11-22T10:15:30.250Z","symbology":"EAN-13","code":"4006381333931"}"#),
            (.debounced(.book(isbn, symbology: .ean13, text: isbn.digits)),
             #""event":"debounced","file":"a.jpg","captureTime":"2026-11-22T10:15:30.250Z","isbn13":"9780306406157"}"#),
            (.rejected(symbology: .ean13, text: "9780306406158", reason: "check digit should be 7, not 8"),
             #""event":"rejected","file":"a.jpg","captureTime":"2026-11-22T10:15:30.250Z","symbology":"EAN-13","code":"9780306406158","reason":"check digit should be 7, not 8"}"#),
            (.notFound(book), #""event":"notFound","file":"a.jpg","captureTime":"2026-11-22T10:15:30.250Z","isbn13":"9780306406157"}"#),
            (.failed(book, reason: "disk I/O error"),
             #""event":"failed","file":"a.jpg","captureTime":"2026-11-22T10:15:30.250Z","isbn13":"9780306406157","reason":"disk I/O error"}"#),
            (.noCode, #""event":"noCode","file":"a.jpg","captureTime":"2026-11-22T10:15:30.250Z"}"#),
            (.dropped, #""event":"dropped","file":"a.jpg","captureTime":"2026-11-22T10:15:30.250Z"}"#),
        ]
        for (outcome, expected) in lines {
            #expect(JSONLinesOutput.line(for: event("a.jpg", outcome)).text == head + expected)
        }
    }

    @Test func summaryLineCountsEverything() throws {
        var record = SessionRecord()
        record.countFrame()
        record.record(event("bad.jpg", .unreadable(reason: "bad.jpg: not a JPEG")))
        let summary = SessionSummary(record: record, elapsed: 2, interrupted: true)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(JSONLinesOutput.line(for: summary).text.utf8)) as? [String: Any])
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

    /// Codes the reader refused because the pixels contradict their digits are said in the
    /// summary, in words and JSON, as unconfirmed ones are.
    @Test func summaryCountsContradictedReads() throws {
        var record = SessionRecord()
        record.countFrame()
        record.countContradicted(2)
        let summary = SessionSummary(record: record, elapsed: 1, interrupted: false)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(JSONLinesOutput.line(for: summary).text.utf8)) as? [String: Any])
        #expect(object["contradicted"] as? Int == 2)
        #expect(summary.humanLines.contains { $0.contains("2 contradicted by the pixels, not reported") })
    }

    /// Photos where a barcode was seen and not read are listed by name to take again, apart
    /// from photos with no barcode; the human list stops at 20, the JSON list does not.
    @Test func summaryListsThePhotosToReshootApartFromThoseWithoutABarcode() throws {
        var record = SessionRecord()
        for index in 0..<22 {
            record.countFrame()
            record.record(event("blurred-\(index).jpg", .unreadCode))
        }
        record.countFrame()
        record.record(event("wall.jpg", .noCode))
        let summary = SessionSummary(record: record, elapsed: 1, interrupted: false)
        let lines = summary.humanLines
        let start = try #require(lines.firstIndex(of: "  Could not read — re-shoot: 22"), "\(lines)")
        #expect(Array(lines[(start + 1)...(start + 20)]) == (0..<20).map { "    blurred-\($0).jpg" })
        #expect(lines[start + 21] == "    … and 2 more (`--json` lists them all)")
        #expect(lines.contains("  1 frame without a barcode"), "\(lines)")
        #expect(!lines.contains { $0.contains("wall.jpg") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(JSONLinesOutput.line(for: summary).text.utf8)) as? [String: Any])
        #expect(object["unreadCode"] as? Int == 22 && object["noCode"] as? Int == 1)
        #expect((object["unreadCodeFiles"] as? [String])?.count == 22)
        #expect(JSONLinesOutput.line(for: event("a.jpg", .unreadCode)).text
            == #"{"schema":1,"event":"unreadCode","file":"a.jpg","captureTime":"2026-11-22T10:15:30.250Z"}"#)
    }

    @Test func toastsUseTheSeedsWording() {
        let book = ScannedBook(isbn13: isbn)
        #expect(event(.added(ScannedBook(isbn13: isbn, title: "Dune"))).toast == ("Added to Library", "Dune"))
        let full = event(.libraryFull(book, owned: 50, limit: 50)).toast
        #expect(full.title == "Library Full" && full.subtitle.hasPrefix("50/50 books: `rapidscan account --pro` lifts the limit"))
        #expect(full == ("Library Full", "50/50 books: `rapidscan account --pro` lifts the limit (ISBN 978-0-306-40615-7 not added)"))
        // A code read and confirmed that no source knows: how to add it by hand, not "scan again".
        let notFound = event(.notFound(book)).toast
        #expect(notFound == ("Book Not Found",
                             "no source knows ISBN 978-0-306-40615-7; `rapidscan library add 9780306406157 --title TITLE --author AUTHOR` adds it by hand"))
        // Queued: the source by its name; the reason and the retry are said once, in a note.
        #expect(event(.queued(book, waitingFor: .source("googleBooks"), reason: "timeout")).toast
            == ("Queued", "waiting for Google Books (ISBN 978-0-306-40615-7)"))
        #expect(event(.queued(book, waitingFor: .offline, reason: "offline")).toast == ("Queued", "offline (ISBN 978-0-306-40615-7)"))
    }

    @Test func theQueuedReasonIsSaidOnceInPlainWords() throws {
        let pipe = Pipe()
        let output = HumanOutput(live: .none, out: StandardStream(descriptor: pipe.fileHandleForWriting.fileDescriptor),
                                 err: StandardStream(descriptor: pipe.fileHandleForWriting.fileDescriptor), retryEvery: 60)
        var record = SessionRecord()
        let reason = "googleBooks: network error: Could not resolve host: www.googleapis.com"
        for file in ["a.jpg", "b.jpg"] {
            let queued = event(file, .queued(ScannedBook(isbn13: isbn), waitingFor: .source("googleBooks"), reason: reason))
            record.record(queued)
            output.emit(queued, record: record)
        }
        try pipe.fileHandleForWriting.close()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let note = "Queued: Google Books did not answer (network error: Could not resolve host: www.googleapis.com). "
            + "This watch tries the queued books again every 1 min while it runs; after it, `rapidscan pending retry` adds them."
        #expect(text.components(separatedBy: note).count == 2, "said once: \(text)")
        #expect(!text.contains("googleBooks"), "\(text)")
        #expect(text.components(separatedBy: "Queued — waiting for Google Books").count == 3, "\(text)")
    }

    @Test func humanOutputWritesToastLinesAndTheSummary() throws {
        let pipe = Pipe()
        let output = HumanOutput(live: .none, out: StandardStream(descriptor: pipe.fileHandleForWriting.fileDescriptor),
                                 err: StandardStream(descriptor: pipe.fileHandleForWriting.fileDescriptor))
        var record = SessionRecord()
        output.started(totalFrames: 2)
        let added = event("a.jpg", .added(ScannedBook(isbn13: isbn, title: "Dune")))
        record.record(added)
        output.emit(added, record: record)
        output.emit(event("b.jpg", .debounced(.book(isbn, symbology: .ean13, text: isbn.digits))), record: record)
        output.finished(SessionSummary(record: record, elapsed: 1, interrupted: false))
        try pipe.fileHandleForWriting.close()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.hasPrefix("✓ Added to Library — Dune  [a.jpg]\n"))
        #expect(!text.contains("b.jpg"))  // repeats are counted, not toasted
        #expect(text.contains("Added to Library:   1"))
    }

    /// The session's notes, worded here (the library never writes to stderr itself).
    @Test func notesAreWordedByTheExecutable() {
        #expect(SessionNotes.text(for: .watching(directory: "/in"), quiet: false) == "Watching /in for frames (Ctrl-C to stop)")
        #expect(SessionNotes.text(for: .watching(directory: "/in"), quiet: true) == nil)
        #expect(SessionNotes.text(for: .keptFrame(file: "f.jpg", outcomes: [.notFound, .added, .notFound]), quiet: true)
            == "rapidscan: kept f.jpg: added, notFound (not settled in the library)")
        #expect(SessionNotes.text(for: .directoryGone(directory: "/in"), quiet: false) == "rapidscan: /in was removed or moved; stopping")
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

    @Test func panelListsRecentScans() throws {
        var record = SessionRecord()
        let id = record.beginScan(isbn13: isbn, file: "a.jpg")
        record.record(event("a.jpg", .added(ScannedBook(isbn13: isbn, title: "Dune"))), scanId: id)
        _ = record.beginScan(isbn13: try ISBN13(validating: "9781250313188"), file: "b.jpg")
        let lines = RecentPanel.render(record: record, title: "watch frames/")
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("watch frames/ — 1 added"))
        #expect(lines[1].contains("Adding…") && lines[1].contains("978-1-250-31318-8"))
        #expect(lines[2].contains("Added") && lines[2].contains("Dune") && lines[2].contains("978-0-306-40615-7"))
    }
}
