import BookCodes
import BookLookup
import Foundation
import Intake
import MetadataSources

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

    /// A frame where a barcode was seen and could not be read: the photo to take again.
    static let unreadCodeTitle = "Could not read — re-shoot"

    /// Said beside a book read from the ISBN printed on it, not from its bars.
    static let printedISBN = "from the printed ISBN"

    /// The free plan's limit lifted.
    static let upgrade = Hint(arguments: ["account", "--pro"], purpose: "lifts the limit")
    /// Books queued because no source could answer.
    static let retryPending = Hint(arguments: ["pending", "retry"], purpose: "adds the queued books when a source answers")
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

    /// Why books are being queued, in plain words, said once per reason: "Google Books did not
    /// answer (network error: Could not resolve host: www.googleapis.com)". The ids
    /// (`googleBooks`) stay in `--json`.
    static func queuedBecause(_ provenance: LookupProvenance, reason: String) -> String {
        // A reason may already open with the source's id ("googleBooks: timeout"): named once.
        let own = "\(provenance.name): "
        let reason = SourceDisplayName.replacingIds(in: reason.hasPrefix(own) ? String(reason.dropFirst(own.count)) : reason)
        return switch provenance {
        case .offline: "offline (--offline): only books already in the local cache can be added"
        case .database: "the library database could not queue it (\(reason))"
        case .cache, .source: "\(provenance.displayName) did not answer (\(reason))"
        }
    }

    /// How queued books get added: `pending retry` (scan, import, `library add`), or the
    /// running watch itself (`retryEvery`), which also leaves them to `pending retry` after it.
    static func queuedRetry(retryEvery seconds: Int? = nil) -> String {
        guard let seconds else { return "\(retryPending.command) adds the queued books once a source answers" }
        let every = seconds % 60 == 0 ? "\(seconds / 60) min" : "\(seconds) s"
        return "This watch tries the queued books again every \(every) while it runs; after it, \(retryPending.command) adds them"
    }

    /// The note said once per reason before the first toast it explains.
    static func queuedNote(_ provenance: LookupProvenance, reason: String, retryEvery: Int? = nil) -> String {
        "Queued: \(queuedBecause(provenance, reason: reason)). \(queuedRetry(retryEvery: retryEvery))."
    }

    /// "978-0-306-40615-7", the agency's hyphenation (the digits where the range is unknown):
    /// how every human line shows an ISBN; `--json` keeps the 13 digits.
    static func shown(_ isbn: ISBN13) -> String { isbn.hyphenated }

    /// "50 of 50 books on the free plan: `rapidscan account --pro` lifts the limit"
    static func libraryFull(owned: Int, limit: Int) -> String {
        "\(owned) of \(limit) books on the free plan: \(upgrade.text)"
    }
}

extension IntakeOutcome {
    /// "Added to Library: Dune — Frank Herbert (9780441013593)", with the hint for what to do next.
    var humanLine: String {
        let name = book.map { book in
            (book.title.map { "\($0)\(book.authors.isEmpty ? "" : " — " + book.authors.joined(separator: ", ")) (\(IntakeWording.shown(book.isbn13)))" }
                ?? IntakeWording.shown(book.isbn13))
        } ?? ""
        var text = "\(IntakeWording.title(kind)): \(name)"
        switch self {
        case let .libraryFull(_, owned, limit): text += " — " + IntakeWording.libraryFull(owned: owned, limit: limit)
        case let .queued(_, provenance, reason):
            text += " — \(IntakeWording.queuedBecause(provenance, reason: reason)); \(IntakeWording.retryPending.text)"
        case let .notFound(book): text += " — no source knows it; \(IntakeWording.addByHand(book.isbn13).text)"
        case let .failed(_, reason): text += " — \(reason)"
        default: break
        }
        return text
    }

    /// Added or already owned: a success line for stdout; the rest go to stderr.
    var isSuccess: Bool { kind == .added || kind == .alreadyOwned }
}
