import ArgumentParser
import BookMetadata
import Pipeline
import BookLookup
import Catalogue
import Foundation
import Intake
import LibraryTransfer
import Synchronization

/// `rapidscan import FILE…`: ISBN lists and other apps' exports into the library.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import ISBN lists and Goodreads, StoryGraph, Libib, LibraryThing, calibre or rapidscan JSON exports.",
        discussion: """
        Example:
          rapidscan import goodreads_library_export.csv

        The format is detected from the content (--format forces it). Rows go through the same \
        lookup as scans: the cache first, then the sources (a few at a time, each source's pace \
        kept); books you own already are reported, the free plan's limit holds, lookups no \
        source can answer now are queued in `pending`. Run the same file again after an \
        interruption: finished rows are skipped and nothing is added twice.

        A rapidscan JSON backup is restored with every field, under the same free-plan limit: \
        owned books past it are refused (one summary line), and the same file restores them \
        after `rapidscan account --pro`.

        Exit status: 0 done, 1 some rows or files could not be used (each named with file:line), \
        5 library full, 3 some lookups queued, 2 some books not found, 70 database error, 130 interrupted.
        """)

    @Argument(help: "Files to import.")
    var files: [String]

    @Option(name: .long, help: "Force the format: \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")).",
            completion: ValueCompletion.importFormat)
    var format: String?

    @Option(name: .long, help: "Lookups in flight at once (1-32).")
    var concurrency = 8

    @Flag(name: .long, help: "Use the local cache only (misses are queued).")
    var offline = false

    @Flag(name: .long, help: "JSON Lines: one object per row, then a summary.")
    var json = false

    /// `--quiet` comes with the shared options (`OutputOptions`).
    var quiet: Bool { library.output.quiet }

    @OptionGroup var library: LibraryOptions

    func validate() throws {
        if let format, ImportFormat(rawValue: format) == nil {
            throw ValidationError("--format must be one of \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")), got '\(format)'.")
        }
        if !(1...32).contains(concurrency) { throw ValidationError("--concurrency must be from 1 to 32, got \(concurrency).") }
    }

    func run() async throws {
        let service: LookupService
        let station: String
        do { service = try library.openLookupService(); station = try library.stationName() } catch { throw LibraryExit.fail(error) }
        let interrupted = InterruptMonitor.process
        var total = ImportSummary()
        var fileErrors = 0
        // The counter redraws with cursor escapes: only where they are allowed (docs/CLI.md).
        let isTerminal = Terminal.allowsEscapes(.standardError) && !json
        for path in files {
            if interrupted.isInterrupted { break }
            do {
                let text = try ImportText(contentsOf: path)
                let detected = try format.flatMap(ImportFormat.init) ?? ImportFormat.detect(text)
                if detected == .rapidscanJSON {
                    let backup = try RapidScanBackup.read(text.wholeText(), file: path)
                    for bad in backup.badRows {
                        if json { if let line = try? JSONLines.encode(IntakeLine.failed(path, bad.description)) { Console.out(line) } }
                        Console.error("rapidscan: \(bad)")
                    }
                    total.badRows += backup.badRows.count
                    let export = backup.export
                    let user = try service.catalogue.user()
                    // Through the intake: the free plan's limit holds for a backup as for every add.
                    let restored = try Intake(lookup: service).restore(LibrarySnapshot(user: user, lists: export.lists, items: export.items, works: export.works, isbnIndex: export.isbnIndex))
                    total.imported += restored.added
                    total.alreadyPresent += restored.alreadyPresent
                    total.libraryFull += restored.libraryFull
                    if !json && !quiet { Console.out("\(OutsideText.shown(path)): restored \(restored.added) books (\(restored.alreadyPresent) already present).") }
                    if restored.libraryFull > 0 {
                        let refused = "\(OutsideText.shown(path)): \(restored.libraryFull) owned books not restored: the library is full (\(IntakeWording.libraryFull(owned: restored.limit, limit: restored.limit)), then import the same file again)"
                        if json { Console.out(try JSONLines.encode(IntakeLine(libraryFull: path, count: restored.libraryFull, limit: restored.limit, error: refused))) }
                        Console.error(refused)
                    }
                    continue
                }
                // Counted in a first read (the rows are not held), where something shows it: the
                // "N rows" line and the progress (not quiet), the free plan's room (not on Pro).
                let counted = try !json && (!quiet || !service.catalogue.user().isPro)
                let done = counted ? try service.catalogue.importedLines(fileHash: text.contentHash, station: station) : []
                let tally = counted ? try detected.tally(text, done: done, shouldStop: { interrupted.isInterrupted }) : ImportTally()
                if !json && !quiet { Console.error("\(OutsideText.shown(path)): \(detected.rawValue), \(text.encoding), \(tally.rows) rows") }
                // The free plan's room, said once before a batch that cannot fit.
                if !json, let room = try FreePlanRoom(service.catalogue, ownedRows: tally.ownedToDo), room.overflows {
                    Console.error("\(OutsideText.shown(path)): \(room.sentence)")
                }
                let importer = Importer(service: service, width: concurrency, offline: offline, station: station)
                let progress = ProgressCounter(total: tally.rows + tally.badRows, enabled: isTerminal && !quiet)
                let json = json, quiet = quiet, verbose = library.output.verbose
                let refused = Mutex(0)
                let summary = try await importer.run(text, format: detected, onEvent: { event in
                    progress.step()
                    if json {
                        if let line = try? JSONLines.encode(IntakeLine(event)) { Console.out(line) }
                    } else if event.kind == .libraryFull && !verbose {
                        // One summary line for the rows the plan refused, not one line each.
                        refused.withLock { $0 += 1 }
                    } else if ImportCommand.isShown(event.kind, quiet: quiet, verbose: verbose) {
                        ImportCommand.printHuman(event, progress: progress)
                    }
                }, shouldStop: { interrupted.isInterrupted })
                progress.finish()
                let refusedRows = refused.withLock { $0 }
                if refusedRows > 0 {
                    let limit = User.freeOwnedLimit
                    Console.error("\(OutsideText.shown(path)): \(refusedRows) \(refusedRows == 1 ? "row" : "rows") not added: the library is full "
                        + "(\(IntakeWording.libraryFull(owned: limit, limit: limit)), then import the same file again)")
                }
                if !summary.listsNotMade.isEmpty {
                    // Said once for the file: the books are in, on their default lists.
                    Console.error("\(OutsideText.shown(path)): shelves kept on the default lists: "
                        + summary.listsNotMade.map { OutsideText.shown($0) }.joined(separator: ", ") + " — \(summary.listsNotMadeReason ?? "not made")")
                }
                if !json, !quiet, !summary.listsMade.isEmpty {
                    Console.out("\(OutsideText.shown(path)): lists made for its shelves: " + summary.listsMade.map { OutsideText.shown($0) }.joined(separator: ", "))
                }
                total.add(summary)
            } catch let error as ImportError {
                fileErrors += 1
                if json { if let line = try? JSONLines.encode(IntakeLine.failed(path, error.description)) { Console.out(line) } }
                Console.error("rapidscan: \(error)")
            } catch let error as CatalogueError {
                // The batch stops: the rows of the chunk that could not be stored are not marked done.
                if let loss = (service.catalogue as? any ServerConnection)?.serverLoss {
                    Console.error("rapidscan: \(OutsideText.shown(path)): \(loss); the rows before are stored and marked done, "
                        + "so the same import run again once the server answers goes on from there (no row is added twice)")
                } else {
                    Console.error("rapidscan: \(service.catalogue.naming("\(error)"))")
                }
                throw ExitStatus.failure
            } catch {
                throw LibraryExit.fail(error)
            }
        }
        if json {
            Console.out(try JSONLines.encode(ImportSummaryLine(total, interrupted: interrupted.isInterrupted, station: station)))
        } else {
            if let owned = try? service.catalogue.ownedCount() { Console.out("\(owned) \(owned == 1 ? "book" : "books") now owned.") }
            Console.out("imported \(total.imported), already present \(total.alreadyPresent), not found \(total.notFound), queued \(total.queued), library full \(total.libraryFull), bad rows \(total.badRows)\(total.skipped > 0 ? ", skipped \(total.skipped) done before" : "")\(interrupted.isInterrupted ? " (interrupted; run again to continue)" : "") at station \(OutsideText.shown(station)).")
        }
        var kinds: [IntakeOutcome.Kind] = []
        if total.notFound > 0 { kinds.append(.notFound) }
        if total.queued > 0 { kinds.append(.queued) }
        if total.libraryFull > 0 { kinds.append(.libraryFull) }
        if total.failed > 0 { kinds.append(.failed) }
        try ExitStatus.exit(outcomes: kinds, inputErrors: total.badRows > 0 || fileErrors > 0, interrupted: interrupted.isInterrupted)
    }

    /// Books added or already owned are listed with --verbose; problems (bad rows, not
    /// found, queued, failed) always, once each, by file:line; --quiet keeps the bad rows.
    static func isShown(_ kind: ImportEvent.Kind, quiet: Bool, verbose: Bool) -> Bool {
        switch kind {
        case .badRow: true
        case .added, .alreadyOwned: verbose
        case .skipped: false
        default: !quiet
        }
    }

    static func printHuman(_ event: ImportEvent, progress: ProgressCounter) {
        let name = event.title.map { "\($0)\(event.authors.map { " — " + $0.joined(separator: ", ") } ?? "")" } ?? event.isbn ?? ""
        // Book outcomes in the intake's words (the same titles as every door); a bad row is import's own.
        switch event.kind {
        case .added: progress.line("\(IntakeWording.title(.added)): \(name)\(event.isbn.map { " (\($0))" } ?? "")", error: false)
        case .alreadyOwned: progress.line("\(IntakeWording.title(.alreadyOwned)): \(name)", error: false)
        case .skipped: break
        case .badRow: progress.line("\(OutsideText.shown(event.file)):\(event.line): \(event.reason ?? "bad row")", error: true)
        default:
            let title = event.kind.intakeKind.map(IntakeWording.title) ?? event.kind.rawValue
            let hint = event.kind.intakeKind.flatMap { IntakeWording.hint($0) }.map { "; \($0.text)" } ?? ""
            progress.line("\(OutsideText.shown(event.file)):\(event.line): \(title): \(name): \(event.reason ?? "")\(hint)", error: true)
        }
    }
}

extension ImportSummary {
    mutating func add(_ other: ImportSummary) {
        imported += other.imported
        alreadyPresent += other.alreadyPresent
        notFound += other.notFound
        queued += other.queued
        libraryFull += other.libraryFull
        badRows += other.badRows
        failed += other.failed
        skipped += other.skipped
        listsMade += other.listsMade
        listsNotMade += other.listsNotMade
        listsNotMadeReason = listsNotMadeReason ?? other.listsNotMadeReason
    }
}

/// Import's rows in the one JSON line vocabulary.
extension IntakeLine {
    init(_ event: ImportEvent) {
        self.init(event: event.kind.rawValue, file: event.file, line: event.line)
        isbn13 = event.isbn
        title = event.title
        authors = event.authors
        workKey = event.workKey
        source = event.source
        reason = event.kind == .badRow ? nil : event.reason
        error = event.reason
        if event.kind == .libraryFull { (owned, limit) = (event.owned, event.limit) }
    }

    /// A backup's owned books refused by the free plan: one line for all of them.
    init(libraryFull file: String, count: Int, limit: Int, error: String) {
        self.init(event: IntakeOutcome.Kind.libraryFull.rawValue, file: file)
        self.count = count
        self.limit = limit
        owned = limit
        reason = error
        self.error = error
    }

    /// A file that could not be imported at all.
    static func failed(_ file: String, _ error: String) -> IntakeLine {
        var line = IntakeLine(event: IntakeOutcome.Kind.failed.rawValue, file: file)
        line.error = error
        return line
    }
}

struct ImportSummaryLine: Encodable {
    var schema = JSONSchema.version
    var event = "summary"
    var imported: Int
    var alreadyPresent: Int
    var notFound: Int
    var queued: Int
    var libraryFull: Int
    var failed: Int
    var badRows: Int
    var skipped: Int
    /// Lists made for the file's shelves, and those that could not be made (their books on the default lists).
    var listsMade: [String]
    var listsNotMade: [String]
    var interrupted: Bool
    var station: String?

    init(_ summary: ImportSummary, interrupted: Bool, station: String? = nil) {
        imported = summary.imported
        alreadyPresent = summary.alreadyPresent
        notFound = summary.notFound
        queued = summary.queued
        libraryFull = summary.libraryFull
        failed = summary.failed
        badRows = summary.badRows
        skipped = summary.skipped
        listsMade = summary.listsMade
        listsNotMade = summary.listsNotMade
        self.interrupted = interrupted
        self.station = station
    }
}

/// `[######--------]  800/2000 rows  41.3/s  ETA 0:29` (scan's `ProgressBar`) redrawn on one
/// stderr line, only on a terminal, at most ten times a second.
final class ProgressCounter: Sendable {
    private struct State {
        var done = 0
        var lastDraw = Date.distantPast
    }
    private let state = Mutex(State())
    private let startedAt = Date()
    let total: Int
    let enabled: Bool

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled
    }

    func step() {
        let now = Date()
        let done: Int? = state.withLock { state in
            state.done += 1
            guard enabled, state.done == total || now.timeIntervalSince(state.lastDraw) >= 0.1 else { return nil }
            state.lastDraw = now
            return state.done
        }
        if let done { draw(done, at: now) }
    }

    private func draw(_ done: Int, at now: Date) {
        let bar = ProgressBar.render(done: done, total: total, elapsed: now.timeIntervalSince(startedAt), unit: "rows")
        StandardStream.standardError.write("\r\u{1B}[2K" + bar)
    }

    /// A line printed above the bar, which is drawn again below it.
    func line(_ text: String, error: Bool) {
        if enabled { StandardStream.standardError.write("\r\u{1B}[2K") }
        if error { Console.error(text) } else { Console.out(text) }
        let done = state.withLock { $0.done }
        if enabled && done > 0 { draw(done, at: Date()) }
    }

    func finish() { if enabled { StandardStream.standardError.write("\r\u{1B}[2K") } }
}

/// How many rows of an import the free plan has room for, before it starts.
struct FreePlanRoom {
    var rows: Int
    var owned: Int
    var limit: Int

    /// nil on Pro (no limit). `ownedRows`: the owned rows not imported by an earlier run.
    init?(_ catalogue: any CatalogueStore, ownedRows: Int) throws {
        guard try !catalogue.user().isPro else { return nil }
        rows = ownedRows
        owned = try catalogue.ownedCount()
        limit = User.freeOwnedLimit
    }

    var room: Int { max(0, limit - owned) }
    /// More rows than room (books already owned among them still fit: they add nothing).
    var overflows: Bool { rows > room }

    /// "2000 books to import; the free plan has room for 12 more (38 of 50 owned): the rest
    /// will not be added. `rapidscan account --pro` lifts the limit"
    var sentence: String {
        "\(rows) \(rows == 1 ? "book" : "books") to import; the free plan has room for \(room) more (\(owned) of \(limit) owned): "
            + "the rest will not be added (books you already own still count as present). \(IntakeWording.upgrade.text)"
    }
}

extension ImportCommand: FinishesOnInterrupt {}
