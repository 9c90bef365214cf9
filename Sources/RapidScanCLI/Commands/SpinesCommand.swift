import ArgumentParser
import BarcodeReading
import BookLookup
import BookMetadata
import Catalogue
import Foundation
import Synchronization
import Intake
import MetadataSources
import Pipeline
import RapidScanConfig
import SpineMatching
import SpineOCR
import SpineScanning
import Vision

struct SpinesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spines",
        abstract: "Read the spines on shelf photos with a vision model and add the books to your library.",
        discussion: """
        Examples:
          rapidscan spines shelf.jpg
          rapidscan spines --dry-run ~/Pictures/shelves

        Each photo (JPEG, PNG, PGM/PPM; folders are walked) is turned upright, scaled to \
        --max-image-side and sent as JPEG with the prompt (built in, or --prompt FILE, a \
        Mustache template) to the model configured in [vision] (provider openai, ollama, \
        gemini or anthropic; RAPIDSCAN_VISION_PROVIDER/_URL/_MODEL/_API_KEY_ENV and the \
        flags below override it). Each spine read is matched against the local cache, then \
        Google Books and Open Library: a strong match is added as owned ("Added to Library", \
        "Already in Library", "Library Full"), a medium one waits for `rapidscan review`, \
        and one that matches nothing is reported with the text read; nothing uncertain is \
        ever added. A photo already answered by the same model and prompt is not sent \
        again, and readings settled by an earlier run are not matched again, so a re-run \
        adds nothing and sends nothing.

        --json prints one JSON object per spine (event: added, alreadyOwned, review, \
        unmatched, libraryFull, queued; with file, reading, decision strong/medium/none, \
        distance, isbn13, title, authors), one per photo that failed (event: failed, \
        error), then a summary with the token usage.

        Exit status: \(SpinesExitStatus.help)
        """
    )

    @Argument(help: "Shelf photos or folders.", completion: .file())
    var paths: [String]

    @Flag(help: "Print JSON Lines events.")
    var json = false

    @Flag(name: .customLong("dry-run"), help: "Read and match, but add nothing and record nothing.")
    var dryRun = false

    @OptionGroup var library: LibraryOptions

    @Option(help: "The list to add books to, by id or name (default: Want to Read).", completion: ValueCompletion.listNames)
    var list: String?

    @Option(help: "openai, ollama, gemini, anthropic or tesseract (default: [vision] provider; tesseract when no model is configured: local OCR, PP-OCR for the whole photo when installed + Tesseract).",
            completion: ValueCompletion.spineProvider)
    var provider: String?

    @Option(help: ArgumentHelp("The provider's base URL.", valueName: "url"))
    var url: String?

    @Option(help: "The model name.")
    var model: String?

    @Option(name: .customLong("api-key-env"), help: ArgumentHelp("The environment variable holding the API key.", valueName: "name"))
    var apiKeyEnv: String?

    @Option(help: ArgumentHelp("A Mustache prompt template (variables: imageName, languages, schema, tile).", valueName: "file"))
    var prompt: String?

    @Option(help: "Split each photo into this many overlapping tiles, left to right (wide shelves).")
    var tiles = 1

    @Option(name: .customLong("max-image-side"), help: "Long side of the image sent, in pixels (default 2048).")
    var maxImageSide: Int?

    @Option(help: "Sampling temperature (default 0).")
    var temperature: Double?

    @Option(help: ArgumentHelp("Seconds to wait for one reply (default 120).", valueName: "seconds"))
    var timeout: Double?

    @Option(name: .customLong("max-tokens"), help: "Longest reply, in tokens (default 4096).")
    var maxTokens: Int?

    @Option(help: "Requests to the model at once (default 2).")
    var concurrency: Int?

    @Option(help: "Expected spine languages, comma-separated (default: English).")
    var languages = "English"

    @Flag(help: "Do not search Google Books or Open Library: match against the local cache only.")
    var offline = false

    /// `--quiet` comes with the shared options (`OutputOptions`).
    var quiet: Bool { library.output.quiet }

    func validate() throws {
        if let provider, VisionProvider(rawValue: provider) == nil, provider != TesseractProvider.name {
            throw ValidationError("--provider: '\(provider)' is not one of openai, ollama, gemini, anthropic, tesseract")
        }
        if let url, Self.httpURL(url) == nil { throw ValidationError("--url: '\(url)' is not an http:// or https:// URL") }
        if !(1...16).contains(tiles) { throw ValidationError("--tiles must be from 1 to 16, not \(tiles)") }
        if let maxImageSide, !(256...8192).contains(maxImageSide) {
            throw ValidationError("--max-image-side must be from 256 to 8192, not \(maxImageSide)")
        }
        if let temperature, !(0...2).contains(temperature) { throw ValidationError("--temperature must be from 0 to 2, not \(temperature)") }
        if let timeout, !(1...3600).contains(timeout) { throw ValidationError("--timeout must be from 1 to 3600 seconds, not \(timeout)") }
        if let maxTokens, !(16...200_000).contains(maxTokens) { throw ValidationError("--max-tokens must be from 16 to 200000, not \(maxTokens)") }
        if let concurrency, !(1...64).contains(concurrency) { throw ValidationError("--concurrency must be from 1 to 64, not \(concurrency)") }
        if let prompt, !FileManager.default.isReadableFile(atPath: prompt) {
            throw ValidationError("--prompt: cannot read '\(prompt)'")
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let (settings, catalogue) = try library.openForSession()
        let reader: any SpineReader
        do {
            reader = try makeReader(settings.vision, configFile: settings.configFile, environment: environment,
                                    logger: settings.debugLogging ? .standardError : .disabled)
        } catch {
            throw SessionExitStatus.fail("\(error)")
        }
        let listId = try list.map { try SessionOptions.resolveList($0, in: catalogue) }
        // Every search goes through the lookup service (its breaker, the sources' pacing, --offline),
        // what is on this machine first: the cache, then a loaded dump, then the network sources.
        let metadataSources = MetadataSources.make(settings: settings)
        let lookup = LookupService(catalogue: catalogue, sources: metadataSources)
        var sources: [any CandidateSource] = [CacheCandidateSource(catalogue: catalogue)]
        sources += (metadataSources.filter(\.isLocal) + metadataSources.filter { !$0.isLocal })
            .filter { !offline || $0.isLocal }
            .map { SearchCandidateSource(source: $0, lookup: lookup, offline: offline) }
        let intake = Intake(lookup: lookup, settings: Intake.Settings(listId: listId, offline: offline, station: LibraryOptions.station(settings)))
        let session = SpineSession(catalogue: catalogue, reader: reader, sources: sources, dryRun: dryRun, listId: listId, offline: offline, intake: intake)
        var files: [String] = []
        var unreadableInputs = 0
        for entry in FileWalker.imageFiles(in: paths.map { URL(fileURLWithPath: $0) }) {
            if let error = entry.error {
                unreadableInputs += 1
                emitFailure(file: entry.path, error: "\(error)")
            } else {
                files.append(entry.path)
            }
        }
        let interrupt = InterruptMonitor.process
        let output = SpineOutput(json: json, quiet: quiet, readsLocally: !(reader is VisionReader))
        if !json, !quiet { Console.error("rapidscan: reading spines with \(Self.describe(reader))") }
        let progress = !json && !quiet && StandardStream.standardError.isTerminal
        // A source's pacing is said when it is what the user waits for: once a photo on the progress
        // display, and in the summary.
        let paced = offline ? [] : metadataSources.compactMap { $0 as? any PacedSource }
        let photoShown = Mutex((photo: 0, said: [String: Int]()))
        if progress {
            for source in paced {
                source.pacing.onWait { _ in
                    let say = photoShown.withLock { shown in
                        guard shown.said[source.name] != shown.photo else { return false }
                        shown.said[source.name] = shown.photo
                        return true
                    }
                    if say { Console.error("  \(source.pacing.waitingLine)") }
                }
            }
        }
        // Ctrl-C cancels the request in flight (a model may take minutes); what was settled
        // stays settled, the photo being read is read again next time.
        let run = Task {
            await session.run(files: files, photosAtOnce: (reader as? VisionReader)?.settings.maxConcurrentRequests ?? 1, isCancelled: { interrupt.isInterrupted || Task.isCancelled }, onPhoto: { number, count, file in
                photoShown.withLock { $0.photo = number }
                if progress { Console.error("[\(number)/\(count)] \(OutsideText.shown(file))") }
            }) { event in output.write(event) }
        }
        interrupt.onInterrupt { run.cancel() }
        var summary = await run.value
        summary.photoFailures += unreadableInputs
        if interrupt.isInterrupted { summary.interrupted = true }
        output.write(summary, paced: paced)
        throw SpinesExitStatus.exitCode(for: summary)
    }

    private func emitFailure(file: String, error: String) {
        SpineOutput(json: json, quiet: quiet).write(SpineEvent(kind: .failed, file: file, error: error))
    }

    static func httpURL(_ text: String) -> URL? {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else { return nil }
        return url
    }

    static func describe(_ reader: any SpineReader) -> String {
        if let vision = reader as? VisionReader { return "\(vision.settings.provider.rawValue) \(vision.settings.model)" }
        return reader.identity
    }

    /// `--verbose`: the OCR engines the local reader uses; without PP-OCR, why, and what adds it.
    static func describeEngines(_ reader: TesseractSpineReader, configured: String?, environment: [String: String]) -> String {
        let tesseract = "Tesseract \(OCREngines.tesseractVersion)"
        if let sceneText = reader.ocr.sceneText { return "OCR engines: PP-OCR (\(sceneText.python)) + \(tesseract)" }
        let why: String
        switch OCREngines.sceneTextSource(environment: environment, configured: configured) {
        case .switchedOff(let setting): why = "PP-OCR is switched off by \(setting)"
        case .notFound(let searched):
            why = "PP-OCR is not installed (looked for " + searched.joined(separator: ", ")
                + "); to add it: " + OCREngines.sceneTextInstallCommand()
        case .found(let python), .named(let python, _): why = "PP-OCR at \(python) did not start (`rapidscan doctor` says why)"
        }
        return "OCR engines: \(tesseract) alone: \(why)"
    }

    /// `[vision]` + environment + flags → a reader. The key comes from the variable named.
    /// With no provider and no endpoint anywhere, spines are read locally with Tesseract.
    func makeReader(_ config: VisionConfig, configFile: URL?, environment: [String: String],
                    logger: RequestLogger = .disabled) throws -> any SpineReader {
        let chosen = provider ?? config.provider
        if TesseractProvider.isSelected(provider: chosen, baseURL: (url ?? config.baseURL?.absoluteString)) {
            let reader = try TesseractProvider.makeReader(TesseractProviderSettings(
                languages: config.languages ?? ["eng"], pageSegmentationMode: config.psm, rotations: config.rotations,
                ppocr: config.ppocr, ppocrTurned: config.ppocrTurned ?? VisionConfig.ppocrTurnedByDefault,
                ppocrStrips: config.ppocrStrips ?? VisionConfig.ppocrStripsByDefault, environment: environment))
            library.output.detail(Self.describeEngines(reader, configured: config.ppocr, environment: environment))
            return reader
        }
        let name = chosen ?? "openai"
        guard let kind = VisionProvider(rawValue: name) else {
            throw VisionError.image(photo: "[vision] provider", message: "'\(name)' is not a vision provider")
        }
        var settings = VisionSettings(provider: kind, baseURL: url.flatMap(Self.httpURL) ?? config.baseURL, model: model ?? config.model,
                                      apiKeyEnv: apiKeyEnv ?? config.apiKeyEnv)
        if let variable = settings.apiKeyEnv, let key = environment[variable], !key.isEmpty { settings.apiKey = key }
        if let value = temperature ?? config.temperature { settings.temperature = value }
        if let value = timeout ?? config.timeoutSeconds { settings.timeoutSeconds = value }
        if let value = maxTokens ?? config.maxTokens { settings.maxTokens = value }
        if let value = concurrency ?? config.maxConcurrentRequests { settings.maxConcurrentRequests = value }
        if let value = maxImageSide ?? config.maxImageSide { settings.maxImageSide = value }
        settings.languages = languages.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        // A template named in the config file is found beside it; one given as a flag, from here.
        let configured = config.prompt.map { path -> String in
            guard !path.hasPrefix("/"), let file = configFile else { return path }
            return file.deletingLastPathComponent().appendingPathComponent(path).path
        }
        let template = try (prompt ?? configured).map { try PromptTemplate.load(path: $0) } ?? .builtIn
        return VisionReader(settings: settings, prompt: template, tiles: tiles, logger: logger)
    }
}

/// Human lines or JSON Lines for spine events (docs/CLI.md: "schema": 1, shared field names).
struct SpineOutput {
    let json: Bool
    let quiet: Bool
    /// Local OCR: no photo is sent anywhere, so the summary does not say "sent".
    var readsLocally = false

    struct Summary: Encodable {
        var schema = JSONSchema.version
        var event = "summary"
        var photos: Int
        var sent: Int
        var fromCache: Int
        var readings: Int
        var added: Int
        var alreadyOwned: Int
        var review: Int
        var unmatched: Int
        var libraryFull: Int
        var queued: Int
        var failed: Int
        var inputTokens: Int
        var outputTokens: Int
        var truncated: Int
        var droppedReadings: Int
        var shortenedReadings: Int
        var unreadableSpines: Int
        var unsureUnmatched: Int
        var notSent: [String]
        var stopReason: String?
        var interrupted: Bool
        /// Seconds requests waited for a source's rate limit, by source (omitted when none did).
        var pacingWaitSeconds: [String: Double]?
        var time: Date
    }

    func write(_ event: SpineEvent, number: Int? = nil) {
        if json {
            var line = IntakeLine(event: event.kind.rawValue, file: event.file)
            (line.number, line.reading, line.position, line.decision, line.distance) =
                (number, event.reading, event.position, event.decision?.rawValue, event.distance)
            (line.isbn13, line.title, line.authors, line.workKey, line.source, line.reason, line.error) =
                (event.isbn13, event.title, event.authors, event.workKey, event.source, event.reason, event.error)
            (line.owned, line.limit, line.cached, line.dryRun, line.time) =
                (event.owned, event.limit, event.cached ? true : nil, event.dryRun ? true : nil, Date())
            line.box = event.box
            try? JSONLines.write(line)
            return
        }
        if event.kind == .failed || event.kind == .queued && event.reading == nil {
            Console.error("rapidscan: \(OutsideText.shown(event.error ?? event.reason ?? event.file))")
            return
        }
        guard !quiet else { return }
        let read = "\"\(event.reading ?? "")\""
        let book = event.title.map { "\($0)\(event.authors.map { " — " + $0.joined(separator: ", ") } ?? "")" } ?? ""
        // Nothing was close: a distance to no candidate says nothing.
        let decision = event.decision.flatMap { $0 == .none ? nil : "\($0.rawValue) \(String(format: "%.2f", event.distance ?? 1))" }
        let status = event.kind == .added && event.dryRun ? "Would Add" : IntakeWording.title(event.kind)
        Console.out("\(OutsideText.shown(event.file)): \(read) → \(book.isEmpty ? "-" : book)\(decision.map { " [\($0)]" } ?? "") \(status)\(event.reason.map { " (\($0))" } ?? "")")
    }

    func write(_ summary: SpineSummary, paced: [any PacedSource] = []) {
        // Waits under a second are the pace doing its job, not a wait worth a line.
        let waited = paced.filter { $0.pacing.waited.seconds >= 1 }
        if json {
            try? JSONLines.write(Summary(
                photos: summary.photos, sent: summary.sent, fromCache: summary.fromCache, readings: summary.readings,
                added: summary.count(.added), alreadyOwned: summary.count(.alreadyOwned), review: summary.count(.review),
                unmatched: summary.count(.unmatched), libraryFull: summary.count(.libraryFull), queued: summary.count(.queued),
                failed: summary.count(.failed) + summary.photoFailures, inputTokens: summary.usage.input, outputTokens: summary.usage.output,
                truncated: summary.truncated, droppedReadings: summary.droppedReadings, shortenedReadings: summary.shortenedReadings, unreadableSpines: summary.unreadableSpines, unsureUnmatched: summary.unsureUnmatched, notSent: summary.notSent, stopReason: summary.stopReason,
                interrupted: summary.interrupted,
                pacingWaitSeconds: waited.isEmpty ? nil : Dictionary(waited.map { ($0.name, ($0.pacing.waited.seconds * 10).rounded() / 10) }) { a, _ in a },
                time: Date()))
            return
        }
        var line = "\(summary.photos) photo\(summary.photos == 1 ? "" : "s") (\(summary.sent) \(readsLocally ? "read here" : "sent"), \(summary.fromCache) from cache), \(summary.readings) spines: "
        line += "\(summary.count(.added)) added, \(summary.count(.alreadyOwned)) already owned, \(summary.count(.review)) to review, "
        line += "\(summary.count(.unmatched)) unmatched, \(summary.count(.libraryFull)) library full, \(summary.count(.queued)) queued, "
        line += "\(summary.count(.failed) + summary.photoFailures) failed, \(summary.unreadableSpines) unreadable"
        if summary.unsureUnmatched > 0 { line += ", \(summary.unsureUnmatched) unsure readings matched nothing (not shown)" }
        // Local OCR spends no tokens.
        if summary.usage.input + summary.usage.output > 0 { line += "; tokens \(summary.usage.input) in, \(summary.usage.output) out" }
        if summary.truncated > 0 { line += "; \(summary.truncated) replies cut by the token limit (raise maxTokens)" }
        if summary.droppedReadings > 0 { line += "; \(summary.droppedReadings) entries past \(ReplyLimits.maxReadings) a photo dropped" }
        if summary.shortenedReadings > 0 { line += "; \(summary.shortenedReadings) readings cut to \(ReplyLimits.maxCharacters) characters" }
        for pacing in waited.map(\.pacing) {
            line += "\nwaited \(Int(pacing.waited.seconds.rounded())) s for \(pacing.source) (\(pacing.waited.requests) requests paced): \(pacing.advice)"
        }
        if summary.count(.libraryFull) > 0 { line += "\nlibrary full: \(IntakeWording.upgrade.text), then run the same command again" }
        if summary.count(.review) > 0 { line += "\n\(summary.count(.review)) to review: \(IntakeWording.review.text)" }
        if let reason = summary.stopReason { line += "\nstopped: \(reason); \(summary.notSent.count) photos not sent stay queued (run again later)" }
        // Readings no source could search are not settled: the same command settles them
        // later, from the photo's kept reading (`pending retry` is for ISBNs).
        let queuedReadings = summary.count(.queued) - summary.notSent.count
        if queuedReadings > 0 {
            line += "\n\(queuedReadings) spine\(queuedReadings == 1 ? "" : "s") queued: no source could answer; run `rapidscan spines` "
            line += "on the same photos again when one does (their readings are kept: nothing is read or sent again)"
        }
        Console.error(line)
    }
}

/// `spines`' and `review`'s rows of the one exit policy (`ExitStatus`).
enum SpinesExitStatus {
    static let help = """
        0 every spine settled (added, already owned); 1 some photo could not be read or \
        sent; 5 some books were not added because the library is full; 3 some photos or \
        spines are queued (quota exhausted, no source could answer); 2 some spine matched no \
        book; 6 some matches wait for `rapidscan review`; 70 database or configuration \
        error; 64 bad usage; 130 interrupted. When several apply: 130, 70, 1, 5, 3, 2, 6.
        """

    static func exitCode(for summary: SpineSummary) -> ExitCode {
        ExitStatus.status(outcomes: summary.kinds, inputErrors: summary.photoFailures > 0, interrupted: summary.interrupted)
    }
}

extension SpinesCommand: FinishesOnInterrupt {}
