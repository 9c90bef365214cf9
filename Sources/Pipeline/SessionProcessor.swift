import BookCodes
import BookLookup
import Catalogue
import Foundation

/// What one frame came to after every stage.
public struct FrameOutcome: Sendable {
    public var events: [ScanEvent]
    /// True when every outcome is final, so a resumed run may skip the file. Unreadable
    /// frames, Library Full and failures are not settled: running again (after fixing the
    /// file, upgrading, or when the database is back) picks them up.
    public var settled: Bool

    /// A short note stored with the processed file ("added 9780306406157; noCode").
    public var note: String {
        events.isEmpty ? "noCode" : events.map { [$0.kind.rawValue, $0.isbn13 ?? $0.code].compactMap { $0 }.joined(separator: " ") }
            .joined(separator: "; ")
    }
}

/// A frame whose synchronous stages (validate, debounce) are decided and whose lookups are
/// running: `SessionProcessor.finish` applies it.
public struct PlannedFrame: Sendable {
    enum Step: Sendable {
        case event(ScanEvent)
        case book(ISBN13, addOn: AddOn?, scanId: Int, lookup: PendingLookupTask)
    }

    public let frame: Frame
    let steps: [Step]

    /// True when every lookup of this frame has an answer, so finishing it will not wait.
    public var isReady: Bool {
        steps.allSatisfy { step in
            if case .book(_, _, _, let lookup) = step { return lookup.isDone }
            return true
        }
    }
}

/// A lookup started ahead of time, shared by every frame that asked for the same ISBN.
final class PendingLookupTask: Sendable {
    let task: Task<LookupResult, Never>
    private let done = Locked(false)

    init(cancellation: LookupCancellation, _ body: @escaping @Sendable () async -> LookupResult) {
        let done = done
        task = Task {
            let result = await body()
            done.withLock { $0 = true }
            return result
        }
        cancellation.register(task)
    }

    var isDone: Bool { done.withLock { $0 } }
}

/// Ctrl-C during a session: the lookups in flight are cancelled (the HTTP transport aborts
/// within ~0.1 s) and their books are queued like any unanswered lookup, so a run ends at
/// once instead of waiting out time-outs and retries; later lookups start cancelled.
public final class LookupCancellation: Sendable {
    private let state = Locked<(cancelled: Bool, tasks: [Task<LookupResult, Never>])>((false, []))

    public init() {}

    func register(_ task: Task<LookupResult, Never>) {
        let cancelled = state.withLock { state in
            state.tasks.removeAll { $0.isCancelled }
            state.tasks.append(task)
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    public func cancelAll() {
        let tasks = state.withLock { state in
            state.cancelled = true
            defer { state.tasks.removeAll() }
            return state.tasks
        }
        tasks.forEach { $0.cancel() }
    }
}

/// The stages after decode — validate, debounce, lookup, add to library, session record,
/// output — applied in capture order, so the outcome of a run never depends on which decode
/// thread finished first. `plan` decides validation and debounce and starts the frame's
/// lookups (they may run ahead, several frames at once, while the network answers);
/// `finish` adds to the library, records and reports, strictly one frame after another.
public final class SessionProcessor {
    public private(set) var debouncer: Debouncer
    public private(set) var record = SessionRecord()
    private let lookup: LookupStage
    private let library: LibraryStage
    private let output: any EventOutput
    private var lookupsInFlight: [ISBN13: PendingLookupTask] = [:]
    /// Cancels every lookup in flight (Ctrl-C); safe to call from a signal handler's queue.
    public let cancellation = LookupCancellation()

    public init(debounceWindow: TimeInterval, lookup: LookupStage, library: LibraryStage, output: any EventOutput) {
        debouncer = Debouncer(window: debounceWindow)
        self.lookup = lookup
        self.library = library
        self.output = output
    }

    func recordAlreadyProcessed(_ n: Int) { record.countAlreadyProcessed(n) }

    /// Runs the frame through every stage after decode and reports each event as it happens.
    @discardableResult
    public func process(_ decoded: DecodedFrame) async -> FrameOutcome {
        await finish(plan(decoded))
    }

    /// Validate and debounce (in capture order: call `plan` for frames in that order), then
    /// start the lookups of the accepted book codes.
    public func plan(_ decoded: DecodedFrame) -> PlannedFrame {
        let frame = decoded.frame
        let time = frame.captureTime.date
        let event = { (kind: ScanEvent.Kind) in ScanEvent(kind, file: frame.path, captureTime: time) }
        var steps: [PlannedFrame.Step] = []
        switch decoded.outcome {
        case .dropped:
            steps.append(.event(event(.dropped)))
        case .unreadable(let reason):
            // Not a frame: a path that is missing or not an image is counted as unreadable only.
            var unreadable = event(.unreadable)
            unreadable.reason = reason
            steps.append(.event(unreadable))
        case .read(let codes):
            record.countFrame()
            record.countCodes(codes.filter { $0.debounceKey != nil }.count)
            if codes.isEmpty { steps.append(.event(event(.noCode))) }
            for code in codes { steps.append(plan(code, frame: frame, event: event)) }
        }
        return PlannedFrame(frame: frame, steps: steps)
    }

    private func plan(_ code: ReadCode, frame: Frame, event: (ScanEvent.Kind) -> ScanEvent) -> PlannedFrame.Step {
        switch code {
        case let .rejected(symbology, text, reason):
            var rejected = event(.rejected)
            (rejected.symbology, rejected.code, rejected.reason) = (symbology.rawValue, text, reason)
            return .event(rejected)
        case let .product(gtin):
            var product = event(debouncer.check(gtin.gtin13, at: frame.captureTime.date) == .accepted ? .nonBook : .debounced)
            (product.symbology, product.code) = (gtin.symbology.rawValue, gtin.text)
            return .event(product)
        case let .book(isbn, _, _, addOn):
            guard debouncer.check(isbn.digits, at: frame.captureTime.date) == .accepted else {
                var repeated = event(.debounced)
                repeated.isbn13 = isbn.digits
                repeated.addOn = addOn
                return .event(repeated)
            }
            let scanId = record.beginScan(isbn13: isbn.digits, file: frame.path)
            output.frameFinished(record: record)  // shows "Adding…" while the lookup runs
            let lookup = lookup
            let pending = lookupsInFlight[isbn] ?? PendingLookupTask(cancellation: cancellation) { await lookup.resolve(isbn) }
            lookupsInFlight[isbn] = pending
            return .book(isbn, addOn: addOn, scanId: scanId, lookup: pending)
        }
    }

    /// Waits for the frame's lookups, adds the books, records and reports every event.
    public func finish(_ planned: PlannedFrame) async -> FrameOutcome {
        let frame = planned.frame
        var outcome = FrameOutcome(events: [], settled: true)
        for step in planned.steps {
            var event: ScanEvent
            var scanId: Int?
            switch step {
            case .event(let planned):
                event = planned
            case let .book(isbn, addOn, id, pending):
                let result = await pending.task.value
                if lookupsInFlight[isbn] === pending { lookupsInFlight[isbn] = nil }
                event = add(isbn, result: result, frame: frame)
                event.addOn = addOn
                scanId = id
            }
            record.record(event, scanId: scanId)
            output.emit(event, record: record)
            outcome.events.append(event)
            if [.unreadable, .libraryFull, .failed, .dropped].contains(event.kind) { outcome.settled = false }
        }
        output.frameFinished(record: record)
        return outcome
    }

    /// Stage "add to library" for one looked-up book, as the event to report.
    private func add(_ isbn: ISBN13, result lookupResult: LookupResult, frame: Frame) -> ScanEvent {
        var result = ScanEvent(.failed, file: frame.path, captureTime: frame.captureTime.date, isbn13: isbn.digits)
        switch lookupResult {
        case .notFound:
            do {
                try library.rememberNotFound(isbn, file: frame.path)
                result.kind = .notFound
            } catch {
                result.reason = "no source knows it, and it could not be remembered: \(error.description)"
            }
        case let .unavailable(source, reason):
            result.reason = reason
            // A database that cannot be read is a failure; a source that cannot answer is "later".
            if source != "database" {
                result.kind = .queued
                result.source = lookup.offline ? "offline" : source
            }
        case let .found(work, _):
            result.title = work.title
            do {
                switch try library.addOwned(isbn, work: work) {
                case .added: result.kind = .added
                case .alreadyOwned: result.kind = .alreadyOwned
                case let .libraryFull(owned, limit):
                    (result.kind, result.owned, result.limit) = (.libraryFull, owned, limit)
                }
            } catch {
                result.reason = error.description
            }
        }
        return result
    }
}
