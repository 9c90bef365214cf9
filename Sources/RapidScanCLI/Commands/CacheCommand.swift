import ArgumentParser
import Catalogue
import Foundation

/// `rapidscan cache stats` (and the hidden `cache bench` used by scripts/bench-lookup).
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "The local work/ISBN cache.",
        discussion: """
        Example:
          rapidscan cache stats
        """,
        subcommands: [CacheStatsCommand.self, CacheBenchCommand.self],
        defaultSubcommand: CacheStatsCommand.self)
}

struct CacheStatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Counts of works, editions, owned books and pending lookups, and the database size.",
        discussion: """
        Examples:
          rapidscan cache stats
          rapidscan cache stats --json
        """)

    @Flag(name: .long, help: "Print one JSON object.")
    var json = false

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        let catalogue = try library.openCatalogue(try library.settings(), access: .read)
        let stats = try catalogue.stats()
        if json {
            try JSONLines.write(StatsLine(database: catalogue.location, stats: stats))
            return
        }
        print("database       \(catalogue.location)")
        print("works          \(stats.works)")
        print("editions       \(stats.editions)")
        print("isbnIndex rows \(stats.isbnIndexEntries)")
        print("owned books    \(stats.ownedItems) (of \(stats.items) items)")
        print("pending        \(stats.pendingLookups)")
        print("processed files \(stats.processedFiles)")
        print("size           \(ByteCountFormatter.string(fromByteCount: stats.databaseBytes, countStyle: .file))")
    }
}

struct StatsLine: Encodable {
    var schema = JSONSchema.version
    var event = "stats"
    var database: String
    var stats: CacheStats
}
