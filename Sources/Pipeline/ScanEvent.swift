import BookCodes
import Foundation

/// Stage "output", its input: one thing that happened to one frame or one code in it.
public struct ScanEvent: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case added, alreadyOwned, notFound, libraryFull, queued
        /// A valid retail code that is not a book (not looked up).
        case nonBook
        /// A code whose check digit failed.
        case rejected
        /// A repeat inside the debounce window.
        case debounced
        /// A file that could not be read or decoded as an image.
        case unreadable
        /// A readable frame with no barcode in it (normal for webcam frames).
        case noCode
        /// A watched frame skipped because newer frames were waiting (latency over backlog).
        case dropped
        /// The lookup or the library write failed for a reason that is not "try later".
        case failed
    }

    public var kind: Kind
    /// The frame's path as given (or as found under a given folder).
    public var file: String
    public var captureTime: Date
    public var isbn13: String?
    /// The code as printed (non-book products, rejected codes).
    public var code: String?
    /// "EAN-13", "UPC-A"… for non-book and rejected codes.
    public var symbology: String?
    public var title: String?
    /// The EAN-5/EAN-2 add-on printed beside a book's ISBN (usually its price): metadata, never the ISBN.
    public var addOn: AddOn?
    /// The source a queued lookup waits for ("googleBooks", "openLibrary", "offline").
    public var source: String?
    /// Why: the unreadable file's error, the rejected code's check-digit message, a failure.
    public var reason: String?
    /// Library Full: owned books and the plan's limit.
    public var owned: Int?
    public var limit: Int?

    public init(
        _ kind: Kind, file: String, captureTime: Date, isbn13: String? = nil, code: String? = nil,
        symbology: String? = nil, title: String? = nil, source: String? = nil, reason: String? = nil,
        owned: Int? = nil, limit: Int? = nil
    ) {
        self.kind = kind
        self.file = file
        self.captureTime = captureTime
        self.isbn13 = isbn13
        self.code = code
        self.symbology = symbology
        self.title = title
        self.source = source
        self.reason = reason
        self.owned = owned
        self.limit = limit
    }

    /// The toast a person sees: the seed's titles and subtitles.
    public var toast: (title: String, subtitle: String) {
        let book = title ?? isbn13.map { "ISBN \($0)" } ?? ""
        let printed = [symbology, code].compactMap { $0 }.joined(separator: " ")
        switch kind {
        case .added: return ("Added to Library", book)
        case .alreadyOwned: return ("Already in Library", book)
        case .notFound: return ("Book Not Found", "Try scanning again" + (isbn13.map { " (ISBN \($0))" } ?? ""))
        case .libraryFull:
            return ("Library Full", "\(owned ?? 0)/\(limit ?? 0) books. Upgrade to Pro" + (isbn13.map { " (ISBN \($0) not added)" } ?? ""))
        case .queued:
            let when = source == "offline" ? "offline: `rapidscan pending retry` adds it when online"
                                           : "will retry when \(source ?? "the lookup service") answers"
            return ("Queued", when + (isbn13.map { " (ISBN \($0))" } ?? ""))
        case .nonBook: return ("Not a Book", "\(printed) is a product code, not looked up")
        case .rejected: return ("Rejected", "\(printed): \(reason ?? "bad check digit")")
        case .debounced: return ("Repeat Skipped", "\(isbn13.map { "ISBN \($0)" } ?? printed) seen moments ago")
        case .unreadable: return ("Unreadable", reason ?? "could not be read")
        case .noCode: return ("No Barcode", "")
        case .dropped: return ("Dropped", "newer frames were waiting")
        case .failed: return ("Failed", [book, reason ?? ""].filter { !$0.isEmpty }.joined(separator: ": "))
        }
    }
}
