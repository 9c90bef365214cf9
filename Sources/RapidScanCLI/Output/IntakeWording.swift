import BookCodes
import Foundation
import Intake

/// The one wording table of intake outcomes: the toast title every door prints for an
/// outcome, and the hint that says what to do next. Every hint is a command that exists
/// (`IntakeWordingTests` runs each through the real binary).
enum IntakeWording {
    static func title(_ kind: IntakeOutcome.Kind) -> String {
        switch kind {
        case .added: "Added to Library"
        case .alreadyOwned: "Already in Library"
        case .libraryFull: "Library Full"
        case .queued: "Queued"
        case .notFound: "Book Not Found"
        case .review: "Needs Review"
        case .unmatched: "No Match"
        case .failed: "Failed"
        }
    }

    /// A command to run next, as its words (the test runs them) and as printed.
    struct Hint: Sendable, Hashable {
        var arguments: [String]
        var purpose: String
        var command: String { "`" + (["rapidscan"] + arguments).joined(separator: " ") + "`" }
        var text: String { "\(command) \(purpose)" }
    }

    /// Said beside a book read from the ISBN printed on it, not from its bars.
    static let printedISBN = "from the printed ISBN"

    /// The free plan's limit lifted.
    static let upgrade = Hint(arguments: ["account", "--pro"], purpose: "lifts the limit")
    /// Books queued because no source could answer.
    static let retryPending = Hint(arguments: ["pending", "retry"], purpose: "adds it when a source answers")
    /// Spine matches kept back.
    static let review = Hint(arguments: ["review"], purpose: "shows the matches to accept or reject")
    /// A code no source knows, added by hand.
    static func addByHand(_ isbn: ISBN13) -> Hint {
        Hint(arguments: ["library", "add", isbn.digits, "--title", "TITLE", "--author", "AUTHOR"], purpose: "adds it by hand")
    }

    /// The hint for an outcome, if it has one.
    static func hint(_ kind: IntakeOutcome.Kind, isbn: ISBN13? = nil) -> Hint? {
        switch kind {
        case .libraryFull: upgrade
        case .queued: retryPending
        case .review: review
        case .notFound: isbn.map(addByHand)
        case .added, .alreadyOwned, .unmatched, .failed: nil
        }
    }

    /// Every hint, for the test that runs them.
    static func allHints(sample isbn: ISBN13) -> [Hint] { [upgrade, retryPending, review, addByHand(isbn)] }

    /// "50 of 50 books on the free plan: `rapidscan account --pro` lifts the limit"
    static func libraryFull(owned: Int, limit: Int) -> String {
        "\(owned) of \(limit) books on the free plan: \(upgrade.text)"
    }
}

/// One intake outcome as a JSON line: the same `event` and field names whichever door it
/// came through (`scan` writes the same names through `JSONLinesOutput`).
struct IntakeLine: Encodable {
    var schema = JSONSchema.version
    var event: String
    var file: String?
    var line: Int?
    var isbn13: String?
    var title: String?
    var authors: [String]?
    var workKey: String?
    var source: String?
    var reason: String?
    /// The same sentence as `reason`, under the name `library add` and `import` used first.
    var error: String?
    var owned: Int?
    var limit: Int?

    init(_ outcome: IntakeOutcome, file: String? = nil, line: Int? = nil) {
        event = outcome.kind.rawValue
        self.file = file
        self.line = line
        let book = outcome.book
        isbn13 = book?.isbn13.digits
        title = book?.title
        authors = book.flatMap { $0.authors.isEmpty ? nil : $0.authors }
        workKey = book?.workKey
        source = book?.source
        reason = outcome.reason
        error = outcome.reason
        if case let .libraryFull(_, owned, limit) = outcome { (self.owned, self.limit) = (owned, limit) }
    }
}

extension IntakeOutcome {
    /// "Added to Library: Dune — Frank Herbert (9780441013593)", with the hint for what to do next.
    var humanLine: String {
        let name = book.map { book in
            (book.title.map { "\($0)\(book.authors.isEmpty ? "" : " — " + book.authors.joined(separator: ", ")) (\(book.isbn13.digits))" }
                ?? book.isbn13.digits)
        } ?? ""
        var text = "\(IntakeWording.title(kind)): \(name)"
        switch self {
        case let .libraryFull(_, owned, limit): text += " — " + IntakeWording.libraryFull(owned: owned, limit: limit)
        case let .queued(_, provenance, reason): text += " — \(provenance) could not answer (\(reason)); \(IntakeWording.retryPending.text)"
        case let .notFound(book): text += " — no source knows it; \(IntakeWording.addByHand(book.isbn13).text)"
        case let .failed(_, reason): text += " — \(reason)"
        default: break
        }
        return text
    }

    /// Added or already owned: a success line for stdout; the rest go to stderr.
    var isSuccess: Bool { kind == .added || kind == .alreadyOwned }
}
