import ArgumentParser
import BookLookup
import Catalogue
import Foundation

/// `rapidscan pending` (list) and `rapidscan pending retry`.
struct PendingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pending",
        abstract: "Lookups waiting for a source to answer (network, quota or server errors).",
        discussion: """
        Examples:
          rapidscan pending
          rapidscan pending retry
        """,
        subcommands: [PendingListCommand.self, PendingRetryCommand.self],
        defaultSubcommand: PendingListCommand.self)
}

struct PendingListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List queued lookups with their reason and next retry time.",
        discussion: """
        Example:
          rapidscan pending list
        """)

    @Flag(name: .long, help: "One JSON object per queued ISBN (JSON Lines).")
    var json = false

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        let catalogue = try library.openCatalogue(try library.settings(), access: .read)
        let rows = try catalogue.pendingLookups()
        if json {
            for row in rows { try JSONLines.write(PendingLine(row)) }
        } else if rows.isEmpty {
            print("No lookups are pending.")
        } else {
            for row in rows {
                let intent = row.intent.addOwned ? "add to library" : "look up"
                print("\(BookFormatting.hyphenated(row.isbn))  \(intent) · \(row.attempts) attempt\(row.attempts == 1 ? "" : "s") · next retry \(Self.time(row.nextRetryAt))")
                // A lookup that asked several sources stores "source: reason; source: reason".
                let named = row.reason.hasPrefix("\(row.source): ") ? row.reason : "\(row.source): \(row.reason)"
                print("  \(named)")
            }
            print("\(rows.count) pending. `rapidscan pending retry` tries them now.")
        }
    }

    /// Local time with its offset, "2026-11-23T09:40:00+01:00" ("…Z" in UTC): a time
    /// without a zone cannot be compared with anything.
    static func time(_ date: Date, in zone: TimeZone = .current) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZoneSeparator: .colon, timeZone: zone))
    }
}

/// One `pending list --json` line: docs/CLI.md's shared names (`isbn13`, times in ISO 8601
/// with zone), not the database row's.
struct PendingLine: Encodable {
    var schema = JSONSchema.version
    var event = "pending"
    var isbn13: String
    var source: String
    var reason: String
    var attempts: Int
    var addOwned: Bool
    var listId: String?
    var queuedAt: String
    var lastAttemptAt: String
    var nextRetryAt: String

    init(_ row: PendingLookup) {
        isbn13 = row.isbn
        source = row.source
        reason = row.reason
        attempts = row.attempts
        addOwned = row.intent.addOwned
        listId = row.intent.listId
        queuedAt = PendingListCommand.time(row.queuedAt)
        lastAttemptAt = PendingListCommand.time(row.lastAttemptAt)
        nextRetryAt = PendingListCommand.time(row.nextRetryAt)
    }
}

struct PendingRetryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract: "Retry queued lookups now; books a scan wanted owned are added to the library.",
        discussion: """
        Examples:
          rapidscan pending retry
          rapidscan pending retry --due-only    (from cron)

        Every queued ISBN is retried (with --due-only, only those whose back-off has \
        passed, for cron jobs). Found books are stored and, when queued by a scan, added as \
        owned; ISBNs no source knows are dropped; the rest stay queued with a longer back-off.

        Here: 0 nothing left pending, 3 some lookups are still pending, 70 the database \
        or config could not be used.
        """)

    @Flag(name: .long, help: "Only retry lookups whose next retry time has come.")
    var dueOnly = false

    @Flag(name: .long, help: "One JSON object per retried ISBN (JSON Lines).")
    var json = false

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        let service = try library.openLookupService()
        let outcomes = await service.retryPending(now: Date(), onlyDue: dueOnly)
        for outcome in outcomes {
            let line = RetryLine(outcome)
            if json { try JSONLines.write(line) } else { print("\(BookFormatting.hyphenated(line.isbn13))  \(line.message)") }
        }
        let remaining = try service.catalogue.pendingLookups().count
        if !json { print("\(outcomes.count) retried, \(remaining) still pending.") }
        fflush(nil)
        if remaining > 0 { throw ExitCode(3) }
    }
}

/// One retried ISBN, for people (`message`) and scripts (the rest).
struct RetryLine: Encodable {
    var schema = JSONSchema.version
    /// Named like the scan events where one exists (`added`, `notFound`…): the status again.
    var event: String
    var isbn13: String
    /// found, added, alreadyOwned, libraryFull, notFound or unavailable.
    var status: String
    var title: String?
    var message: String

    init(_ outcome: PendingRetryOutcome) {
        isbn13 = outcome.isbn.digits
        title = outcome.result.work?.title
        switch (outcome.result, outcome.added) {
        case let (.found(work, _), .added?):
            (status, message) = ("added", "Added to Library — \(work.title)")
        case let (.found(work, _), .alreadyOwned?):
            (status, message) = ("alreadyOwned", "Already in Library — \(work.title)")
        case let (.found(work, _), .libraryFull(owned, limit)?):
            (status, message) = ("libraryFull", "Library Full — \(owned)/\(limit) books. Upgrade to Pro (\(work.title) is cached)")
        case let (.found(work, _), nil):
            (status, message) = ("found", "Found — \(BookFormatting.headline(work))")
        case (.notFound, _):
            (status, message) = ("notFound", "Book Not Found — no source knows this ISBN; dropped from the queue")
        case let (.unavailable(source, reason), _):
            (status, message) = ("unavailable", "Still queued — \(source): \(reason)")
        }
        event = status
    }
}
