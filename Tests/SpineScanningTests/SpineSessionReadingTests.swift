import Catalogue
import Foundation
import SpineMatching
import SpineScanning
import Synchronization
import Testing
import Vision

/// What a spine session shows and stores for a spine read several ways: the reading that
/// decided, not the main text an OCR pass happened to rank first.
@Suite struct SpineSessionReadingTests {
    /// Hands back fixed readings for any photo: the OCR/vision side is not under test here.
    struct FixedReader: SpineReader {
        let readings: [SpineReading]
        var identity: String { "fixed-test-reader" }
        func readSpines(in photo: ShelfPhoto) async throws -> ShelfReading { ShelfReading(readings: readings) }
    }

    static let works = WorkIndex([
        MatchCandidate(workKey: "gatsby", title: "The Great Gatsby", authors: ["F. Scott Fitzgerald"], isbn13: "9780743273565", source: "test"),
        MatchCandidate(workKey: "emma", title: "Emma", authors: ["Jane Austen"], isbn13: "9780141439587", source: "test"),
        MatchCandidate(workKey: "dune", title: "Dune", authors: ["Frank Herbert"], isbn13: "9780441172719", source: "test"),
    ])

    func run(_ readings: [SpineReading], dryRun: Bool) async throws -> (events: [SpineEvent], catalogue: Catalogue) {
        let photo = FileManager.default.temporaryDirectory.appendingPathComponent("spine-session-\(UUID().uuidString).jpg")
        try Data("not really a photo: the fixed reader never looks".utf8).write(to: photo)
        defer { try? FileManager.default.removeItem(at: photo) }
        let catalogue = try Catalogue.inMemory()
        let session = SpineSession(catalogue: catalogue, reader: FixedReader(readings: readings), sources: [Self.works], dryRun: dryRun)
        var events: [SpineEvent] = []
        _ = await session.run(files: [photo.path]) { events.append($0) }
        return (events, catalogue)
    }

    @Test func anUnsureReadingThatMatchedNothingIsCountedNotShown() async throws {
        let photo = FileManager.default.temporaryDirectory.appendingPathComponent("spine-session-\(UUID().uuidString).jpg")
        try Data("not really a photo".utf8).write(to: photo)
        defer { try? FileManager.default.removeItem(at: photo) }
        let readings = [SpineReading(text: "ameneneaom", confidence: 0.2),        // unsure texture: counted only
                        SpineReading(text: "qwzx vvrt", confidence: 0.9),          // sure, unmatched: shown
                        SpineReading(text: "THE GREAT GATSBY", confidence: 0.2)]   // unsure, close to a title: review
        let session = SpineSession(catalogue: try Catalogue.inMemory(), reader: FixedReader(readings: readings),
                                   sources: [Self.works], dryRun: true)
        var events: [SpineEvent] = []
        let summary = await session.run(files: [photo.path]) { events.append($0) }
        #expect(events.map(\.reading) == ["qwzx vvrt", "THE GREAT GATSBY"])
        #expect(events.map(\.kind) == [.unmatched, .review])
        #expect(summary.unsureUnmatched == 1 && summary.readings == 3)
    }

    @Test func theAlternativeThatMatchedIsTheReadingShown() async throws {
        let spine = SpineReading(text: "plomanem sHEE", confidence: 0.7, alternatives: ["iii rnrn", "THE GREAT GATSBY FITZGERALD"])
        let (events, _) = try await run([spine], dryRun: true)
        let event = try #require(events.first)
        #expect(event.kind == .added)
        #expect(event.workKey == "gatsby")
        #expect(event.reading == "THE GREAT GATSBY FITZGERALD")
    }

    @Test func aReviewEntryKeepsTheReadingThatDecided() async throws {
        // Two readings strongly naming different books: review, stored with the reading that led.
        let spine = SpineReading(text: "zzqx", confidence: 0.9, alternatives: ["DUNE FRANK HERBERT", "EMMA JANE AUSTEN"])
        let (events, catalogue) = try await run([spine], dryRun: false)
        let event = try #require(events.first)
        #expect(event.kind == .review)
        let stored = try #require(try catalogue.spineReviews().first)
        #expect(stored.text == event.reading)
        #expect(stored.text != "zzqx")
    }

    @Test func aSpineWithOneReadingIsShownAsRead() async throws {
        let (events, _) = try await run([SpineReading(text: "THE GREAT GATSBY  F. SCOTT FITZGERALD", confidence: 0.9)], dryRun: true)
        #expect(events.first?.reading == "THE GREAT GATSBY  F. SCOTT FITZGERALD")
        #expect(events.first?.kind == .added)
    }

    /// A source that only answers searches: shelf context asks it for an author's books by an
    /// author-only search (the default `books(by:)`), as Google Books and Open Library are asked.
    struct SearchOnly: CandidateSource {
        let index: WorkIndex
        func candidates(for query: CandidateQuery, limit: Int) async throws -> [PreparedCandidate] {
            index.candidates(for: query, limit: limit)
        }
    }

    @Test func aGarbledTitleBesideItsAuthorsBookWaitsForReviewAsThatAuthorsBook() async throws {
        let collins = WorkIndex([
            MatchCandidate(workKey: "fire", title: "Catching Fire (The Hunger Games, #2)", authors: ["Suzanne Collins"], isbn13: "9780439023498", source: "test"),
            MatchCandidate(workKey: "mockingjay", title: "Mockingjay (The Hunger Games, #3)", authors: ["Suzanne Collins"], isbn13: "9780439023511", source: "test"),
            MatchCandidate(workKey: "hunger", title: "The Hunger Games (The Hunger Games, #1)", authors: ["Suzanne Collins"], isbn13: "9780439023481", source: "test"),
            MatchCandidate(workKey: "moonstone", title: "The Moonstone", authors: ["Wilkie Collins"], isbn13: "9780140434088", source: "test"),
        ])
        let readings = [SpineReading(text: "COLLINS CATCHING FIRE", position: 0, confidence: 0.81),
                        SpineReading(text: "DEHINGUAY", position: 1, confidence: 0.3)]
        for source in [collins, SearchOnly(index: collins)] as [any CandidateSource] {
            let photo = FileManager.default.temporaryDirectory.appendingPathComponent("spine-session-\(UUID().uuidString).jpg")
            try Data("not really a photo".utf8).write(to: photo)
            defer { try? FileManager.default.removeItem(at: photo) }
            let catalogue = try Catalogue.inMemory()
            let session = SpineSession(catalogue: catalogue, reader: FixedReader(readings: readings), sources: [source], dryRun: true)
            var events: [SpineEvent] = []
            _ = await session.run(files: [photo.path]) { events.append($0) }
            #expect(events.map(\.kind) == [.added, .review])
            #expect(events.last?.workKey == "mockingjay")
            #expect(events.last?.reason?.contains("Suzanne Collins") == true)
            #expect(events.last?.decision == .medium)
        }
    }

    /// The photos a reader was asked for, in order.
    final class AskedPhotos: Sendable {
        private let names = Mutex<[String]>([])
        func add(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    /// Each photo's readings by its file name's first part; notes each photo as it is asked for.
    struct RecordingReader: SpineReader {
        let asked: AskedPhotos
        var identity: String { "recording-test-reader" }
        func readSpines(in photo: ShelfPhoto) async throws -> ShelfReading {
            let name = URL(fileURLWithPath: photo.path).lastPathComponent
            asked.add(name)
            return ShelfReading(readings: [SpineReading(text: name.hasPrefix("one") ? "THE GREAT GATSBY FITZGERALD" : "DUNE FRANK HERBERT", confidence: 0.9)])
        }
    }

    /// A slow source (a paced one): asked about the first photo's spine, it answers once the
    /// reader has been asked for the second photo, or after 20 s; notes which it was.
    final class WaitingSource: CandidateSource, Sendable {
        let index: WorkIndex
        let asked: AskedPhotos
        let sawSecondPhoto = Mutex<Bool?>(nil)
        init(index: WorkIndex, asked: AskedPhotos) {
            self.index = index
            self.asked = asked
        }
        func candidates(for query: CandidateQuery, limit: Int) async throws -> [PreparedCandidate] {
            if TextNormalizer.fold(query.text).contains("gatsby") {
                var waited = 0
                while !asked.all.contains(where: { $0.hasPrefix("two") }), waited < 2000 {
                    try await Task.sleep(for: .milliseconds(10))
                    waited += 1
                }
                let seen = asked.all.contains { $0.hasPrefix("two") }
                sawSecondPhoto.withLock { $0 = seen }
            }
            return index.candidates(for: query, limit: limit)
        }
    }

    @Test func theNextPhotoIsReadWhileThisOnesSpinesAreLookedUp() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spine-ahead-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = ["one.jpg", "two.jpg"].map { folder.appendingPathComponent($0) }
        for (number, file) in files.enumerated() { try Data("photo \(number)".utf8).write(to: file) }
        let asked = AskedPhotos()
        let source = WaitingSource(index: Self.works, asked: asked)
        let session = SpineSession(catalogue: try Catalogue.inMemory(), reader: RecordingReader(asked: asked), sources: [source], dryRun: true)
        var events: [SpineEvent] = []
        let summary = await session.run(files: files.map(\.path)) { events.append($0) }
        // The second photo was being read while the first one's spine waited for its source.
        #expect(source.sawSecondPhoto.withLock { $0 } == true)
        // Results still come photo by photo, in order, each photo read once.
        #expect(events.map(\.workKey) == ["gatsby", "dune"])
        #expect(events.map(\.kind) == [.added, .added])
        #expect(asked.all == ["one.jpg", "two.jpg"])
        #expect(summary.photos == 2)
    }
}
