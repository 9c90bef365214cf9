import BookMetadata
import Catalogue
import Foundation
import Intake
import TestSupport
@testable import SpineMatching
@testable import SpineScanning
import Testing
import Vision

/// A reading that ran neighbouring spines together holds several titles (`SpineMatch.alsoHeld`,
/// issue 35: `VRIGHT crow KIZZY ANN STAMPS` lost *Kizzy Ann Stamps*): the session gives each
/// title found its own event, record and review entry, in the reading's box, never one book twice.
@Suite struct HeldTitlesTests {
    static func book(_ key: String, _ title: String, _ author: String, _ isbn: String) -> MatchCandidate {
        MatchCandidate(workKey: key, title: title, authors: [author], isbn13: isbn, source: "test")
    }

    static let works = WorkIndex((0..<30).map { book("house\($0)", "The House on Street \($0)", "Builder \($0)", "9780000000002") } + [
        book("spirits", "The House of the Spirits", "Isabel Allende", "9780553383805"),
        book("solitude", "One Hundred Years of Solitude", "Gabriel García Márquez", "9780060883287"),
        book("data", "Big Data", "Viktor Mayer-Schonberger", "9780544227750"),
    ])

    static let box = SpineBox(width: 800, height: 600, x0: 100, y0: 40, x1: 180, y1: 560, direction: .down)

    func run(_ readings: [SpineReading], dryRun: Bool, catalogue: Catalogue, photo: URL) async -> [SpineEvent] {
        let session = SpineSession(catalogue: catalogue, reader: SpineSessionReadingTests.FixedReader(readings: readings),
                                   sources: [Self.works], dryRun: dryRun)
        var events: [SpineEvent] = []
        _ = await session.run(files: [photo.path]) { events.append($0) }
        return events
    }

    func photo() throws -> URL {
        let photo = FileManager.default.temporaryDirectory.appendingPathComponent("held-titles-\(UUID().uuidString).jpg")
        try Data("not really a photo: the fixed reader never looks".utf8).write(to: photo)
        return photo
    }

    @Test func eachTitleOfAReadingIsItsOwnBook() async throws {
        let photo = try photo()
        defer { try? FileManager.default.removeItem(at: photo) }
        let reading = SpineReading(text: "THE HOUSE OF THE SPIRITS ALLENDE ONE HUNDRED YEARS OF SOLITUDE MARQUEZ", confidence: 0.9, box: Self.box)
        let events = await run([reading], dryRun: true, catalogue: try Catalogue.inMemory(), photo: photo)
        #expect(Set(events.compactMap(\.workKey)) == ["spirits", "solitude"])
        #expect(events.map(\.kind) == [.added, .added])
        // Both in the reading's place and box: what the user checks is that spine.
        #expect(events.allSatisfy { $0.position == 0 && $0.box == Self.box && $0.reading == reading.text })
    }

    @Test func aSecondTitleForReviewIsItsOwnEntryAndARerunAddsNothingTwice() async throws {
        let photo = try photo()
        defer { try? FileManager.default.removeItem(at: photo) }
        let catalogue = try Catalogue.inMemory()
        // "Big Data" too short and common to stand without its author: review, in its own entry.
        let readings = [SpineReading(text: "THE HOUSE OF THE SPIRITS ALLENDE BIG DATA", confidence: 0.9, box: Self.box)]
        let first = await run(readings, dryRun: false, catalogue: catalogue, photo: photo)
        #expect(first.compactMap(\.workKey) == ["spirits", "data"])
        let entries = try catalogue.spineReviews()
        let data = try #require(entries.first { $0.workKey == "data" })
        #expect(data.readingIndex == 0 && data.index != 0)
        #expect(data.box == Self.box)
        // Run again: both settled from their records, no entry twice.
        let again = await run(readings, dryRun: false, catalogue: catalogue, photo: photo)
        #expect(again.compactMap(\.workKey) == ["spirits", "data"])
        #expect(try catalogue.spineReviews().count == entries.count)
        #expect(try catalogue.spineReviews().filter { $0.workKey == "data" }.count == 1)
    }

    /// The reading's own title added and the further title refused (the free plan's 50 owned):
    /// once there is room, a re-run adds the refused title and nothing twice.
    @Test func aFurtherTitleRefusedForAFullLibraryIsAddedOnceThereIsRoom() async throws {
        let photo = try photo()
        defer { try? FileManager.default.removeItem(at: photo) }
        let catalogue = try Catalogue.inMemory()
        for n in 0..<(User.freeOwnedLimit - 1) {
            let code = generatedISBN(500 + n, prefix: "978")
            _ = try catalogue.record(EditionMetadata(isbn13: code.digits, title: "Owned Book \(n)", authors: ["Owner \(n)"],
                                                     apiSource: "googleBooks"), for: code)
            let work = try #require(try catalogue.work(forISBN: code))
            #expect(Intake(catalogue: catalogue).own(code, work: work, source: "cache", from: .typed).kind == .added)
        }
        // Both books in the cache, as a source's answer leaves them: what the intake adds from.
        for (code, title, author) in [("9780553383805", "The House of the Spirits", "Isabel Allende"),
                                      ("9780060883287", "One Hundred Years of Solitude", "Gabriel García Márquez")] {
            _ = try catalogue.record(EditionMetadata(isbn13: code, title: title, authors: [author], apiSource: "googleBooks"), for: isbn(code))
        }
        let readings = [SpineReading(text: "THE HOUSE OF THE SPIRITS ALLENDE ONE HUNDRED YEARS OF SOLITUDE MARQUEZ", confidence: 0.9, box: Self.box)]
        let first = await run(readings, dryRun: false, catalogue: catalogue, photo: photo)
        #expect(first.map(\.kind) == [.added, .libraryFull], "\(first.map(\.kind))")
        #expect(try catalogue.ownedCount() == User.freeOwnedLimit)
        try catalogue.setPro(true)
        let again = await run(readings, dryRun: false, catalogue: catalogue, photo: photo)
        #expect(Set(again.compactMap(\.workKey)) == ["spirits", "solitude"])
        // The title the full library refused is the one added now; the other is owned already.
        #expect(again.last?.workKey == first.last?.workKey && again.first?.workKey == first.first?.workKey)
        #expect(again.map(\.kind) == [.alreadyOwned, .added], "\(again.map(\.kind))")
        #expect(try catalogue.ownedCount() == User.freeOwnedLimit + 1)
    }

    @Test func aBookAnotherReadingOfThePhotoNamesIsNotHeldAgain() {
        func named(_ key: String, _ decision: MatchDecision) -> SpineMatch {
            SpineMatch(reading: SpineReading(text: key), decision: decision, distance: 0.1,
                       best: Self.works.works.first { $0.candidate.workKey == key }?.candidate)
        }
        var both = named("spirits", .strong)
        // Solitude is the photo's other reading's book; data held twice; a title that matched nothing.
        both.alsoHeld = [named("solitude", .strong), named("data", .medium), named("data", .strong), named("house1", .none)]
        let held = SpineSession.heldTitles([0: named("solitude", .strong), 1: both])
        #expect(held.count == 1)
        #expect(held[1]?.mapValues { $0.best?.workKey } == [SpineRecord.index(reading: 1, title: 2): "data"])
        #expect(held[1]?.values.first?.decision == .medium)
    }
}
