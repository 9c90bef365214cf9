import ArgumentParser
import BookLookup
import Catalogue
import Foundation
import MetadataSources
import Intake

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
                print("  \(SourceDisplayName.replacingIds(in: named))")
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

        Exit status as for a scan of the same books: 0 nothing left pending; 5 some books \
        did not fit (`rapidscan account --pro`, then retry); 3 some lookups are still pending; \
        2 some ISBN is known to no source; 70 the database or config could not be used.
        """)

    @Flag(name: .long, help: "Only retry lookups whose next retry time has come.")
    var dueOnly = false

    @Flag(name: .long, help: "One JSON object per retried ISBN (JSON Lines).")
    var json = false

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        let service = try library.openLookupService()
        let intake = Intake(lookup: service, settings: Intake.Settings(station: try library.stationName()))
        let outcomes = try await intake.retryPending(now: Date(), onlyDue: dueOnly)
        var tally = IntakeTally()
        for (retry, outcome) in outcomes {
            let line = IntakeLine(retry, outcome: outcome)
            if let outcome { tally.count(outcome) }
            if json { try JSONLines.write(line) } else { print("\(BookFormatting.hyphenated(line.isbn13 ?? ""))  \(line.message ?? "")") }
        }
        let remaining = try service.catalogue.pendingLookups().count
        if !json { print("\(outcomes.count) retried, \(remaining) still pending.") }
        fflush(nil)
        // A row kept for a later retry is waiting, whatever this run's outcome for it was.
        if remaining > 0 { tally.count(.queued) }
        try ExitStatus.exit(outcomes: tally.kinds)
    }
}

/// One retried ISBN in the one JSON line vocabulary, for people (`message`) and scripts
/// (the rest): the intake's line plus `status`.
extension IntakeLine {
    init(_ retry: PendingRetryOutcome, outcome: IntakeOutcome?) {
        let isbn13 = retry.isbn.digits
        let title = retry.result.work?.title
        guard let outcome else {
            self.init(event: "found")
            (self.isbn13, self.title, status) = (isbn13, title, "found")
            message = "Found — \(retry.result.work.map(BookFormatting.headline) ?? isbn13)"
            return
        }
        self.init(outcome)
        (self.isbn13, self.title) = (isbn13, title)
        error = nil
        status = outcome.kind == .queued ? "unavailable" : event
        switch outcome {
        case .notFound: message = "\(IntakeWording.title(.notFound)) — no source knows this ISBN; dropped from the queue"
        case .queued(_, let source, let reason): message = "Still queued — \(IntakeWording.queuedBecause(source, reason: reason))"
        case let .libraryFull(_, owned, limit):
            message = "\(IntakeWording.title(.libraryFull)) — \(IntakeWording.libraryFull(owned: owned, limit: limit)) (\(title ?? isbn13) is cached)"
        default: message = "\(IntakeWording.title(outcome.kind)) — \(title ?? outcome.reason ?? "")"
        }
    }
}
