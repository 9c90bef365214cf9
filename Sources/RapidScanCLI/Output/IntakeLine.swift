import BookMetadata
import Foundation
import Intake

/// One book's outcome as a JSON line, the one type every door writes (`library add`,
/// `library notfound --retry`, `import`, `pending retry`, `spines`, `review`): the same
/// `event` and field names whichever door it came through (`scan` and `watch` write the
/// same names through `JSONLinesOutput`). A door sets the fields it has; the rest stay out.
struct IntakeLine: Encodable {
    var schema = JSONSchema.version
    /// The intake's name for the outcome (`added`, `queued`…), or a door's own (`badRow`, `found`).
    var event: String
    /// The entry's number in `rapidscan review`.
    var number: Int?
    var file: String?
    var line: Int?
    /// A spine's text as read, its place on the shelf, and how the matcher decided.
    var reading: String?
    var position: Int?
    /// Where the spine lies in its photo: {"width", "height", "corners": four [x, y] in reading order}.
    var box: SpineBox?
    var decision: String?
    var distance: Double?
    var isbn13: String?
    /// `pending retry`: found, added, alreadyOwned, libraryFull, notFound, unavailable or failed.
    var status: String?
    var title: String?
    var authors: [String]?
    var workKey: String?
    var source: String?
    var reason: String?
    /// The same sentence as `reason`, under the name `library add` and `import` used first.
    var error: String?
    var owned: Int?
    var limit: Int?
    /// Owned books a backup's restore refused (library full).
    var count: Int?
    /// A spine reading answered from the reply cache; a `spines --dry-run` add.
    var cached: Bool?
    var dryRun: Bool?
    /// `pending retry`: the line a person reads.
    var message: String?
    var time: Date?

    init(event: String, file: String? = nil, line: Int? = nil) {
        self.event = event
        self.file = file
        self.line = line
    }

    init(_ outcome: IntakeOutcome, file: String? = nil, line: Int? = nil) {
        self.init(event: outcome.kind.rawValue, file: file, line: line)
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
