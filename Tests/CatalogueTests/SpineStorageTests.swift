import BookMetadata
import Catalogue
import Foundation
import Testing

/// The "v2-spines" tables: the reply cache and the settled readings / review queue.
@Suite struct SpineStorageTests {
    @Test func repliesAndRecordsRoundTripAndReviewsListOnlyPending() throws {
        let temp = try TemporaryCatalogue()
        let catalogue = temp.catalogue
        #expect(try catalogue.spineReply(photoHash: "h1", reader: "openai|m") == nil)
        let reply = SpineReplyRecord(photoHash: "h1", reader: "openai|m", file: "a.jpg", readings: Data("[]".utf8),
                                     inputTokens: 10, outputTokens: 3, truncated: true)
        try catalogue.saveSpineReply(reply)
        let stored = try #require(try catalogue.spineReply(photoHash: "h1", reader: "openai|m"))
        #expect(stored.inputTokens == 10 && stored.outputTokens == 3 && stored.truncated && stored.file == "a.jpg")
        #expect(try catalogue.spineReply(photoHash: "h1", reader: "gemini|m") == nil)

        func record(_ index: Int, _ status: SpineRecord.Status) -> SpineRecord {
            SpineRecord(photoHash: "h1", reader: "openai|m", index: index, file: "a.jpg", text: "DUNE \(index)", decision: "medium",
                        distance: 0.2, workKey: "dune_frankherbert", isbn13: "9780441172719", title: "Dune", authors: ["Frank Herbert"],
                        status: status, reason: nil)
        }
        let first = try catalogue.saveSpineRecord(record(0, .review))
        try catalogue.saveSpineRecord(record(1, .unmatched))
        // Saving the same (photo, reader, index) again replaces, never duplicates.
        try catalogue.saveSpineRecord(record(1, .review))
        #expect(try catalogue.spineRecords(photoHash: "h1", reader: "openai|m").count == 2)
        #expect(try catalogue.spineReviews().map(\.index) == [0, 1])
        try catalogue.setSpineStatus(id: try #require(first.id), .rejected)
        #expect(try catalogue.spineReviews().map(\.index) == [1])
        #expect(try catalogue.spineRecords(photoHash: "h1", reader: "openai|m")[0]?.status == .rejected)
        #expect(try catalogue.spineReviews().first?.authors == ["Frank Herbert"])
    }

    /// A box damaged in the file ("v4-spine-boxes") is named and read as none: the entry still
    /// waits for review (its page shows the whole photo), nothing else about it is lost.
    @Test func aDamagedBoxIsNamedAndTheRecordKeptWithoutIt() throws {
        let temp = try TemporaryCatalogue(onFile: true)
        let box = try #require(SpineBox(width: 100, height: 50, x0: 10, y0: 5, x1: 20, y1: 45, direction: .down))
        for (index, text) in ["DUNE", "EMMA"].enumerated() {
            try temp.catalogue.saveSpineRecord(SpineRecord(
                photoHash: "h1", reader: "tesseract", index: index, file: "a.jpg", text: text, decision: "medium", distance: 0.2,
                workKey: nil, isbn13: nil, title: text, authors: [], status: .review, reason: nil, box: box))
        }
        try temp.execute(#"UPDATE spineReadings SET box = '{"corners":[[1,2]],"height":50,"width":100}' WHERE text = 'DUNE'"#)
        let waiting = try temp.catalogue.spineReviews()
        #expect(waiting.map(\.text) == ["DUNE", "EMMA"] && waiting.map(\.box) == [nil, box])
        #expect(temp.catalogue.damage.found.contains { $0.table == "spineReadings" && $0.column == "box" && !$0.rowSkipped && $0.problem == "is not a spine box" })
    }
}
