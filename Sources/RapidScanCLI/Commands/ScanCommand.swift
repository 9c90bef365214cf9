import ArgumentParser
import BarcodeReading
import BookLookup
import Catalogue
import Foundation
import Imaging
import MetadataSources
import Pipeline
import RapidScanConfig

struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Read book barcodes from photos and folders and add the books to your library.",
        discussion: """
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
        libraryFull, queued, nonBook, rejected, debounced, unreadable, noCode, failed) with \
        file, captureTime, isbn13, title and addon (a price add-on) where known, then a \
        summary object.

        Exit status: \(SessionExitStatus.help)
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
        let context = try session.openContext(liveDisplay: OutputStream.standardError.isTerminal ? .progressBar : .none)
        let scan = ScanSession(
            options: .init(paths: paths.map { URL(fileURLWithPath: $0) }, rescan: rescan, rawFormat: session.rawFrameFormat),
            catalogue: context.catalogue,
            decoder: ParallelBatchDecoder(workers: session.workerCount, options: session.scanOptions(thorough: !fast)))
        let interrupt = InterruptMonitor.process
        let summary = await scan.run(processor: context.processor, output: context.output, interrupt: interrupt)
        throw SessionExitStatus.exitCode(for: summary)
    }
}

/// Options shared by `scan` and `watch`.
struct SessionOptions: ParsableArguments {
    @Flag(help: "Print JSON Lines events instead of toasts.")
    var json = false

    @OptionGroup var library: LibraryOptions

    @Option(help: "The list to add books to, by id or name (default: Want to Read).")
    var list: String?

    @Flag(help: "Do not use the network: books not in the local cache are queued for `rapidscan pending retry`.")
    var offline = false

    @Option(help: "Skip repeats of a code for this long after it is accepted (e.g. 3s, 2.5, 500ms).")
    var debounce = "3s"

    @Option(help: "Decode threads (default: one per core).")
    var workers: Int?

    @Option(name: .customLong("raw-format"), help: ArgumentHelp(
        "Read headerless frames (.yuv, .y800, .grey, .raw) as this layout: yuyv or grey (needs --size).",
        valueName: "layout"))
    var rawLayout: String?

    @Option(name: .customLong("size"), help: ArgumentHelp("Width and height of headerless frames, e.g. 1280x720.", valueName: "WxH"))
    var rawSize: String?

    var workerCount: Int { workers ?? ProcessInfo.processInfo.activeProcessorCount }

    func validate() throws {
        do { _ = try DurationText.seconds(from: debounce) } catch { throw ValidationError("--debounce: \(error)") }
        if let workers, workers < 1 { throw ValidationError("--workers must be at least 1, not \(workers)") }
        _ = try parsedRawFormat()
    }

    /// `--raw-format yuyv --size 1280x720` → `.yuyv(width: 1280, height: 720)`.
    func parsedRawFormat() throws -> RawFrameFormat? {
        guard let rawLayout else {
            if rawSize != nil { throw ValidationError("--size needs --raw-format (yuyv or grey)") }
            return nil
        }
        let parts = (rawSize ?? "").lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts.allSatisfy({ $0 > 0 }) else {
            throw ValidationError("--raw-format needs --size WIDTHxHEIGHT, e.g. --size 1280x720 (got '\(rawSize ?? "")')")
        }
        switch rawLayout.lowercased() {
        case "yuyv", "yuy2": return .yuyv(width: parts[0], height: parts[1])
        case "grey", "gray", "y800": return .y800(width: parts[0], height: parts[1])
        default: throw ValidationError("--raw-format: '\(rawLayout)' is not a frame layout; use yuyv or grey")
        }
    }

    var rawFrameFormat: RawFrameFormat? { try? parsedRawFormat() }

    func scanOptions(thorough: Bool) -> ScanOptions {
        ScanOptions(rawFormat: rawFrameFormat, thorough: thorough)
    }

    struct Context {
        let catalogue: Catalogue
        let processor: SessionProcessor
        let output: any EventOutput
    }

    /// Settings → database → sources → the stages after decode, and the output.
    func openContext(liveDisplay: HumanOutput.Live) throws -> Context {
        let (settings, catalogue) = try library.openForSession()
        let listId = try list.map { try Self.resolveList($0, in: catalogue) }
        let service = LookupService(catalogue: catalogue, sources: offline ? [] : MetadataSources.make(settings: settings))
        let output: any EventOutput = json ? JSONLinesOutput() : HumanOutput(live: liveDisplay)
        let processor = SessionProcessor(
            debounceWindow: (try? DurationText.seconds(from: debounce)) ?? Debouncer.defaultWindow,
            lookup: LookupStage(service: service, offline: offline, listId: listId),
            library: LibraryStage(catalogue: catalogue, listId: listId), output: output)
        return Context(catalogue: catalogue, processor: processor, output: output)
    }

    /// A list id, or a list name compared case-insensitively ("want to read").
    static func resolveList(_ text: String, in catalogue: Catalogue) throws -> String {
        let lists = (try? catalogue.lists()) ?? []
        if let match = lists.first(where: { $0.id == text })
            ?? lists.first(where: { $0.name.caseInsensitiveCompare(text) == .orderedSame }) {
            return match.id
        }
        let known = lists.map { "\($0.name) (\($0.id))" }.joined(separator: ", ")
        throw ValidationError("--list: no list '\(text)'; lists: \(known)")
    }
}

extension LibraryOptions {
    /// Settings and the library database; a problem with either is exit status 70 with its message.
    func openForSession() throws -> (RapidScanSettings, Catalogue) {
        do {
            let settings = try settings()
            return (settings, try openCatalogue(settings))
        } catch {
            throw SessionExitStatus.fail("\(error)")
        }
    }
}

/// Exit statuses of `scan` and `watch`; the most serious applies.
enum SessionExitStatus {
    static let ok: Int32 = 0
    static let unreadable: Int32 = 1
    static let notFound: Int32 = 2
    static let queued: Int32 = 3
    static let libraryFull: Int32 = 5
    static let failure: Int32 = 70
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
        let status: Int32 =
            summary.interrupted ? interrupted
            : t.failed > 0 ? failure
            : t.unreadable > 0 ? unreadable
            : t.libraryFull > 0 ? libraryFull
            : t.queued > 0 ? queued
            : t.notFound > 0 ? notFound
            : ok
        return ExitCode(status)
    }
}

extension ScanCommand: FinishesOnInterrupt {}
