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

/// The stages after decode — validate, debounce, lookup, add to library, session record,
/// output — applied one frame at a time in capture order, so the outcome of a run never
/// depends on which decode thread finished first.
public final class SessionProcessor {
    public private(set) var debouncer: Debouncer
    public private(set) var record = SessionRecord()
    private let lookup: LookupStage
    private let library: LibraryStage
    private let output: any EventOutput

    public init(debounceWindow: TimeInterval, lookup: LookupStage, library: LibraryStage, output: any EventOutput) {
        debouncer = Debouncer(window: debounceWindow)
        self.lookup = lookup
        self.library = library
        self.output = output
    }

    func recordAlreadyProcessed(_ n: Int) { record.countAlreadyProcessed(n) }

    /// Runs the frame through the stages after decode and reports each event as it happens.
    @discardableResult
    public func process(_ decoded: DecodedFrame) async -> FrameOutcome {
        let frame = decoded.frame
        var outcome = FrameOutcome(events: [], settled: true)
        func emit(_ event: ScanEvent, scanId: Int? = nil) {
            record.record(event, scanId: scanId)
            output.emit(event, record: record)
            outcome.events.append(event)
            if [.unreadable, .libraryFull, .failed, .dropped].contains(event.kind) { outcome.settled = false }
        }
        let time = frame.captureTime.date
        switch decoded.outcome {
        case .dropped:
            emit(ScanEvent(.dropped, file: frame.path, captureTime: time))
        case .unreadable(let reason):
            record.countFrame()
            emit(ScanEvent(.unreadable, file: frame.path, captureTime: time, reason: reason))
        case .read(let codes):
            record.countFrame()
            record.countCodes(codes.filter { $0.debounceKey != nil }.count)
            if codes.isEmpty { emit(ScanEvent(.noCode, file: frame.path, captureTime: time)) }
            for code in codes {
                await handle(code, frame: frame, emit: emit)
            }
        }
        output.frameFinished(record: record)
        return outcome
    }

    private func handle(_ code: ReadCode, frame: Frame, emit: (ScanEvent, Int?) -> Void) async {
        let time = frame.captureTime.date
        let event = { (kind: ScanEvent.Kind) in ScanEvent(kind, file: frame.path, captureTime: time) }
        switch code {
        case let .rejected(symbology, text, reason):
            var rejected = event(.rejected)
            (rejected.symbology, rejected.code, rejected.reason) = (symbology.rawValue, text, reason)
            emit(rejected, nil)
            return
        case .book, .product:
            break
        }
        guard let key = code.debounceKey else { return }
        if case .debounced = debouncer.check(key, at: time) {
            var repeated = event(.debounced)
            if case let .book(isbn, _, _) = code { repeated.isbn13 = isbn.digits }
            if case let .product(gtin) = code { (repeated.symbology, repeated.code) = (gtin.symbology.rawValue, gtin.text) }
            emit(repeated, nil)
            return
        }
        guard case let .book(isbn, _, _) = code else {
            if case let .product(gtin) = code {
                var product = event(.nonBook)
                (product.symbology, product.code) = (gtin.symbology.rawValue, gtin.text)
                emit(product, nil)
            }
            return
        }
        let scanId = record.beginScan(isbn13: isbn.digits, file: frame.path)
        output.frameFinished(record: record)  // shows "Adding…" while the lookup runs
        var result = event(.failed)
        result.isbn13 = isbn.digits
        switch await lookup.resolve(isbn) {
        case .notFound:
            result.kind = .notFound
        case let .unavailable(source, reason):
            if source == "database" {
                result.reason = reason
            } else {
                result.kind = .queued
                result.source = lookup.offline ? "offline" : source
                result.reason = reason
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
        emit(result, scanId)
    }
}
