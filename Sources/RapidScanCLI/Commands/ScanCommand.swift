import ArgumentParser
import BarcodeReading
import BookLookup
import Catalogue
import Foundation
import Intake
import Imaging
import MetadataSources
import Pipeline
import PrintedISBN
import RapidScanConfig

struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Read book barcodes from photos and folders and add the books to your library.",
        discussion: """
        Examples:
          rapidscan scan ~/Pictures/books
          rapidscan scan --json IMG_2041.jpg IMG_2042.jpg

        Each image (JPEG, PNG, WebP, HEIC/HEIF/AVIF, PGM/PPM; folders are walked recursively) is decoded on all \
        cores; in capture order (a timestamp in the file name such as \
        IMG_20261122_101530.jpg, frame-20261122-101530.250.jpg, 2026-11-22_10-15-30.jpg or \
        epoch milliseconds, else the file's modification time) \
        each code is validated, debounced (--debounce, default 3s), looked up (local cache, \
        then Google Books, then Open Library) and the book added as owned: "Added to Library", \
        "Already in Library", "Library Full" (free plan: 50 books), "Book Not Found", or \
        "Queued" when no source can answer now (`rapidscan pending retry` adds it later). \
        Files already processed by an earlier run are skipped (--rescan reads them again), so \
        an interrupted run continues where it stopped. Ctrl-C finishes the frames in flight, \
        prints the summary and exits 130.

        --json prints one JSON object per event (event: added, alreadyOwned, notFound, \
        libraryFull, queued, nonBook, rejected, debounced, unreadable, noCode, unreadCode, \
        failed) with file, captureTime, isbn13, title and addon (a price add-on) where known, \
        then a summary object. unreadCode is a photo where a barcode was seen and could not \
        be read: the summary lists these files as "Could not read — re-shoot", apart from \
        the photos without a barcode.

        In this command: \(SessionExitStatus.help)
        """
    )

    @OptionGroup var session: SessionOptions

    @Argument(help: "Image files or folders to scan.", completion: .file())
    var paths: [String]

    @Flag(help: "Read files an earlier run already processed.")
    var rescan = false

    @Flag(help: "Only plain scans: skip the image tricks tried when a photo shows no code.")
    var fast = false

    func run() async throws {
        // The progress bar redraws in place: cursor escapes, so only where they are allowed.
        let context = try session.openContext(liveDisplay: Terminal.allowsEscapes(.standardError) ? .progressBar : .none)
        let scan = ScanSession(
            options: .init(paths: paths.map { URL(fileURLWithPath: $0) }, rescan: rescan, rawFormat: session.rawFrameFormat),
            catalogue: context.catalogue,
            decoder: ParallelBatchDecoder(workers: session.workerCount, options: session.scanOptions(thorough: !fast),
                                          followUp: PrintedISBNFollowUp.factory(effort: session.scanOptions(thorough: !fast).effort)))
        let interrupt = InterruptMonitor.process
        let summary = await scan.run(pipeline: context.pipeline, output: context.output, interrupt: interrupt)
        throw SessionExitStatus.exitCode(for: summary)
    }
}

/// Options shared by `scan` and `watch`.
struct SessionOptions: ParsableArguments {
    @Flag(help: "Print JSON Lines events instead of toasts.")
    var json = false

    @OptionGroup var library: LibraryOptions

    @Option(help: "The list to add books to, by id or name (default: Want to Read).", completion: ValueCompletion.listNames)
    var list: String?

    @Flag(help: "Do not use the network: books not in the local cache are queued for `rapidscan pending retry`.")
    var offline = false

    @Option(help: "Skip repeats of a code for this long after it is accepted (e.g. 3s, 2.5, 500ms).", transform: { text in
        // Parsed once, here: a bad value is a usage error, never a silent fallback.
        do { return try DurationText.seconds(from: text) } catch { throw ValidationError("--debounce: \(error)") }
    })
    var debounce: TimeInterval = Debouncer.defaultWindow

    @Option(help: "Decode threads (default: one per core).")
    var workers: Int?

    @Option(help: ArgumentHelp(RawFrameSyntax.help, valueName: RawFrameSyntax.valueName), transform: RawFrameSyntax.parse)
    var rawFrame: RawFrameFormat?

    // The older spelling, `--raw-format yuyv --size 1280x720`: still read, no longer shown.
    @Option(name: .customLong("raw-format"), help: ArgumentHelp("Use --raw-frame FORMAT:WxH.", visibility: .hidden))
    var rawLayout: String?

    @Option(name: .customLong("size"), help: ArgumentHelp("Use --raw-frame FORMAT:WxH.", visibility: .hidden))
    var rawSize: String?

    var workerCount: Int { workers ?? ProcessInfo.processInfo.activeProcessorCount }

    func validate() throws {
        if let workers, workers < 1 { throw ValidationError("--workers must be at least 1, not \(workers)") }
        _ = try parsedRawFormat()
    }

    /// `--raw-frame yuyv:1280x720`, or the older `--raw-format yuyv --size 1280x720`.
    func parsedRawFormat() throws -> RawFrameFormat? {
        if let rawFrame {
            if rawLayout != nil || rawSize != nil { throw ValidationError("--raw-frame replaces --raw-format and --size; give only --raw-frame") }
            return rawFrame
        }
        guard let rawLayout else {
            if rawSize != nil { throw ValidationError("--size needs --raw-format; write --raw-frame FORMAT:WxH instead") }
            return nil
        }
        return try RawFrameSyntax.parse("\(rawLayout):\(rawSize ?? "")")
    }

    var rawFrameFormat: RawFrameFormat? { try? parsedRawFormat() }

    func scanOptions(thorough: Bool) -> ScanOptions {
        ScanOptions(rawFormat: rawFrameFormat, thorough: thorough)
    }

    struct Context {
        let catalogue: any CatalogueStore
        let pipeline: SessionPipeline
        let output: any EventOutput
    }

    /// Settings → database → sources → the session's stages after decode, and the output.
    /// `retryEvery`: a watch retrying its queue itself (the queued note says so). `journal`: a
    /// watch on a library server holds the books it confirms while the server is away in
    /// this station's journal (`XDGPaths.watchJournal`).
    func openContext(liveDisplay: HumanOutput.Live, retryEvery: TimeInterval? = nil, journal: Bool = false) throws -> Context {
        let (settings, catalogue) = try library.openForSession()
        let station = LibraryOptions.station(settings)
        var watchJournal: WatchJournal?
        if journal, catalogue is any ServerConnection {
            do {
                watchJournal = try WatchJournal(path: XDGPaths().watchJournal(station: station), library: catalogue.location)
            } catch {
                // The watch still runs; only a lost server's books cannot be held.
                Console.error("rapidscan: warning: \(error); books read while the library's server is away are reported failed")
            }
        }
        let listId = try list.map { try Self.resolveList($0, in: catalogue) }
        // A few network lookups at once: the others wait, so they see the breaker's verdict
        // on the ones before them instead of all queuing up behind a dead network.
        let service = LookupService(catalogue: catalogue, sources: MetadataSources.make(settings: settings).filter { !offline || $0.isLocal },
                                    concurrentNetworkLookups: 4)
        let verbosity = library.output
        let detail: HumanOutput.Detail = verbosity.quiet ? .quiet : verbosity.verbose ? .verbose : .normal
        let output: any EventOutput = json
            ? JSONLinesOutput(quiet: verbosity.quiet) : HumanOutput(live: liveDisplay, detail: detail, colour: Terminal.toastColour(),
                                                                    retryEvery: retryEvery.map { Int($0.rounded()) })
        let pipeline = SessionPipeline(
            catalogue: catalogue, lookup: service,
            settings: .init(debounceWindow: debounce, offline: offline, listId: listId, station: station), output: output,
            journal: watchJournal)
        return Context(catalogue: catalogue, pipeline: pipeline, output: output)
    }

    /// A list id, or a list name compared case-insensitively ("want to read").
    static func resolveList(_ text: String, in catalogue: any CatalogueStore) throws -> String {
        let lists = (try? catalogue.lists()) ?? []
        if let match = lists.first(where: { $0.id == text })
            ?? lists.first(where: { $0.name.caseInsensitiveCompare(text) == .orderedSame }) {
            return match.id
        }
        let known = lists.map(\.name).joined(separator: ", ")
        throw ValidationError("--list: no list '\(text)'; lists: \(known)")
    }
}

extension LibraryOptions {
    /// Settings and the library database; a problem with either is exit status 70 with its message.
    func openForSession(access: LibraryAccess = .write) throws -> (RapidScanSettings, any CatalogueStore) {
        do {
            let settings = try settings()
            return (settings, try openCatalogue(settings, access: access))
        } catch {
            throw SessionExitStatus.fail("\(error)")
        }
    }
}

/// Exit statuses of `scan` and `watch`: rows of the one table (`ExitStatus`); the most
/// serious applies.
enum SessionExitStatus {
    static let ok: Int32 = ExitStatus.success.rawValue
    static let unreadable: Int32 = ExitStatus.inputError.rawValue
    static let notFound: Int32 = ExitStatus.notFound.rawValue
    static let queued: Int32 = ExitStatus.queued.rawValue
    static let libraryFull: Int32 = ExitStatus.libraryFull.rawValue
    static let failure: Int32 = ExitStatus.failure.rawValue
    static let interrupted: Int32 = InterruptMonitor.exitStatus

    static let help = """
        0 every file was read and every book settled (added, already owned, not a book); \
        1 some file could not be read; 2 some code is known to no source (remembered: \
        `rapidscan library notfound`); 3 some books were queued for `rapidscan pending \
        retry`; 5 some books were not added because the library is full; 70 the database \
        could not be opened or written; 64 bad usage; 130 interrupted (Ctrl-C or SIGTERM). \
        When several apply: 130, 70, 1, 5, 3, 2.
        """

    /// Prints `message` on stderr and returns the exit status to throw.
    static func fail(_ message: String, status: Int32 = failure) -> ExitCode {
        Console.error("rapidscan: \(message)")
        return ExitCode(status)
    }

    static func exitCode(for summary: SessionSummary) -> ExitCode {
        let t = summary.totals
        // The books' outcomes, as every door reports them; the one policy picks the status.
        // A book still held in the watch's journal: the library could not be written, nothing is lost.
        let outcomes: [(Int, IntakeOutcome.Kind)] = [(t.failed + t.held, .failed), (t.libraryFull, .libraryFull), (t.queued, .queued), (t.notFound, .notFound)]
        return ExitStatus.status(outcomes: outcomes.filter { $0.0 > 0 }.map(\.1), inputErrors: t.unreadable > 0, interrupted: summary.interrupted)
    }
}

extension ScanCommand: FinishesOnInterrupt {}
