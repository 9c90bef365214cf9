import BookCodes
import BookLookup
import Catalogue
import Foundation

/// Where an ISBN entering the library came from: every door names itself, so an outcome can
/// say which photo, file line or command it answers, and a code no source knows is
/// remembered with it (`library notfound`).
public enum IntakeOrigin: Sendable, Hashable {
    /// A barcode read in a frame (`scan`, `watch`), with its symbology and add-on.
    case barcode(file: String, symbology: Symbology, addOn: AddOn?)
    /// A spine matched on a shelf photo (`spines`, `review --accept`), by its place on the shelf.
    case spine(photo: String, position: Int)
    /// A row of an import file.
    case importRow(file: String, line: Int)
    /// An ISBN typed by hand (`library add`).
    case typed
    /// A lookup queued earlier (`pending retry`).
    case pendingRetry
    /// A code no source knew, asked again (`library notfound --retry`); `seenIn` is where it was first met.
    case notFoundRetry(seenIn: String)

    /// The file, file:line or command a not-found code is remembered with.
    public var place: String {
        switch self {
        case let .barcode(file, _, _): file
        case let .spine(photo, _): photo
        case let .importRow(file, line): "\(file):\(line)"
        case .typed: "add"
        case .pendingRetry: "pending retry"
        case let .notFoundRetry(seenIn): seenIn
        }
    }

    public var addOn: AddOn? {
        if case let .barcode(_, _, addOn) = self { return addOn }
        return nil
    }
}

/// A book as the intake knows it after resolving: its ISBN always, the rest once a source
/// or the cache answered.
public struct IntakeBook: Sendable, Hashable {
    public var isbn13: ISBN13
    public var title: String?
    public var authors: [String]
    public var workKey: String?
    /// Where the book was answered (`cache`, a source's name, `manual`).
    public var source: String?
    public var addOn: AddOn?
    /// The library item, once added or found owned.
    public var itemId: String?

    public init(isbn13: ISBN13, title: String? = nil, authors: [String] = [], workKey: String? = nil, source: String? = nil, addOn: AddOn? = nil) {
        self.isbn13 = isbn13
        self.title = title
        self.authors = authors
        self.workKey = workKey
        self.source = source
        self.addOn = addOn
    }

    init(_ isbn: ISBN13, work: Work, source: String?, addOn: AddOn?) {
        self.init(isbn13: isbn, title: work.title, authors: work.authors, workKey: work.workKey, source: source, addOn: addOn)
    }
}

/// What the intake did with one ISBN (or one spine reading): the one outcome every door reports.
public enum IntakeOutcome: Sendable, Hashable {
    case added(IntakeBook)
    case alreadyOwned(IntakeBook)
    /// Not added: the free plan's limit (`owned` of `limit` books).
    case libraryFull(IntakeBook, owned: Int, limit: Int)
    /// No source could answer now; waiting (`pending retry`, or the same `spines` run again).
    case queued(IntakeBook?, waitingFor: LookupProvenance, reason: String)
    /// No source knows the ISBN (remembered for `library notfound`).
    case notFound(IntakeBook)
    /// A spine match not sure enough to add: waits for `review`.
    case needsReview(IntakeBook?, reason: String?)
    /// A spine reading that matched no book.
    case unmatched(reason: String?)
    /// The lookup or the library write failed for a reason that is not "try later".
    case failed(IntakeBook?, reason: String)

    /// The outcome's name: the JSON `event` of every door, and the key of every door's totals.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case added, alreadyOwned, libraryFull, queued, notFound, review, unmatched, failed
    }

    public var kind: Kind {
        switch self {
        case .added: .added
        case .alreadyOwned: .alreadyOwned
        case .libraryFull: .libraryFull
        case .queued: .queued
        case .notFound: .notFound
        case .needsReview: .review
        case .unmatched: .unmatched
        case .failed: .failed
        }
    }

    public var book: IntakeBook? {
        switch self {
        case let .added(book), let .alreadyOwned(book), let .libraryFull(book, _, _), let .notFound(book): book
        case let .queued(book, _, _), let .needsReview(book, _), let .failed(book, _): book
        case .unmatched: nil
        }
    }

    public var reason: String? {
        switch self {
        case let .queued(_, _, reason), let .failed(_, reason): reason
        case let .needsReview(_, reason), let .unmatched(reason): reason
        case let .libraryFull(_, owned, limit): "library full (\(owned) of \(limit) books on the free plan)"
        case .added, .alreadyOwned, .notFound: nil
        }
    }

    /// Final: a re-run need not ask again. Library Full and failures are not (after
    /// `account --pro`, or once the database is back, the same command adds them).
    public var isSettled: Bool { ![.libraryFull, .failed].contains(kind) }

    /// The book is safe in the library or waiting in a queue that will add it: what a door
    /// may mark done (a processed file, an import row, a spine record).
    public var isStored: Bool { [.added, .alreadyOwned, .queued, .notFound, .review, .unmatched].contains(kind) }
}

/// What resolving an ISBN answered, typed for stage "add".
public enum IntakeResolution: Sendable, Hashable {
    case found(Work, by: LookupProvenance)
    case notFound
    case unavailable(LookupProvenance, reason: String)

    /// A `LookupResult` as the intake's answer (offline, whoever was asked, the miss waits for `pending retry`).
    public init(_ result: LookupResult, offline: Bool) {
        switch result {
        case let .found(work, fromCache):
            self = .found(work, by: fromCache ? .cache : .source(work.apiSource))
        case .notFound:
            self = .notFound
        case let .unavailable(source, reason):
            // A database that cannot be read is a failure; offline, every miss waits for `pending retry`.
            self = .unavailable(source == .database ? .database : offline ? .offline : source, reason: reason)
        }
    }
}
