import ArgumentParser
import BookMetadata
import Catalogue
import Foundation
import RapidScanConfig

/// `rapidscan database copy FROM TO`: a whole library (every table, ids, dates and stations
/// kept) from a SQLite file or PostgreSQL URL to another, either way. The target is written
/// in one transaction, so a failure leaves it as it was; a target that already holds a
/// library is refused unless `--replace` says to overwrite it.
struct DatabaseCopyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy a whole library between a SQLite file and a PostgreSQL database (either way).",
        discussion: """
        Every table is copied as it is: works and ISBN index, items and lists, the user and plan, pending lookups,
        the scanned files and import rows each station has finished with (so a re-run still resumes), spine
        readings and not-found codes. Ids and dates are kept. The target is written in one transaction: if the copy
        fails, the target is left as it was.

        Examples:
          rapidscan database copy ~/.local/share/rapidscan/library.sqlite postgresql://scanner@db.local/library
          rapidscan database copy postgresql://scanner@db.local/library backup.sqlite
          rapidscan database copy library.sqlite postgresql://scanner@db.local/library --replace
        """)

    @Argument(help: ArgumentHelp("The library to copy: a SQLite file or a postgresql:// URL.", valueName: "from"))
    var from: String

    @Argument(help: ArgumentHelp("Where to copy it: a SQLite file (created if missing) or a postgresql:// URL.", valueName: "to"))
    var to: String

    @Flag(name: .long, help: "Overwrite a target that already holds a library (its books, lists and queues are replaced).")
    var replace = false

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        do {
            let settings = try library.settings()
            let source = try open(from, settings, isSource: true)
            let target = try open(to, settings, isSource: false)
            guard source.location != target.location else {
                throw CopyRefusal(message: "\(source.location) is both FROM and TO: name two different libraries")
            }
            guard let sourceStore = source as? any WholeCatalogueStore, let targetStore = target as? any WholeCatalogueStore else {
                throw CopyRefusal(message: "this library cannot be copied whole")
            }
            if !replace, try targetStore.holdsLibrary() {
                throw CopyRefusal(message: "\(target.location) already holds a library; nothing was copied. "
                                  + "To overwrite it with \(source.location), add --replace")
            }
            let contents = try sourceStore.contents()
            // A copy without the values that cannot be read would pass for the whole library: none is written.
            let damaged = source.damage.found.count
            guard damaged == 0 else {
                throw CopyRefusal(message: "\(damaged) stored value\(damaged == 1 ? "" : "s") of \(source.location) cannot be read (named above); "
                                  + "nothing was copied. Repair or remove those rows, then copy again")
            }
            let quiet = library.output.quiet
            let drawing = !quiet && StandardStream.standardError.isTerminal
            let bar = CopyProgressBar(total: contents.rowCount, tables: contents.tables, enabled: drawing)
            try targetStore.replaceContents(with: contents) { bar.show($0) }
            bar.finish()
            let counts = contents.tables.filter { $0.rows > 0 }.map { "\($0.rows) \($0.name)" }.joined(separator: ", ")
            print("Copied \(source.location) to \(target.location): \(contents.rowCount) rows (\(counts.isEmpty ? "empty library" : counts)); ids and dates kept.")
        } catch let refusal as CopyRefusal {
            Console.error("rapidscan: \(refusal)")
            throw ExitStatus.inputError
        } catch {
            throw LibraryExit.fail(error)
        }
    }

    /// A library by path or URL, as `--db` would open it; a source file must exist (opening
    /// would otherwise create an empty one and copy nothing).
    private func open(_ location: String, _ settings: RapidScanSettings, isSource: Bool) throws -> any CatalogueStore {
        var settings = settings
        settings.database = location
        if isSource, !DatabaseURL.isURL(location), !FileManager.default.fileExists(atPath: location) {
            throw CopyRefusal(message: "\(OutsideText.shown(location)): no such library file to copy from")
        }
        return try library.openCatalogue(settings, access: isSource ? .read : .write)
    }
}

struct CopyRefusal: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// The copy's progress on a terminal: rows written of all, and the table being written.
final class CopyProgressBar: Sendable {
    let total: Int
    let enabled: Bool
    /// Rows of the tables before each one.
    private let before: [String: Int]
    private let startedAt = Date()

    init(total: Int, tables: [(name: String, rows: Int)], enabled: Bool) {
        self.total = total
        self.enabled = enabled
        var before: [String: Int] = [:]
        var sum = 0
        for table in tables {
            before[table.name] = sum
            sum += table.rows
        }
        self.before = before
    }

    func show(_ progress: CopyProgress) {
        guard enabled, total > 0 else { return }
        let done = (before[progress.table] ?? 0) + progress.done
        let bar = ProgressBar.render(done: done, total: total, elapsed: Date().timeIntervalSince(startedAt), unit: "rows")
        StandardStream.standardError.write("\r\u{1B}[2K" + bar + " " + progress.table)
    }

    func finish() {
        if enabled && total > 0 { StandardStream.standardError.write("\r\u{1B}[2K") }
    }
}
