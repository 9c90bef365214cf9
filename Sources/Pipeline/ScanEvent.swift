import BookCodes
import BookLookup
import Foundation
import Intake

/// Stage "emit", its input: what happened to one frame or one code in it. The outcome is an
/// enum carrying exactly the values that outcome has, so a "queued" event always says what
/// it waits for and an "added" one always has its ISBN.
public struct ScanEvent: Sendable, Hashable {
    /// The frame's path as given (or as found under a given folder); for an ISBN that entered
    /// at the lookup stage (`SessionPipeline.enter`), the file it came from.
    public var file: String
    public var captureTime: Date
    public var outcome: Outcome

    public init(file: String, captureTime: Date, outcome: Outcome) {
        self.file = file
        self.captureTime = captureTime
        self.outcome = outcome
    }

    public enum Outcome: Sendable, Hashable {
        case added(ScannedBook)
        case alreadyOwned(ScannedBook)
        /// Not added: the free plan's limit (`owned` of `limit` books).
        case libraryFull(ScannedBook, owned: Int, limit: Int)
        /// No source could answer now; the lookup is queued for `pending retry`.
        case queued(ScannedBook, waitingFor: LookupProvenance, reason: String)
        /// No source knows the ISBN (remembered for `library notfound`).
        case notFound(ScannedBook)
        /// The lookup or the library write failed for a reason that is not "try later".
        case failed(ScannedBook, reason: String)
        /// `watch`: the library's server could not be reached; the book is in the station's
        /// journal and is added when it answers (`reason` names the server).
        case held(ScannedBook, reason: String)
        /// A valid retail code that is not a book (not looked up).
        case nonBook(GTIN)
        /// A code whose check digit failed.
        case rejected(symbology: Symbology, text: String, reason: String)
        /// A repeat inside the debounce window.
        case debounced(ReadCode)
        /// A file that could not be read or decoded as an image.
        case unreadable(reason: String)
        /// A readable frame with no barcode in it (normal for webcam frames).
        case noCode
        /// A barcode was seen and could not be read (`FileScanResult.sawUnreadCode`): take it again.
        case unreadCode
        /// A watched frame skipped because newer frames were waiting (latency over backlog).
        case dropped
    }

    /// The outcome's name: the `"event"` of a JSON line and the key of the totals.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case added, alreadyOwned, notFound, libraryFull, queued, nonBook, rejected, debounced, unreadable, noCode, unreadCode, dropped, failed, held
    }

    public var kind: Kind {
        switch outcome {
        case .added: .added
        case .alreadyOwned: .alreadyOwned
        case .libraryFull: .libraryFull
        case .queued: .queued
        case .notFound: .notFound
        case .failed: .failed
        case .held: .held
        case .nonBook: .nonBook
        case .rejected: .rejected
        case .debounced: .debounced
        case .unreadable: .unreadable
        case .noCode: .noCode
        case .unreadCode: .unreadCode
        case .dropped: .dropped
        }
    }

    /// Whether the outcome is final, so a resumed run may skip the frame. Unreadable
    /// frames, Library Full and failures are not settled: running again (after fixing the
    /// file, upgrading, or when the database is back) picks them up; a dropped frame was never read.
    public var isSettled: Bool { ![.unreadable, .libraryFull, .failed, .dropped].contains(kind) }

    /// The book of a book outcome (looked up, or a repeat of one).
    public var book: ScannedBook? {
        switch outcome {
        case let .added(book), let .alreadyOwned(book), let .libraryFull(book, _, _), let .queued(book, _, _),
             let .notFound(book), let .failed(book, _), let .held(book, _):
            book
        case let .debounced(.book(isbn, _, _, addOn)): ScannedBook(isbn13: isbn, addOn: addOn)
        default: nil
        }
    }

    /// The code as printed, for outcomes that are not books: non-book products, rejected codes, repeats of a product.
    public var printedCode: (symbology: Symbology, text: String)? {
        switch outcome {
        case let .nonBook(gtin), let .debounced(.product(gtin)): (gtin.symbology, gtin.text)
        case let .rejected(symbology, text, _): (symbology, text)
        default: nil
        }
    }

    /// Why: the unreadable file's error, the rejected code's check-digit message, a failure, a queue's cause.
    public var reason: String? {
        switch outcome {
        case let .queued(_, _, reason), let .failed(_, reason), let .held(_, reason), let .rejected(_, _, reason), let .unreadable(reason): reason
        default: nil
        }
    }
}

/// A book as the session knows it after a stage: its ISBN, the title once a lookup found
/// it, and the EAN-5/EAN-2 add-on printed beside the barcode (usually its price: metadata,
/// never the ISBN).
public struct ScannedBook: Sendable, Hashable {
    public var isbn13: ISBN13
    public var title: String?
    public var addOn: AddOn?
    /// How it was read: `.printed` when from the ISBN printed on the book, not its bars.
    public var symbology: Symbology?

    public init(isbn13: ISBN13, title: String? = nil, addOn: AddOn? = nil, symbology: Symbology? = nil) {
        self.isbn13 = isbn13
        self.title = title
        self.addOn = addOn
        self.symbology = symbology
    }

    /// Read from the printed ISBN, not from bars.
    public var isPrinted: Bool { symbology == .printed }
}


extension ScanEvent.Outcome {
    /// The intake's outcome for a scanned book, as this session reports it (the book keeps
    /// its add-on; the title is the one the lookup found).
    init(_ outcome: IntakeOutcome, scanned: ScannedBook) {
        var book = scanned
        book.title = outcome.book?.title ?? scanned.title
        switch outcome {
        case .added: self = .added(book)
        case .alreadyOwned: self = .alreadyOwned(book)
        case let .libraryFull(_, owned, limit): self = .libraryFull(book, owned: owned, limit: limit)
        case let .queued(_, provenance, reason): self = .queued(book, waitingFor: provenance, reason: reason)
        case .notFound: self = .notFound(book)
        case let .failed(_, reason): self = .failed(book, reason: reason)
        // A barcode names its ISBN: never a review or an unmatched reading.
        case .needsReview, .unmatched: self = .failed(book, reason: outcome.reason ?? "\(outcome.kind.rawValue)")
        }
    }
}
