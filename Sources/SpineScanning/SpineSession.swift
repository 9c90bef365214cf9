import BookCodes
import BookMetadata
import Catalogue
import Foundation
import Intake
import SpineMatching
import Vision

/// One line of `rapidscan spines` output.
public struct SpineEvent: Sendable, Hashable {
    /// The intake's outcome names: the same `event` as every other door.
    public typealias Kind = IntakeOutcome.Kind

    public var kind: Kind
    public var file: String
    /// The text the reader returned.
    public var reading: String?
    public var position: Int?
    public var decision: MatchDecision?
    public var distance: Double?
    public var isbn13: String?
    public var title: String?
    public var authors: [String]?
    public var workKey: String?
    public var source: String?
    public var reason: String?
    public var error: String?
    /// The reply came from the reply cache (nothing sent).
    public var cached: Bool = false
    public var dryRun: Bool = false
    /// A photo that could not be read or sent, or a review entry naming no usable book (input,
    /// exit 1), not a book the library failed to store.
    public var inputError = false
    /// Library Full: owned books and the plan's limit (as every door reports it).
    public var owned: Int?
    public var limit: Int?
    /// Where the spine lies in its photo, when the reader said.
    public var box: SpineBox?

    public init(kind: Kind, file: String, reading: String? = nil, position: Int? = nil, decision: MatchDecision? = nil,
                distance: Double? = nil, isbn13: String? = nil, title: String? = nil, authors: [String]? = nil,
                workKey: String? = nil, source: String? = nil, reason: String? = nil, error: String? = nil) {
        self.kind = kind
        self.file = file
        self.reading = reading
        self.position = position
        self.decision = decision
        self.distance = distance
        self.isbn13 = isbn13
        self.title = title
        self.authors = authors
        self.workKey = workKey
        self.source = source
        self.reason = reason
        self.error = error
    }
}

public struct SpineSummary: Sendable, Hashable {
    public var photos = 0
    /// Photos sent to the reader in this run (not answered from the reply cache).
    public var sent = 0
    public var fromCache = 0
    public var readings = 0
    public var counts: [SpineEvent.Kind: Int] = [:]
    /// Photos that could not be read or sent (reported as `failed`, counted apart from books).
    public var photoFailures = 0
    public var usage = TokenUsage()
    /// Photos whose reply was cut by the token limit.
    public var truncated = 0
    /// Entries past a photo's `ReplyLimits.maxReadings`, and readings cut to its length (not
    /// counted again when the reply comes from the cache, which holds the bounded readings).
    public var droppedReadings = 0
    public var shortenedReadings = 0
    /// Spines the reader saw but could not read (reported, not counted as unmatched).
    public var unreadableSpines = 0
    /// Readings the reader was unsure of (OCR's unsure words) that matched nothing: texture
    /// and lettering read wrong, counted but not reported one by one.
    public var unsureUnmatched = 0
    /// Photos not sent because the run stopped (exhausted quota, missing key): still queued.
    public var notSent: [String] = []
    public var stopReason: String?
    public var interrupted = false

    public func count(_ kind: SpineEvent.Kind) -> Int { counts[kind, default: 0] }

    /// The outcomes that happened at least once (what the exit policy reads).
    public var kinds: Set<SpineEvent.Kind> { Set(counts.filter { $0.value > 0 }.keys) }
}

/// Photos → reader (or the reply cache) → matcher → library. Strong matches are added as
/// owned, medium ones wait in the review table, none are reported; every settled reading is
/// recorded so a re-run sends nothing and adds nothing twice.
public final class SpineSession: Sendable {
    public let catalogue: any CatalogueStore
    public let reader: any SpineReader
    public let matcher: SpineMatcher
    public let sources: [any CandidateSource]
    public let dryRun: Bool
    public let listId: String?
    /// The one way into the library: a strong match is added through it.
    public let intake: Intake
    /// Only the local cache is searched: a reading that matches nothing is reported but not
    /// recorded, so a later run with the network searches it again.
    public let offline: Bool

    public init(catalogue: any CatalogueStore, reader: any SpineReader, matcher: SpineMatcher = SpineMatcher(),
                sources: [any CandidateSource], dryRun: Bool = false, listId: String? = nil, offline: Bool = false,
                intake: Intake? = nil) {
        self.intake = intake ?? Intake(catalogue: catalogue, settings: Intake.Settings(listId: listId))
        self.offline = offline
        self.catalogue = catalogue
        self.reader = reader
        self.matcher = matcher
        self.sources = sources
        self.dryRun = dryRun
        self.listId = listId
    }

    static let unreadable = "unreadable"

    /// What asking for one photo's readings gave.
    enum Fetched {
        case unreadableFile
        case reply(ShelfReading, hash: String, cached: Bool)
        case failure(any Error, hash: String)
        /// Not sent: the run stopped (quota, key) before this photo.
        case notSent(hash: String)
    }

    /// The photo's readings from the reply cache, else from the reader (when `send`).
    func fetch(_ file: String, send: Bool) async -> Fetched {
        guard let data = FileManager.default.contents(atPath: file) else { return .unreadableFile }
        let hash = ContentHash.hex(data)
        do {
            if let reply = try catalogue.spineReply(photoHash: hash, reader: reader.identity),
               let readings = try? JSONDecoder().decode([SpineReading].self, from: reply.readings) {
                return .reply(ShelfReading(readings: readings, usage: TokenUsage(), truncated: reply.truncated), hash: hash, cached: true)
            }
            guard send else { return .notSent(hash: hash) }
            let shelf = try await reader.readSpines(in: ShelfPhoto(path: file, data: data))
            try catalogue.saveSpineReply(SpineReplyRecord(
                photoHash: hash, reader: reader.identity, file: file, readings: try JSONEncoder().encode(shelf.readings),
                inputTokens: shelf.usage.input, outputTokens: shelf.usage.output, truncated: shelf.truncated))
            return .reply(shelf, hash: hash, cached: false)
        } catch {
            return .failure(error, hash: hash)
        }
    }

    /// - Parameters:
    ///   - photosAtOnce: photos sent to the reader together (a window; results still settle in order).
    ///   - onPhoto: (number, count, file) before each photo, for a progress display.
    public func run(files: [String], photosAtOnce: Int = 1, isCancelled: @Sendable () -> Bool = { false },
                    onPhoto: (Int, Int, String) -> Void = { _, _, _ in }, emit: (SpineEvent) -> Void) async -> SpineSummary {
        var summary = SpineSummary()
        var stopped: String?
        var start = 0
        let windowSize = max(1, photosAtOnce)
        // The next window, read while this one's readings are matched: the reader's work (local
        // OCR's CPU, a model's reply) overlaps the lookups' waits (a paced source, the network).
        var next: Task<[Fetched?], Never>?
        photos: while start < files.count {
            if isCancelled() { summary.interrupted = true; break }
            let window = Array(files[start..<min(start + windowSize, files.count)])
            start += window.count
            let fetched: [Fetched?]
            if let ahead = next {
                fetched = await ahead.value
                next = nil
            } else {
                fetched = await fetchWindow(window, send: stopped == nil)
            }
            // Only while nothing stops the run: a reader error that stops it (quota, key) sends no further photo.
            let stops = fetched.contains { if case .failure(let error as VisionError, _)? = $0 { error.stopsRun } else { false } }
            if stopped == nil, !stops, start < files.count, !isCancelled() {
                let following = Array(files[start..<min(start + windowSize, files.count)])
                next = Task { await self.fetchWindow(following, send: true) }
            }
            for (file, result) in zip(window, fetched) {
                summary.photos += 1
                func send(_ event: SpineEvent) {
                    if event.reason == Self.unreadable {
                        summary.unreadableSpines += 1
                    } else if event.inputError {
                        summary.photoFailures += 1
                    } else {
                        summary.counts[event.kind, default: 0] += 1
                    }
                    emit(event)
                }
                onPhoto(summary.photos, files.count, file)
                let shelf: ShelfReading, hash: String, cached: Bool
                switch result {
                case .unreadableFile?, nil:
                    var event = SpineEvent(kind: .failed, file: file, error: "\(file): cannot be read")
                    event.inputError = true
                    send(event)
                    continue
                case .notSent?:
                    summary.notSent.append(file)
                    send(SpineEvent(kind: .queued, file: file, reason: "not sent: \(stopped ?? "the run stopped")"))
                    continue
                case .failure(let error, _)?:
                    if isCancelled() {
                        // Interrupted mid-request: not a failure of the photo; the next run sends it.
                        summary.interrupted = true
                        summary.photos -= 1
                        break photos
                    }
                    if let error = error as? VisionError, error.stopsRun {
                        stopped = stopped ?? "\(error)"
                        summary.stopReason = stopped
                        summary.notSent.append(file)
                        send(SpineEvent(kind: .queued, file: file, reason: "\(error)"))
                    } else {
                        var event = SpineEvent(kind: .failed, file: file, error: error is VisionError ? "\(error)"
                                               : error is CatalogueError ? "\(file): \(catalogue.naming("\(error)"))" : "\(file): \(error)")
                        // The library's failure (its reply cache not written) is the database's, not the photo's.
                        event.inputError = !(error is CatalogueError)
                        send(event)
                    }
                    continue
                case .reply(let reading, let photoHash, let fromCache)?:
                    (shelf, hash, cached) = (reading, photoHash, fromCache)
                }
                if cached { summary.fromCache += 1 } else { summary.sent += 1 }
                summary.usage.input += shelf.usage.input
                summary.usage.output += shelf.usage.output
                if shelf.truncated { summary.truncated += 1 }
                summary.droppedReadings += shelf.dropped
                summary.shortenedReadings += shelf.shortened
                let records: [Int: SpineRecord]
                do { records = try catalogue.spineRecords(photoHash: hash, reader: reader.identity) } catch {
                    // What earlier runs settled cannot be read: matching again could add or queue twice.
                    send(SpineEvent(kind: .failed, file: file, error: "\(file): \(catalogue.naming("\(error)"))"))
                    continue
                }
                let matches = await matchAll(shelf.readings, skipping: records)
                let held = Self.heldTitles(matches)
                for (index, reading) in shelf.readings.enumerated() {
                    summary.readings += 1
                    var event = settle(reading, index: index, file: file, hash: hash, record: records[index], match: matches[index])
                    event.cached = cached
                    if event.kind == .unmatched, !reading.unreadable, matcher.thresholds.isUnsure(reading) {
                        summary.unsureUnmatched += 1
                        continue
                    }
                    send(event)
                    // The other titles the reading held (neighbouring spines read as one): each its own
                    // book, record and review entry, in the reading's box; those an earlier run settled
                    // come from their records.
                    var spine = reading
                    spine.position = reading.position ?? index
                    let stored = records.keys.filter { $0 >= SpineRecord.heldStride && $0 % SpineRecord.heldStride == index }
                    for key in Set(stored).union((held[index] ?? [:]).keys).sorted() {
                        var event = settle(spine, index: key, file: file, hash: hash, record: records[key], match: held[index]?[key])
                        event.cached = cached
                        if event.kind != .unmatched { send(event) }
                    }
                }
            }
        }
        // A window read ahead when the run was interrupted: cancelled, not waited for (local OCR
        // does not stop mid-photo, and Ctrl-C must not wait for a photo nobody will see); a
        // reply that still lands is kept in the reply cache for the next run.
        next?.cancel()
        // Cancelled while the last photo's readings were matched: their searches were cut
        // (queued, nothing recorded); the run was still interrupted.
        if isCancelled() { summary.interrupted = true }
        return summary
    }

    /// A window's photos asked of the reader (or found in the reply cache) together.
    private func fetchWindow(_ window: [String], send: Bool) async -> [Fetched?] {
        var fetched = [Fetched?](repeating: nil, count: window.count)
        await withTaskGroup(of: (Int, Fetched).self) { group in
            for (index, file) in window.enumerated() { group.addTask { (index, await self.fetch(file, send: send)) } }
            for await (index, result) in group { fetched[index] = result }
        }
        return fetched
    }

    /// Matches the readings no earlier run settled; results by reading index. Every reading is
    /// matched against what is on this machine first (the cache, a loaded dump); only those it
    /// did not settle then go to the network sources, a few at a time, as one batch for the photo
    /// (a search asked twice is sent once: `SearchCandidateSource`).
    func matchAll(_ readings: [SpineReading], skipping records: [Int: SpineRecord]) async -> [Int: SpineMatch] {
        // A reading is matched again when its own record or a further title's it held met a full
        // library (its record is then the reading's; the extra title's comes from the new match).
        let refused = Set(records.values.filter { $0.status == .libraryFull }.map(\.readingIndex))
        let pending = readings.enumerated().filter { index, _ in records[index] == nil || refused.contains(index) }
        let local = sources.filter { !$0.asksNetwork }
        // A catalogue searched here (a loaded Open Library dump) is not searched again afar: Open
        // Library's search holds the same records, and its pacing is what the user would wait for.
        let searchedHere = Set(local.compactMap(\.catalogue))
        let sources = sources.filter { !$0.asksNetwork || !searchedHere.contains($0.catalogue ?? "") }
        var matches = await match(pending, sources: local)
        if local.count < sources.count {
            let unsettled = pending.filter { index, _ in matches[index]?.decision != .strong }
            matches.merge(await match(unsettled, sources: sources)) { _, afar in afar }
        }
        // An author read apart from its title: the two tried as one reading (a few per photo).
        let inShelfOrder = readings.indices.map { matches[$0] }
        let joins = SpineMatcher.neighbourJoins(readings, inShelfOrder, thresholds: matcher.thresholds)
        let joined = await match(Array(joins.map(\.joined).enumerated()), sources: sources)
        let results = joins.indices.compactMap { joined[$0] }
        for (index, match) in SpineMatcher.acceptedJoins(joins, results, matches: inShelfOrder) {
            matches[index] = match
        }
        // A title short of strong for want of its author, beside that author's book read strong.
        for (index, match) in matcher.shelfConfirmed(readings, readings.indices.map { matches[$0] }) {
            matches[index] = match
        }
        // A reading that matched nothing beside books one author's readings matched: that author's
        // other books, asked of each source once per photo (a suggestion for review at most).
        let settled = readings.indices.map { matches[$0] }
        let requests = SpineMatcher.contextRequests(readings, settled)
        if !requests.isEmpty {
            var books: [String: [PreparedCandidate]] = [:]
            for author in Set(requests.flatMap(\.authors)).sorted() {
                // A paced source only when no other knew the author's books (each request is a wait).
                for source in sources where !source.isPaced || (books[author] ?? []).isEmpty {
                    books[author, default: []] += (try? await source.books(by: [author], limit: Self.booksPerAuthor)) ?? []
                }
            }
            for (index, match) in matcher.shelfContext(readings, settled, requests: requests, books: { $0.flatMap { books[$0] ?? [] } }) {
                matches[index] = match
            }
        }
        return matches
    }

    /// Each reading matched against `sources`, `concurrentMatches` at a time.
    private func match(_ readings: [(offset: Int, element: SpineReading)], sources: [any CandidateSource]) async -> [Int: SpineMatch] {
        var matches: [Int: SpineMatch] = [:]
        await withTaskGroup(of: (Int, SpineMatch).self) { group in
            var next = readings.makeIterator()
            func addNext() {
                guard let (index, reading) = next.next() else { return }
                group.addTask { [matcher] in (index, await matcher.match(reading, sources: sources)) }
            }
            for _ in 0..<Self.concurrentMatches { addNext() }
            while let (index, match) = await group.next() {
                matches[index] = match
                addNext()
            }
        }
        return matches
    }

    /// The further titles each reading held (`SpineMatch.alsoHeld`) that matched a book, by reading
    /// index and record index (`SpineRecord.index(reading:title:)`): never a book the photo's
    /// readings matched themselves, nor one book twice.
    static func heldTitles(_ matches: [Int: SpineMatch]) -> [Int: [Int: SpineMatch]] {
        var named = Set(matches.values.filter { $0.decision != .none }.compactMap { $0.best?.workKey })
        var held: [Int: [Int: SpineMatch]] = [:]
        for index in matches.keys.sorted() {
            for (number, title) in (matches[index]?.alsoHeld ?? []).enumerated() where title.decision != .none {
                guard let work = title.best?.workKey, named.insert(work).inserted else { continue }
                var title = title
                title.alsoHeld = []
                held[index, default: [:]][SpineRecord.index(reading: index, title: number + 1)] = title
            }
        }
        return held
    }

    static let concurrentMatches = 4
    /// An author's books asked of a source for shelf context (Google Books answers 40 at most).
    static let booksPerAuthor = 40

    func settle(_ reading: SpineReading, index: Int, file: String, hash: String, record: SpineRecord?, match: SpineMatch?) -> SpineEvent {
        var event = SpineEvent(kind: .unmatched, file: file, reading: reading.text, position: reading.position ?? index)
        event.dryRun = dryRun
        event.box = reading.box
        if let record, record.status != .libraryFull {
            event.decision = MatchDecision(rawValue: record.decision)
            event.distance = record.distance
            event.isbn13 = record.isbn13
            event.title = record.title
            event.authors = record.authors.isEmpty ? nil : record.authors
            event.workKey = record.workKey
            event.reason = record.reason
            switch record.status {
            case .added, .alreadyOwned, .accepted: event.kind = .alreadyOwned
            case .review: event.kind = .review
            case .rejected, .unmatched, .libraryFull: event.kind = .unmatched
            }
            return event
        }
        guard let match else { return event }
        // The reading that decided (one of the spine's alternatives, when the main text was junk) is what the user checks.
        let shownText = match.matchedText ?? reading.text
        event.reading = shownText
        event.decision = match.decision
        event.distance = (match.distance * 1000).rounded() / 1000
        event.reason = match.reason
        if let best = match.best {
            event.isbn13 = best.isbn13
            event.title = best.title
            event.authors = best.authors
            event.workKey = best.workKey
            event.source = best.source
        }
        var status: SpineRecord.Status
        switch match.decision {
        case .strong:
            guard !dryRun else { event.kind = .added; return event }
            guard let best = match.best, let text = best.isbn13, let isbn = try? ISBN13(validating: text) else {
                event.kind = .review
                event.reason = "the matched book has no ISBN"
                status = .review
                break
            }
            let cached: Work?
            do { cached = try catalogue.work(key: best.workKey) ?? catalogue.work(forISBN: isbn) } catch {
                event.kind = .failed
                event.error = "\(file): \(catalogue.naming("\(error)"))"
                return event
            }
            guard let work = cached else {
                event.kind = .review
                event.reason = "the matched book is not in the cache"
                status = .review
                break
            }
            // The intake's add, the same as a barcode's: already owned (same ISBN or work), library limit.
            let outcome = intake.own(isbn, work: work, source: best.source, from: .spine(photo: file, position: event.position ?? index))
            event.kind = outcome.kind
            switch outcome {
            case .added: status = .added
            case .alreadyOwned: status = .alreadyOwned
            case let .libraryFull(_, owned, limit):
                (event.reason, event.owned, event.limit) = (outcome.reason, owned, limit)
                status = .libraryFull
            default:
                event.kind = .failed
                event.error = "\(file): \(outcome.reason ?? "not added")"
                return event
            }
        case .medium:
            event.kind = .review
            status = .review
        case .none:
            if !match.unavailable.isEmpty {
                event.kind = .queued
                event.reason = "no source could answer: " + match.unavailable.joined(separator: "; ")
                return event
            }
            event.kind = .unmatched
            status = .unmatched
            if offline, !reading.unreadable {
                event.reason = (event.reason ?? "no match") + "; offline: only the local cache was searched"
                return event
            }
        }
        if dryRun { return event }
        do {
            _ = try catalogue.saveSpineRecord(SpineRecord(
                photoHash: hash, reader: reader.identity, index: index, file: file, text: shownText,
                decision: match.decision.rawValue, distance: event.distance ?? 1, workKey: event.workKey, isbn13: event.isbn13,
                title: event.title, authors: event.authors ?? [], status: status, reason: event.reason, box: reading.box))
        } catch {
            // Not recorded: the next run matches this reading again (an added book is then "already owned").
            let settled = event.kind
            event.kind = .failed
            event.error = "\(file): \(settled.rawValue), but the reading could not be recorded: \(catalogue.naming("\(error)"))"
        }
        return event
    }
}

extension SpineRecord {
    /// A reading's further titles (`SpineMatch.alsoHeld`) are recorded under indices past every
    /// reading's (a reply keeps at most `ReplyLimits.maxReadings`): title k of reading i is
    /// i + k·`heldStride`, so a re-run finds each settled and the photo's key stays unique.
    public static let heldStride = 1_000

    public static func index(reading: Int, title: Int) -> Int { reading + title * heldStride }

    /// The reading this record's title was read in.
    public var readingIndex: Int { index % Self.heldStride }
}

/// `rapidscan review`: medium matches accepted (added as owned) or rejected.
public struct SpineReview: Sendable {
    public let catalogue: any CatalogueStore
    public let listId: String?
    public let intake: Intake

    public init(catalogue: any CatalogueStore, listId: String? = nil, intake: Intake? = nil) {
        self.catalogue = catalogue
        self.listId = listId
        self.intake = intake ?? Intake(catalogue: catalogue, settings: Intake.Settings(listId: listId))
    }

    public func pending() throws(CatalogueError) -> [SpineRecord] { try catalogue.spineReviews() }

    public func reject(_ record: SpineRecord) throws(CatalogueError) {
        guard let id = record.id else { return }
        try catalogue.setSpineStatus(id: id, .rejected)
    }

    /// Accepts a review entry: the book is added as owned through the intake, as a scan's.
    public func accept(_ record: SpineRecord) -> SpineEvent {
        var event = SpineEvent(kind: .failed, file: record.file, reading: record.text, decision: .medium, distance: record.distance,
                               isbn13: record.isbn13, title: record.title, authors: record.authors, workKey: record.workKey)
        guard let id = record.id, let text = record.isbn13, let isbn = try? ISBN13(validating: text) else {
            event.error = "\(record.file): the matched book \(record.title ?? "?") has no ISBN"
            event.inputError = true
            return event
        }
        let cached: Work?
        do { cached = try record.workKey.flatMap { key throws(CatalogueError) in try catalogue.work(key: key) } ?? catalogue.work(forISBN: isbn) } catch {
            event.error = "\(record.file): \(catalogue.naming("\(error)"))"
            return event
        }
        guard let work = cached else {
            event.error = "\(record.file): the matched book \(record.title ?? "?") is not in the cache"
            event.inputError = true
            return event
        }
        let outcome = intake.own(isbn, work: work, source: "review", from: .spine(photo: record.file, position: record.readingIndex))
        event.kind = outcome.kind
        switch outcome {
        case .added, .alreadyOwned:
            do { try catalogue.setSpineStatus(id: id, .accepted) } catch {
                // Owned, but the entry still shows in review: accepting it again says "already owned".
                event.kind = .failed
                event.error = "\(record.file): added, but the review entry could not be closed: \(error)"
            }
        case let .libraryFull(_, owned, limit):
            (event.reason, event.owned, event.limit) = (outcome.reason, owned, limit)
        default:
            event.kind = .failed
            event.error = "\(record.file): \(outcome.reason ?? "not added")"
        }
        return event
    }
}
