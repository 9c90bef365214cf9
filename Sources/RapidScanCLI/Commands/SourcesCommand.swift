import ArgumentParser
import Foundation
import LocalSource
import BookCodes
import BookMetadata
import MetadataSources
import RapidScanConfig

/// `rapidscan sources` (the sources in lookup order, with their state) and
/// `rapidscan sources load FILE...` (Open Library dumps into the local source).
struct SourcesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sources",
        abstract: "The metadata sources in lookup order, and the local Open Library dump.",
        discussion: """
        Examples:
          rapidscan sources
          rapidscan sources load ol_dump_editions_2024-10-31.txt.gz ol_dump_works_2024-10-31.txt.gz ol_dump_authors_2024-10-31.txt.gz
        """,
        subcommands: [SourcesListCommand.self, SourcesLoadCommand.self, SourcesBenchCommand.self],
        defaultSubcommand: SourcesListCommand.self)
}

struct SourcesListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "The sources a lookup asks, in order (after the cache), with their state.",
        discussion: """
        The order is `[sources] order` in the config file (or RAPIDSCAN_SOURCES). The local dump
        answers with --offline too. The breaker (a source paused after a connection failure) lives
        for one run: a new command starts with every source closed.

        Examples:
          rapidscan sources list
          rapidscan sources list --json | jq -r '.name + " " + .state'
        """)

    @Flag(name: .long, help: "Print one JSON object per source.")
    var json = false

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        let settings = try library.settings()
        let paths = XDGPaths()
        var lines: [SourceLine] = []
        for (position, source) in settings.sources.sorted(by: { $0.order < $1.order }).enumerated() {
            var line = SourceLine(position: position + 1, name: source.name, enabled: source.enabled, network: true,
                                  location: source.baseURL.absoluteString, state: "")
            switch SourceName(rawValue: source.name) {
            case .localDump:
                line.network = false
                line.location = settings.localDumpURL(paths: paths).path
                if !FileManager.default.fileExists(atPath: line.location) {
                    line.state = "no dump loaded (rapidscan sources load FILE)"
                } else {
                    do {
                        let state = try LocalDumpSource(path: line.location).state()
                        line.local = LocalLine(state)
                        line.state = "dump of \(state.dumpDate ?? "unknown date"): \(state.editions) editions, \(state.works) works, "
                            + "\(state.authors) authors; \(state.files.count) file(s), "
                            + "\(ByteCountFormatter.string(fromByteCount: state.bytes, countStyle: .file))"
                        let unfinished = state.files.filter { !$0.finished }.map(\.name)
                        if !unfinished.isEmpty { line.state += "; stopped part-way: \(unfinished.joined(separator: ", ")) (load it again to go on)" }
                    } catch {
                        line.state = "cannot be read: \(error)"
                    }
                }
            case .googleBooks:
                line.state = settings.googleBooksAPIKey == nil
                    ? "no API key: Google's small shared daily quota" : "API key from \(settings.googleBooksAPIKeyOrigin ?? "config"): the key's daily quota"
            case .openLibrary:
                line.state = "paced at \(Self.rate(settings.effectiveOpenLibraryRequestsPerSecond)) request/s"
                    + (settings.contact == nil ? " (no contact; set [sources.openLibrary] contact for 3/s)" : " (contact \(settings.contact ?? ""))")
            case .libraryOfCongress:
                line.state = source.enabled ? "paced at 1 request/s; asked for what the others lack" : "off (enable with [sources.libraryOfCongress] enabled = true)"
            case nil:
                line.state = ""
            }
            line.state += line.network ? "; breaker closed" : ""
            lines.append(line)
        }
        if json {
            for line in lines { try JSONLines.write(line) }
            return
        }
        for line in lines {
            let name = line.name.padding(toLength: 12, withPad: " ", startingAt: 0)
            print("\(line.position). \(name) \(line.enabled ? "" : "(disabled) ")\(line.location)")
            print("   \(line.state)")
        }
    }

    static func rate(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.2f", value)
    }

    struct SourceLine: Encodable {
        var schema = JSONSchema.version
        var event = "source"
        var position: Int
        var name: String
        var enabled: Bool
        var network: Bool
        var location: String
        var state: String
        var local: LocalLine?
    }

    struct LocalLine: Encodable {
        var dumpDate: String?
        var editions: Int
        var works: Int
        var authors: Int
        var bytes: Int64
        var files: [String]

        init(_ state: LocalSourceState) {
            dumpDate = state.dumpDate
            editions = state.editions
            works = state.works
            authors = state.authors
            bytes = state.bytes
            files = state.files.map(\.name)
        }
    }
}

struct SourcesLoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Loads Open Library dump files into the local source.",
        discussion: """
        Reads ol_dump_editions_*.txt.gz, _works_, _authors_ or the all-types dump, gzip or plain
        text, the record type taken from each row. Editions with an ISBN are kept, with their
        works and authors, in the local source's file ([sources.localDump] path, else
        $XDG_DATA_HOME/rapidscan/openlibrary-dump.sqlite). A newer revision of a record replaces
        the older; a file loaded to its end is not read again; a load stopped at any point
        goes on from where it stopped when run again. Malformed rows are reported by line and
        skipped (exit 1); the rest is loaded.

        Examples:
          rapidscan sources load ol_dump_editions_2024-10-31.txt.gz ol_dump_works_2024-10-31.txt.gz
          rapidscan sources load ol_dump_2024-10-31.txt.gz
        """)

    @Argument(help: "Dump files (gzip or plain text).", completion: .file())
    var files: [String]

    @Flag(name: .long, help: "Print one JSON object per file.")
    var json = false

    /// Rows per transaction (tests make it small to stop a load part-way).
    @Option(name: .long, help: .hidden)
    var batchSize = 20_000

    @OptionGroup var library: LibraryOptions

    /// Malformed rows named one by one up to here per file; the rest are counted.
    static let malformedShown = 20

    func run() async throws {
        let settings = try library.settings()
        let path = settings.localDumpURL(paths: XDGPaths()).path
        let loader: DumpLoader
        do {
            loader = try DumpLoader(path: path, batchSize: batchSize)
        } catch {
            Console.error("rapidscan: \(error)")
            throw ExitStatus.failure
        }
        library.output.detail("local source \(path)")
        let showProgress = !json && !library.output.quiet && Terminal.allowsEscapes(.standardError)
        var status = ExitStatus.success
        for file in files {
            let shown = OutsideText.shown(file)
            var named = 0
            var lastProgress = Date.distantPast
            do {
                let report = try await loader.load(file: file, malformed: { line, reason in
                    named += 1
                    if named <= Self.malformedShown { Console.error("rapidscan: \(shown):\(line): malformed row skipped: \(reason)") }
                }, progress: { progress in
                    guard showProgress, Date().timeIntervalSince(lastProgress) >= 0.5 else { return }
                    lastProgress = Date()
                    StandardStream.standardError.write("\r\u{1B}[K" + Self.progressText(progress))
                })
                if showProgress { StandardStream.standardError.write("\r\u{1B}[K") }
                if report.malformed > Self.malformedShown {
                    Console.error("rapidscan: \(shown): \(report.malformed - Self.malformedShown) more malformed rows skipped")
                }
                if report.malformed > 0 { status = ExitStatus.inputError }
                if json {
                    try JSONLines.write(LoadLine(report, database: path))
                } else if report.alreadyLoaded {
                    print("\(shown): already loaded (\(report.lines) lines); nothing to do")
                } else {
                    let resumed = report.resumedAfterLine.map { " (resumed after line \($0))" } ?? ""
                    let rate = report.seconds > 0 ? Int(Double(report.editions) / report.seconds) : 0
                    print("\(shown): \(report.lines) lines\(resumed): \(report.editions) editions, \(report.works) works, "
                          + "\(report.authors) authors stored; "
                          + (report.retired > 0 ? "\(report.retired) deleted or redirected; " : "")
                          + "\(report.skipped) skipped, \(report.malformed) malformed; "
                          + String(format: "%.1f s", report.seconds) + ", \(rate) editions/s")
                }
            } catch {
                if showProgress { StandardStream.standardError.write("\r\u{1B}[K") }
                Console.error("rapidscan: \(error)")
                if case DumpError.database? = error as? DumpError { throw ExitStatus.failure }
                status = ExitStatus.inputError
            }
        }
        if status != ExitStatus.success { throw status }
    }

    static func progressText(_ progress: DumpLoader.Progress) -> String {
        let fraction = progress.fileBytes > 0 ? Double(progress.fileBytesRead) / Double(progress.fileBytes) : 0
        let rate = progress.seconds > 0 ? Double(progress.editions) / progress.seconds : 0
        let eta = fraction > 0.001 ? progress.seconds * (1 - fraction) / fraction : 0
        return String(format: "%@ %.1f%%  %d editions (%.0f/s)  ETA %@", URL(fileURLWithPath: progress.file).lastPathComponent,
                      fraction * 100, progress.editions, rate, etaText(eta))
    }

    static func etaText(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        return total >= 3600 ? "\(total / 3600)h\(String(format: "%02d", total % 3600 / 60))m"
            : total >= 60 ? "\(total / 60)m\(String(format: "%02d", total % 60))s" : "\(total)s"
    }

    struct LoadLine: Encodable {
        var schema = JSONSchema.version
        var event = "dumpLoaded"
        var file: String
        var database: String
        var alreadyLoaded: Bool
        var resumedAfterLine: Int?
        var lines: Int
        var editions: Int
        var works: Int
        var authors: Int
        var retired: Int
        var skipped: Int
        var malformed: Int
        var seconds: Double

        init(_ report: DumpLoader.FileReport, database: String) {
            file = report.file
            self.database = database
            alreadyLoaded = report.alreadyLoaded
            resumedAfterLine = report.resumedAfterLine
            lines = report.lines
            editions = report.editions
            works = report.works
            authors = report.authors
            retired = report.retired
            skipped = report.skipped
            malformed = report.malformed
            seconds = report.seconds
        }
    }
}

/// Hidden: ISBN lookups in the local source, timed in process (scripts/bench-local-source).
struct SourcesBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Times local-source lookups of the ISBNs in a file.", shouldDisplay: false)

    @Option(name: .long, help: "A file of ISBN-13s, one a line.")
    var isbns: String

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        let settings = try library.settings()
        let source = try LocalDumpSource(path: settings.localDumpURL(paths: XDGPaths()).path)
        let codes = try String(contentsOfFile: isbns, encoding: .utf8).split(separator: "\n")
            .compactMap { try? ISBN13(validating: String($0)) }
        var times: [Double] = []
        var found = 0
        for code in codes {
            let start = DispatchTime.now().uptimeNanoseconds
            if try await source.edition(isbn: code) != nil { found += 1 }
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        times.sort()
        guard !times.isEmpty else { return }
        print(String(format: "%d lookups, %d found: median %.3f ms, p99 %.3f ms", times.count, found,
                     times[times.count / 2], times[min(times.count - 1, times.count * 99 / 100)]))
    }
}
