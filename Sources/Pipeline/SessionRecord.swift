import BookCodes
import BookLookup
import Foundation

/// Stage "session record": what the RapidScan screen shows — the badge (books added this
/// session), the ten most recent scans with their state, and running totals.
public struct SessionRecord: Sendable {
    public enum ScanState: Sendable, Hashable {
        case adding, added, alreadyOwned, notFound, libraryFull
        case queued(waitingFor: LookupProvenance)
        case failed(reason: String)
        /// In the station's journal until the library's server answers (`watch`).
        case held

        /// The seed's status labels.
        public var label: String {
            switch self {
            case .adding: "Adding…"
            case .added: "Added"
            case .alreadyOwned: "Already owned"
            case .notFound: "Not found"
            case .libraryFull: "Failed: Library Full"
            case .queued(let provenance): "Queued (\(provenance.displayName))"
            case .failed(let reason): "Failed: \(reason)"
            case .held: "Held (server away)"
            }
        }
    }

    public struct RecentScan: Sendable, Hashable, Identifiable {
        public let id: Int
        public var isbn13: ISBN13
        public var title: String?
        public var file: String
        public var state: ScanState
    }

    public struct Totals: Sendable, Hashable {
        /// Frames taken from the source (decoded or not).
        public var frames = 0
        /// Valid codes read (books and products, repeats included).
        public var codes = 0
        public var rejected = 0
        /// Places where two different valid codes were read and neither was reported.
        public var ambiguous = 0
        /// Valid codes read once, too weakly to report (a retake usually reads them).
        public var unconfirmed = 0
        /// Codes read and confirmed whose digits the pixels contradict (a misread refused).
        public var contradicted = 0
        public var debounced = 0
        public var unreadable = 0
        public var dropped = 0
        public var noCode = 0
        /// Frames where a barcode was seen and could not be read: to take again.
        public var unreadCode = 0
        public var added = 0
        public var alreadyOwned = 0
        public var notFound = 0
        public var libraryFull = 0
        public var queued = 0
        public var nonBook = 0
        public var failed = 0
        /// Books in the station's journal because the library's server could not be reached (`watch`).
        public var held = 0
        /// Files skipped because an earlier run already processed them (resume).
        public var alreadyProcessed = 0

        public init() {}
    }

    public static let recentLimit = 10

    /// Newest first, at most ten.
    public private(set) var recent: [RecentScan] = []
    public private(set) var totals = Totals()
    /// Every unreadable file with its reason, for the summary.
    public private(set) var unreadableFiles: [(file: String, reason: String)] = []
    /// Every file where a barcode was seen and could not be read, for the summary's re-shoot list.
    public private(set) var unreadCodeFiles: [String] = []
    private var nextScanId = 0
    private var openScans: Set<Int> = []
    /// Books this session reported queued and no retry has settled yet.
    private var queuedBooks: Set<ISBN13> = []
    /// Books this session held in its journal and no journal pass has stored yet.
    private var heldBooks: [ISBN13: Int] = [:]
    /// Accepted books whose lookup has not settled yet.
    public var lookupsInFlight: Int { openScans.count }

    public init() {}

    /// Books added this session: the badge on the scan button.
    public var badge: Int { totals.added }

    public mutating func countFrame() { totals.frames += 1 }
    /// Valid codes read from one frame (before debounce).
    public mutating func countCodes(_ n: Int) { totals.codes += n }
    public mutating func countAmbiguities(_ n: Int) { totals.ambiguous += n }
    public mutating func countUnconfirmed(_ n: Int) { totals.unconfirmed += n }
    public mutating func countContradicted(_ n: Int) { totals.contradicted += n }
    public mutating func countAlreadyProcessed(_ n: Int = 1) { totals.alreadyProcessed += n }

    /// A book code was accepted and is being looked up: shows "Adding…" until `finish`.
    public mutating func beginScan(isbn13: ISBN13, file: String) -> Int {
        nextScanId += 1
        openScans.insert(nextScanId)
        recent.insert(RecentScan(id: nextScanId, isbn13: isbn13, title: nil, file: file, state: .adding), at: 0)
        if recent.count > Self.recentLimit { recent.removeLast(recent.count - Self.recentLimit) }
        return nextScanId
    }

    /// Counts `event` and, for a book outcome, settles the recent scan `scanId`.
    public mutating func record(_ event: ScanEvent, scanId: Int? = nil) {
        switch event.outcome {
        case .added: totals.added += 1
        case .alreadyOwned: totals.alreadyOwned += 1
        case .notFound: totals.notFound += 1
        case .libraryFull: totals.libraryFull += 1
        case .queued(let book, _, _):
            totals.queued += 1
            queuedBooks.insert(book.isbn13)
        case .nonBook: totals.nonBook += 1
        case .rejected: totals.rejected += 1
        case .debounced: totals.debounced += 1
        case .unreadable(let reason):
            totals.unreadable += 1
            unreadableFiles.append((event.file, reason))
        case .noCode: totals.noCode += 1
        case .unreadCode:
            totals.unreadCode += 1
            unreadCodeFiles.append(event.file)
        case .dropped: totals.dropped += 1
        case .failed: totals.failed += 1
        case .held(let book, _):
            totals.held += 1
            heldBooks[book.isbn13, default: 0] += 1
        }
        if let scanId { openScans.remove(scanId) }
        guard let scanId, let index = recent.firstIndex(where: { $0.id == scanId }), let state = Self.state(for: event.outcome)
        else { return }
        recent[index].state = state
        if let title = event.book?.title { recent[index].title = title }
    }

    /// A book the queue retry settled (`watch`): a book this session queued is no longer
    /// counted queued, and its line in the recent scans shows what it came to.
    public mutating func recordRetried(_ event: ScanEvent) {
        guard let isbn = event.book?.isbn13 else { return }
        if queuedBooks.remove(isbn) != nil { totals.queued -= 1 }
        record(event)
        guard let state = Self.state(for: event.outcome),
              let index = recent.firstIndex(where: { $0.isbn13 == isbn && { if case .queued = $0 { true } else { false } }($0.state) })
        else { return }
        recent[index].state = state
        if let title = event.book?.title { recent[index].title = title }
    }

    /// A book a journal pass stored (`watch`): a book this session held is no longer counted
    /// held, and its line in the recent scans shows what it came to.
    public mutating func recordReleased(_ event: ScanEvent) {
        guard let isbn = event.book?.isbn13 else { return }
        if let count = heldBooks[isbn] {
            totals.held -= 1
            heldBooks[isbn] = count > 1 ? count - 1 : nil
        }
        record(event)
        guard let state = Self.state(for: event.outcome),
              let index = recent.firstIndex(where: { $0.isbn13 == isbn && $0.state == .held })
        else { return }
        recent[index].state = state
        if let title = event.book?.title { recent[index].title = title }
    }

    private static func state(for outcome: ScanEvent.Outcome) -> ScanState? {
        switch outcome {
        case .added: .added
        case .alreadyOwned: .alreadyOwned
        case .notFound: .notFound
        case .libraryFull: .libraryFull
        case .queued(_, let provenance, _): .queued(waitingFor: provenance)
        case .failed(_, let reason): .failed(reason: reason)
        case .held: .held
        default: nil
        }
    }
}
