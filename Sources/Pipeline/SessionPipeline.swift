import BookCodes
import BookLookup
import Catalogue
import Foundation
import Intake

/// A RapidScan session after the decode threads, as one list of stages, each a method taking
/// the previous stage's typed value (the way beets' `ImportSession.run` names every stage):
///
///     decode (threads: `BatchDecoder`, `LiveDecoder`) → DecodedFrame
///       → confirm   DecodedFrame            → [ReadCode] or not read (plan, capture order)
///       → debounce  ReadCode                → Step              (plan)
///       → look up   ScannedBook             → Step (a task)     (plan starts it: `Intake.resolve`)
///       → add       ScannedBook + Answer    → ScanEvent.Outcome (finish, one frame after another: `Intake.add`)
///       → record    ScanEvent               → SessionRecord     (finish)
///       → emit      ScanEvent               → EventOutput       (finish)
///
/// `plan` runs the synchronous stages in capture order and starts the frame's lookups (they
/// may run ahead, several frames at once, while the network answers); `finish` applies the
/// rest strictly in capture order, so a run's outcome never depends on which decode thread
/// or lookup finished first. Look up and add are the `Intake`'s, the one way into the library
/// every door shares; this session keeps what is a scan's own: confirm, debounce, the look-ahead.
public final class SessionPipeline {
    public struct Settings: Sendable {
        public var debounceWindow: TimeInterval
        /// Cache only; a miss is queued without touching the network (`--offline`).
        public var offline: Bool
        /// The list books are added to (nil: the default list).
        public var listId: String?
        /// The station scanning: recorded on the items it adds and its resume rows.
        public var station: String

        public init(debounceWindow: TimeInterval = Debouncer.defaultWindow, offline: Bool = false, listId: String? = nil, station: String = Station.hostName) {
            self.debounceWindow = debounceWindow
            self.offline = offline
            self.listId = listId
            self.station = station
        }
    }

    public private(set) var debouncer: Debouncer
    public private(set) var record = SessionRecord()
    private let intake: Intake
    private let settings: Settings
    private let output: any EventOutput
    private var lookupsInFlight: [ISBN13: PendingLookupTask] = [:]
    /// `watch`: where books confirmed while the library's server is away are held (nil: `scan`).
    public let journal: WatchJournal?
    /// The library's server, when it is one: asked after a failure whether it went away.
    private let server: (any ServerConnection)?
    /// Cancels every lookup in flight (Ctrl-C); safe to call from a signal handler's queue.
    public let cancellation = LookupCancellation()
    /// The station this session scans as (its resume rows are this station's).
    public var station: String { settings.station }

    /// `catalogue` is the library `lookup` reads and writes (the intake adds through `lookup.catalogue`).
    /// `lookup` bounds its own network lookups (`LookupService(concurrentNetworkLookups:)`)
    /// and queues what cannot be answered now with its injected clock and back-off.
    public init(catalogue: any CatalogueStore, lookup: LookupService, settings: Settings, output: any EventOutput,
                journal: WatchJournal? = nil) {
        debouncer = Debouncer(window: settings.debounceWindow)
        self.journal = journal
        server = catalogue as? any ServerConnection
        intake = Intake(lookup: lookup, settings: Intake.Settings(listId: settings.listId, offline: settings.offline, station: settings.station))
        self.settings = settings
        self.output = output
    }

    /// A frame between `plan` and `finish`: each code's outcome, or the lookup it waits for.
    enum Step: Sendable {
        case done(ScanEvent.Outcome)
        case lookingUp(ScannedBook, scanId: Int, PendingLookupTask)
    }

    /// What a lookup answered, typed for stage "add" (the intake's resolution).
    typealias Answer = IntakeResolution

    // MARK: - The session, top to bottom

    /// Every stage after decode for one frame; reports each event as it happens.
    @discardableResult
    public func process(_ decoded: DecodedFrame) async -> FrameOutcome {
        await finish(plan(decoded))
    }

    /// Confirm and debounce (call in capture order), then start the accepted books' lookups.
    public func plan(_ decoded: DecodedFrame) -> PlannedFrame {
        let frame = decoded.frame
        let steps: [Step] = switch confirm(decoded) {
        case .notRead(let outcome): [.done(outcome)]
        case .codes(let codes) where codes.isEmpty: [.done(.noCode)]
        case .unreadCode: [.done(.unreadCode)]
        case .codes(let codes): codes.map { debounce($0, in: frame) }
        }
        return PlannedFrame(frame: frame, steps: steps)
    }

    /// Add, record and emit each of the frame's outcomes, waiting for its lookups.
    public func finish(_ planned: PlannedFrame) async -> FrameOutcome {
        var events: [ScanEvent] = []
        for step in planned.steps {
            events.append(await settle(step, file: planned.frame.path, captureTime: planned.frame.captureTime.date))
        }
        output.frameFinished(record: record)
        return FrameOutcome(events: events)
    }

    /// The pending queue retried while a `watch` runs: every queued lookup (the breaker's probe
    /// goes first, so a source still down costs one request), off the session's task so
    /// frames keep flowing; `settleRetried` then records and emits what it came to.
    public func retryQueue() -> Task<Result<[IntakeOutcome], CatalogueError>, Never> {
        let intake = intake
        return Task {
            do throws(CatalogueError) {
                return .success(try await intake.retryPending(onlyDue: false).compactMap { $0.outcome })
            } catch {
                return .failure(error)
            }
        }
    }

    /// Records and emits a queue retry's books under the file "pending retry": an added book
    /// counts as any other (badge, panel, summary); one still waiting was already reported
    /// queued and is not reported again.
    public func settleRetried(_ retried: Result<[IntakeOutcome], CatalogueError>, at time: Date) {
        switch retried {
        case .failure(let error):
            output.note(.queueRetryFailed(reason: error.description))
        case .success(let outcomes):
            for outcome in outcomes where outcome.kind != .queued {
                guard let book = outcome.book else { continue }
                let event = ScanEvent(file: IntakeOrigin.pendingRetry.place, captureTime: time,
                                      outcome: ScanEvent.Outcome(outcome, scanned: ScannedBook(isbn13: book.isbn13, title: book.title)))
                record.recordRetried(event)
                emit(event)
            }
        }
        output.frameFinished(record: record)
    }

    /// Files an earlier run already processed (resume): counted, never decoded.
    public func countAlreadyProcessed(_ n: Int) { record.countAlreadyProcessed(n) }

    /// The second half for one code: add (once its lookup answered), record, emit.
    private func settle(_ step: Step, file: String, captureTime: Date) async -> ScanEvent {
        var scanId: Int?
        let outcome: ScanEvent.Outcome
        switch step {
        case .done(let done):
            outcome = done
        case let .lookingUp(book, id, pending):
            let added = add(book, answer: await answer(book.isbn13, from: pending), origin: .barcode(file: file, symbology: pending.symbology, addOn: book.addOn))
            outcome = hold(added, book: book, symbology: pending.symbology, file: file, captureTime: captureTime)
            scanId = id
        }
        let event = ScanEvent(file: file, captureTime: captureTime, outcome: outcome)
        record(event, scanId: scanId)
        emit(event)
        return event
    }

    /// Why the library's server cannot be reached now (nil: it answers, or the library is a file).
    public var serverLoss: String? { server?.serverLoss }

    /// A book that failed because the server went away: into the journal (when this session
    /// has one), then reported held. Any other outcome is returned as it is.
    private func hold(_ outcome: ScanEvent.Outcome, book: ScannedBook, symbology: Symbology, file: String, captureTime: Date) -> ScanEvent.Outcome {
        guard case let .failed(failed, reason) = outcome, let journal, let loss = serverLoss else { return outcome }
        do {
            _ = try journal.hold(book.isbn13, symbology: symbology, file: file, capturedAt: captureTime)
            return .held(failed, reason: loss)
        } catch {
            return .failed(failed, reason: "\(reason); \(error)")
        }
    }

    /// What one pass over the journal came to: each replayed book's event, and whether the
    /// server was still away (the rest stay held for the next pass).
    public struct JournalReplay: Sendable {
        public var events: [ScanEvent] = []
        public var serverLost = false
    }

    /// The journal's books through the intake (resolve, then add: "already owned" when another
    /// station added one meanwhile), oldest first, off the session's task; each leaves the
    /// journal once its outcome is stored. Stops at the first book the server is still away for.
    /// `skipping`: entries that failed for another reason this run (tried again at the next start).
    public func replayJournal(skipping: Set<Int64>) -> Task<(JournalReplay, failedIds: Set<Int64>), Never> {
        let intake = intake, journal = journal, server = server
        return Task {
            var replay = JournalReplay()
            var failedIds = Set<Int64>()
            guard let journal else { return (replay, failedIds) }
            let entries: [WatchJournal.Entry]
            do { entries = try journal.held().filter { !skipping.contains($0.id) } } catch {
                replay.events.append(ScanEvent(file: journal.path, captureTime: Date(), outcome: .unreadable(reason: "\(error)")))
                return (replay, failedIds)
            }
            for entry in entries {
                let book = ScannedBook(isbn13: entry.isbn13, symbology: entry.symbology)
                let outcome = await intake.take(entry.isbn13, from: .barcode(file: entry.file, symbology: entry.symbology, addOn: nil))
                if outcome.kind == .failed, server?.serverLoss != nil {
                    // Still away: this one and the rest stay held.
                    replay.serverLost = true
                    break
                }
                if outcome.kind == .failed {
                    failedIds.insert(entry.id)
                } else {
                    do { try journal.release(entry) } catch {
                        // Stored, but still in the journal: the next pass finds it already owned.
                    }
                }
                replay.events.append(ScanEvent(file: entry.file, captureTime: entry.capturedAt,
                                               outcome: ScanEvent.Outcome(outcome, scanned: book)))
            }
            return (replay, failedIds)
        }
    }

    /// Records and emits a journal pass's books: a book this session held is no longer counted held.
    public func settleReplayed(_ replay: JournalReplay) {
        for event in replay.events {
            record.recordReleased(event)
            emit(event)
        }
        output.frameFinished(record: record)
    }

    /// Books in the journal for this library (a killed watch's, or this one's), less `skipping`.
    public func hasHeldBooks(skipping: Set<Int64> = []) -> Bool {
        ((try? journal?.held()) ?? []).contains { !skipping.contains($0.id) }
    }

    // MARK: - The stages

    /// Stage "confirm": BarcodeReading checked every check digit; here the detections are
    /// sorted into books, other products and rejected codes (`ReadCode.confirmed`), and the
    /// frame is counted. A frame that was not read is its own outcome.
    private func confirm(_ decoded: DecodedFrame) -> Confirmed {
        switch decoded.outcome {
        case .dropped: return .notRead(.dropped)
        case .unreadable(let reason): return .notRead(.unreadable(reason: reason))
        case .read(let detections, let ambiguities, let unconfirmed, let contradicted, let sawUnreadCode):
            let codes = ReadCode.confirmed(from: detections)
            record.countFrame()
            record.countAmbiguities(ambiguities)
            record.countUnconfirmed(unconfirmed)
            record.countContradicted(contradicted)
            record.countCodes(codes.filter { $0.debounceKey != nil }.count)
            // Bars seen, nothing read from them: to take again, not "no barcode".
            return codes.isEmpty && sawUnreadCode ? .unreadCode : .codes(codes)
        }
    }

    enum Confirmed {
        case codes([ReadCode])
        /// Nothing read where the reader saw bars (`FileScanResult.sawUnreadCode`).
        case unreadCode
        /// Dropped, or not an image: the frame's only outcome.
        case notRead(ScanEvent.Outcome)
    }

    /// Stage "debounce" (SPEC §2): a code seen again within the window is a repeat; an
    /// accepted book goes on to "look up", an accepted product is reported as not a book.
    private func debounce(_ code: ReadCode, in frame: Frame) -> Step {
        let time = frame.captureTime.date
        switch code {
        case let .rejected(symbology, text, reason):
            return .done(.rejected(symbology: symbology, text: text, reason: reason))
        case let .product(gtin):
            return .done(debouncer.check(gtin.gtin13, at: time) == .accepted ? .nonBook(gtin) : .debounced(code))
        case let .book(isbn, symbology, _, addOn):
            guard debouncer.check(isbn.digits, at: time) == .accepted else { return .done(.debounced(code)) }
            return lookUp(ScannedBook(isbn13: isbn, addOn: addOn, symbology: symbology), symbology: symbology, file: frame.path)
        }
    }

    /// Stage "look up": the cache, then the sources, always with the intent to own, so a
    /// lookup that cannot be answered now is queued (`LookupService`'s one pending path,
    /// with its clock and back-off) and `rapidscan pending retry` adds the book later. Started
    /// here, awaited in "add"; frames asking for the same ISBN share one lookup.
    private func lookUp(_ book: ScannedBook, symbology: Symbology, file: String) -> Step {
        let scanId = record.beginScan(isbn13: book.isbn13, file: file)
        output.frameFinished(record: record)  // shows "Adding…" while the lookup runs
        let intake = intake
        let isbn = book.isbn13
        let pending = lookupsInFlight[isbn] ?? PendingLookupTask(symbology: symbology, cancellation: cancellation) {
            await intake.resolve(isbn)
        }
        lookupsInFlight[isbn] = pending
        return .lookingUp(book, scanId: scanId, pending)
    }

    private func answer(_ isbn: ISBN13, from pending: PendingLookupTask) async -> Answer {
        let answer = await pending.task.value
        if lookupsInFlight[isbn] === pending { lookupsInFlight[isbn] = nil }
        return answer
    }

    /// Stage "add": one write transaction decides Added / Already in Library / Library Full
    /// (free plan 50 owned books, Pro unlimited), so each book counts once per user. A code
    /// no source knew is remembered with its file (`library notfound`): "Book Not Found"
    /// never leads nowhere.
    private func add(_ book: ScannedBook, answer: Answer, origin: IntakeOrigin) -> ScanEvent.Outcome {
        ScanEvent.Outcome(intake.add(book.isbn13, answer, from: origin), scanned: book)
    }

    /// Stage "record": totals, the badge and the recent scans the panel shows.
    private func record(_ event: ScanEvent, scanId: Int?) {
        record.record(event, scanId: scanId)
    }

    /// Stage "emit": the output decides what a person or a script sees.
    private func emit(_ event: ScanEvent) {
        output.emit(event, record: record)
    }
}

/// What one frame came to after every stage.
public struct FrameOutcome: Sendable {
    public var events: [ScanEvent]

    public init(events: [ScanEvent]) { self.events = events }

    /// True when every outcome is final, so a resumed run may skip the file.
    public var settled: Bool { events.allSatisfy(\.isSettled) }

    /// A short note stored with the processed file ("added 9780306406157; noCode").
    public var note: String {
        events.isEmpty ? "noCode" : events.map { event in
            [event.kind.rawValue, event.book?.isbn13.digits ?? event.printedCode?.text].compactMap { $0 }.joined(separator: " ")
        }.joined(separator: "; ")
    }
}

/// A frame whose synchronous stages (confirm, debounce) are decided and whose lookups are
/// running: `SessionPipeline.finish` applies it.
public struct PlannedFrame: Sendable {
    public let frame: Frame
    let steps: [SessionPipeline.Step]

    /// True when every lookup of this frame has an answer, so finishing it will not wait.
    public var isReady: Bool {
        steps.allSatisfy { step in
            if case let .lookingUp(_, _, lookup) = step { return lookup.isDone }
            return true
        }
    }
}
