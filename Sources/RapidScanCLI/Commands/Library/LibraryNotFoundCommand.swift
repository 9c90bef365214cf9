import ArgumentParser
import BookLookup
import Catalogue
import Foundation
import Intake

/// `rapidscan library notfound [--retry]`: codes no source knew, remembered.
struct LibraryNotFoundCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notfound",
        abstract: "Codes no source knew (from scans, add and import); --retry asks the sources again.",
        discussion: """
        Examples:
          rapidscan library notfound
          rapidscan library notfound --retry

        Add one by hand with `rapidscan library add ISBN --title T --author A`.
        """)

    @Flag(name: .long, help: "Look each one up again; found books are added as owned.")
    var retry = false

    @Flag(name: .long, help: "JSON Lines.")
    var json = false

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        var tally = IntakeTally()
        do {
            let service = try library.openLookupService()
            let catalogue = service.catalogue
            let intake = Intake(lookup: service, settings: Intake.Settings(station: try library.stationName()))
            for row in try catalogue.notFoundCodes() {
                guard let code = parseISBN(row.isbn) else { continue }
                var event = "notFound"
                if retry {
                    // Asked again through the intake; still unknown, the row stays as it was (not seen again).
                    let resolution = await intake.resolve(code)
                    let outcome: IntakeOutcome = if case .notFound = resolution {
                        .notFound(IntakeBook(isbn13: code))
                    } else {
                        intake.add(code, resolution, from: .notFoundRetry(seenIn: row.origin))
                    }
                    if outcome.isSuccess { try catalogue.forgetNotFound(isbn: code) }
                    tally.count(outcome)
                    event = outcome.kind.rawValue
                    if outcome.kind != .notFound {
                        if json { Console.out(try JSONLines.encode(IntakeLine(outcome, file: row.origin))) }
                        else if outcome.isSuccess { Console.out(outcome.humanLine) } else { Console.error(outcome.humanLine) }
                        continue
                    }
                }
                if json {
                    Console.out(try JSONLines.encode(NotFoundLine(event: event, isbn13: row.isbn, file: row.origin, time: row.lastSeenAt, times: row.times)))
                } else {
                    Console.out("not found: \(BookFormatting.hyphenated(row.isbn)) · \(row.origin) · \(row.lastSeenAt.formatted(.iso8601))\(row.times > 1 ? " · seen \(row.times) times" : "")")
                }
            }
        } catch {
            throw LibraryExit.fail(error)
        }
        try ExitStatus.exit(outcomes: tally.kinds)
    }
}

struct NotFoundLine: Encodable {
    var schema = JSONSchema.version
    var event: String
    var isbn13: String
    var file: String
    var time: Date
    var times: Int
}
