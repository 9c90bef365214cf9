import ArgumentParser
import BookMetadata
import Catalogue
import Foundation

/// `rapidscan database`: which catalogue this station uses (`show`, the default), and
/// `database copy` to move a whole library between a SQLite file and a PostgreSQL server.
struct DatabaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "database",
        abstract: "Which library is in use, its schema version and what it holds; copy a whole library.",
        discussion: """
        Examples:
          rapidscan database
          rapidscan database --json
          rapidscan database copy ~/.local/share/rapidscan/library.sqlite postgresql://scanner@db.local/library
        """,
        subcommands: [DatabaseShowCommand.self, DatabaseCopyCommand.self],
        defaultSubcommand: DatabaseShowCommand.self)
}

/// `rapidscan database show`: which catalogue this station uses, its schema version and counts.
struct DatabaseShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Which library is in use, its schema version and what it holds.",
        discussion: """
        Examples:
          rapidscan database
          rapidscan database show --json
          rapidscan database show --db postgresql://scanner@db.local/library
        """)

    @Flag(name: .long, help: "Print one JSON object.")
    var json = false

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        do {
            let settings = try library.settings()
            let catalogue = try library.openCatalogue(settings, access: .read)
            let stats = try catalogue.stats()
            let version = try catalogue.schemaVersion()
            let station = LibraryOptions.station(settings)
            if json {
                try JSONLines.write(DatabaseLine(database: catalogue.location, schemaVersion: version,
                                                 current: version == catalogue.latestSchemaVersion, station: station, stats: stats))
                return
            }
            print("database        \(catalogue.location)")
            let latest = catalogue.latestSchemaVersion
            print("schema          \(version)\(version == latest ? " (current)" : " (this rapidscan's is \(latest))")")
            print("station         \(OutsideText.shown(station))")
            print("works           \(stats.works) (\(stats.isbnIndexEntries) ISBNs indexed)")
            print("owned books     \(stats.ownedItems) (of \(stats.items) items)")
            print("pending         \(stats.pendingLookups)")
            print("processed files \(stats.processedFiles)")
        } catch {
            throw LibraryExit.fail(error)
        }
    }
}

struct DatabaseLine: Encodable {
    var schema = JSONSchema.version
    var event = "database"
    var database: String
    var schemaVersion: String
    var current: Bool
    var station: String
    var stats: CacheStats
}
