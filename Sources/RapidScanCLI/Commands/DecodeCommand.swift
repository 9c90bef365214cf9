import ArgumentParser
import BarcodeReading
import BookCodes
import BookMetadata
import Foundation
import Imaging
import PrintedISBN

/// `rapidscan decode`: zbarimg, but book-aware (validation, ISBNs, add-on prices).
struct DecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Read EAN/UPC/ISBN barcodes from image files and folders.",
        discussion: """
        Examples:
          rapidscan decode photo.jpg
          rapidscan decode --json ~/Pictures/books

        Prints one line per code: `path: EAN-13 9780306406157 (ISBN 978-0-306-40615-7)`, \
        with any EAN-2/EAN-5 add-on after it (`+ EAN-5 51299 (price US$12.99)`). Folders are \
        walked recursively (hidden files and non-images skipped). Codes that fail validation, \
        unreadable files and files without a code are reported on standard error, naming the \
        file; the run goes on with the other files. PNG, JPEG, WebP, HEIC/HEIF/AVIF and PGM/PPM are read (EXIF/irot orientation applied), \
        and raw Y800/YUYV frames with --raw-frame; other image formats (GIF, TIFF, camera raw…) are reported by name. \
        `-` reads one image from standard input (`decode - < photo.jpg`), named `-`. \
        A photo with no barcode read is read for its printed ISBN ("ISBN 0-345-34803-6", the digits \
        under the bars; Tesseract, two readings agreeing, check digit right): `printed 9780345348036`, \
        not at --fast; an ISBN labelled for another format ("(ebook)") is rejected, naming it. The \
        digits under a barcode also check it: a code they contradict is not reported (ambiguous).

        With --json, standard output is JSON Lines, every object with "schema": 1 and an \
        "event": "code" per code {"file", "symbology", "text", "valid", "isbn13", "gtin13", \
        "addon": {"text", "symbology", "price"}}, "rejected" for a code that fails validation \
        ("valid": false and "error"), "noCode" per file without a code, "unreadable" \
        {"file", "error"} per file that could not be read, then one "summary".

        Here: 0 every file had a valid code; 4 some file had none; 1 some file could not be \
        read (wins over 4); 64 usage error (no paths, bad option).
        """
    )

    @Argument(help: ArgumentHelp("Image files or folders to read; - for standard input.", valueName: "path"))
    var paths: [String] = []

    @Flag(help: "Print JSON Lines instead of text.")
    var json = false

    @Flag(help: "Print only the codes' digits, one per line (like zbarimg --raw).")
    var raw = false

    /// `--quiet`: no notices for files without a code and no summary; `--verbose`: the settings used.
    @OptionGroup var verbosity: OutputOptions
    var quiet: Bool { verbosity.quiet }

    @Flag(help: "Only plain scans: skip the image tricks tried when nothing is found (same as --effort fast).")
    var fast = false

    @Option(help: ArgumentHelp("How hard to look at images that do not read at once: fast, normal or thorough.",
                               valueName: "level"))
    var effort: ScanEffort = .normal

    @Option(help: ArgumentHelp("Decode on this many threads (default: all cores).", valueName: "n"))
    var workers: Int?

    @Option(help: ArgumentHelp("Refuse images with more pixels than this (decompression bombs).", valueName: "n"))
    var maxPixels: Int = ScanOptions().maxPixels

    @Option(help: ArgumentHelp(RawFrameSyntax.help, valueName: RawFrameSyntax.valueName), transform: RawFrameSyntax.parse)
    var rawFrame: RawFrameFormat?

    var rawFormat: RawFrameFormat? { rawFrame }

    func validate() throws {
        if paths.isEmpty { throw ValidationError("Give at least one image file or folder to read.") }
        if let workers, workers < 1 { throw ValidationError("--workers must be at least 1, not \(workers).") }
        if maxPixels < 1 { throw ValidationError("--max-pixels must be at least 1, not \(maxPixels).") }
        if json && raw { throw ValidationError("--json and --raw cannot be used together.") }
    }

    func run() async throws {
        let started = Date()
        // `-` is standard input: saved to a private temporary file (the decoders read files),
        // and shown as `-` wherever the file is named.
        let stdin = paths.contains("-") ? try StandardInputFile(raw: rawFormat != nil) : nil
        defer { stdin?.remove() }
        let output = DecodeOutput(mode: json ? .json : raw ? .raw : .text, quiet: quiet, verbose: verbosity.verbose, shown: { OutsideText.shown(stdin?.shown($0) ?? $0) })
        var tally = DecodeTally()
        output.detail(verbose: verbosity.verbose, "decoding on \(workers ?? ProcessInfo.processInfo.activeProcessorCount) threads, effort \(fast ? ScanEffort.fast : effort)")
        let entries = FileWalker.imageFiles(in: paths.map { $0 == "-" ? stdin!.url : URL(fileURLWithPath: $0) }, rawFormat: rawFormat)
        // Paths that cannot be scanned are reported where they stand among the others.
        var reported = 0
        func reportSkipped(upTo end: Int) {
            while reported < end {
                if let error = entries[reported].error {
                    tally.unreadable += 1
                    output.unreadable(file: error.path, reason: error.description)
                }
                reported += 1
            }
        }
        let scannable = entries.indices.filter { entries[$0].error == nil }
        let scanner = ParallelFileScanner(
            workers: workers ?? ProcessInfo.processInfo.activeProcessorCount,
            options: ScanOptions(maxPixels: maxPixels, rawFormat: rawFormat, effort: fast ? .fast : effort),
            followUp: PrintedISBNFollowUp.factory(effort: fast ? .fast : effort))
        for await (index, url, result) in scanner.scan(scannable.map { entries[$0].url }) {
            reportSkipped(upTo: scannable[index])
            reported += 1
            switch result {
            case .success(let scan):
                tally.record(scan)
                output.scanned(file: url.relativePath, scan)
            case .failure(let error):
                tally.unreadable += 1
                output.unreadable(file: error.file, reason: error.description)
            }
        }
        reportSkipped(upTo: entries.count)
        if json {
            try? JSONLines.write(DecodeSummaryRecord(tally))
        } else if !quiet && !raw {
            Console.error(tally.summary(seconds: Date().timeIntervalSince(started)))
        }
        throw tally.exitStatus
    }
}

/// What the run found, for the summary and the exit status.
struct DecodeTally {
    var files = 0
    var filesWithCodes = 0
    var codes = 0
    var rejected = 0
    var unreadable = 0
    /// Places where different valid codes were read and none was reported.
    var ambiguities = 0
    /// Valid codes read once, too weakly to report.
    var unconfirmed = 0
    /// Codes read and confirmed whose digits the pixels contradict.
    var contradicted = 0

    mutating func record(_ scan: FileScanResult) {
        files += 1
        ambiguities += scan.ambiguities
        unconfirmed += scan.unconfirmed
        contradicted += scan.contradicted
        codes += scan.codes.count
        rejected += scan.rejected.count
        if !scan.codes.isEmpty { filesWithCodes += 1 }
    }

    var exitStatus: ExitCode {
        if unreadable > 0 { return ExitStatus.inputError }
        return filesWithCodes == files ? ExitStatus.success : ExitStatus.partial
    }

    func summary(seconds: TimeInterval) -> String {
        var line = "decoded \(codes) code\(codes == 1 ? "" : "s") from \(filesWithCodes) of \(files + unreadable) file\(files + unreadable == 1 ? "" : "s")"
        var notes: [String] = []
        if files > filesWithCodes { notes.append("\(files - filesWithCodes) without a code") }
        if unreadable > 0 { notes.append("\(unreadable) unreadable") }
        if rejected > 0 { notes.append("\(rejected) rejected") }
        if ambiguities > 0 { notes.append("\(ambiguities) ambiguous, not reported") }
        if unconfirmed > 0 { notes.append("\(unconfirmed) unconfirmed, not reported") }
        if contradicted > 0 { notes.append("\(contradicted) contradicted by the pixels, not reported") }
        if !notes.isEmpty { line += " (" + notes.joined(separator: ", ") + ")" }
        return line + String(format: " in %.2f s", seconds)
    }
}

/// The three output forms of `decode`.
struct DecodeOutput {
    enum Mode { case text, json, raw }
    let mode: Mode
    let quiet: Bool
    /// Each file's cost and the pass that read it, on standard error.
    var verbose = false
    /// The name to print for a path (`-` for standard input's temporary file).
    let shown: (String) -> String

    func detail(verbose: Bool, _ line: String) {
        if verbose { Console.error("rapidscan: " + line) }
    }

    func scanned(file path: String, _ scan: FileScanResult) {
        let file = shown(path)
        if verbose {
            let cost = scan.cost
            Console.error("rapidscan: \(file): bars " + String(format: "%.1f", cost.barsMilliseconds) + " ms CPU ("
                + "\(scan.attempt ?? "nothing read"), \(scan.scans) scans\(scan.hardPassesSkipped ? ", hard passes skipped" : "")), "
                + "follow-up " + String(format: "%.1f", cost.followUpMilliseconds) + " ms")
        }
        for code in scan.codes {
            switch mode {
            case .text: Console.out("\(file): \(Self.describe(code))")
            case .raw: Console.out(code.text)
            case .json: try? JSONLines.write(DecodedCodeRecord(file: file, code))
            }
        }
        for code in scan.rejected {
            let reason = code.rejection?.description ?? "rejected"
            switch mode {
            case .json: try? JSONLines.write(DecodedCodeRecord(file: file, code))
            case .text, .raw: Console.error("\(file): \(code.symbology.rawValue) \(code.text) rejected: \(reason)")
            }
        }
        if scan.ambiguities > 0 {
            switch mode {
            case .json: try? JSONLines.write(AmbiguityRecord(file: file, ambiguities: scan.ambiguities))
            case .text, .raw:
                Console.error("\(file): \(scan.ambiguities) place(s) read as different valid codes; none reported")
            }
        }
        if scan.unconfirmed > 0 {
            switch mode {
            case .json: try? JSONLines.write(UnconfirmedRecord(file: file, unconfirmed: scan.unconfirmed))
            case .text, .raw:
                Console.error("\(file): \(scan.unconfirmed) code(s) read too weakly to confirm; not reported (a sharper or closer photo may read them)")
            }
        }
        if scan.contradicted > 0 {
            switch mode {
            case .json: try? JSONLines.write(ContradictedRecord(file: file, contradicted: scan.contradicted))
            case .text, .raw:
                Console.error("\(file): \(scan.contradicted) code(s) read whose digits the bars contradict; not reported (a sharper photo may read them)")
            }
        }
        // Every file is accounted for in --json, a file without a code too.
        if scan.codes.isEmpty, mode == .json { try? JSONLines.write(NoCodeRecord(file: file)) }
        if scan.codes.isEmpty, !quiet, mode != .json { Console.error("\(file): no barcode found") }
    }

    func unreadable(file path: String, reason fullReason: String) {
        let file = shown(path)
        let reason = fullReason.replacingOccurrences(of: path, with: file)
        switch mode {
        case .json: try? JSONLines.write(UnreadableFileRecord(file: file, error: reason))
        case .text, .raw: Console.error(reason)
        }
    }

    /// "EAN-13 9780306406157 (ISBN 978-0-306-40615-7) + EAN-5 51299 (price US$12.99)"
    static func describe(_ code: Detection) -> String {
        var line = "\(code.symbology.rawValue) \(code.text)"
        switch code.productCode {
        case .book(let isbn): line += " (ISBN \(isbn.hyphenated))"
        case .product: line += " (product)"
        case nil: break
        }
        if let addOn = code.addOn {
            line += " + \(addOn.symbology.rawValue) \(addOn.text)"
            if let price = addOn.price { line += " (price \(price))" }
        }
        return line
    }
}

/// One code in `decode --json`.
struct DecodedCodeRecord: Encodable {
    let file: String
    let code: Detection

    init(file: String, _ code: Detection) {
        self.file = file
        self.code = code
    }

    enum CodingKeys: String, CodingKey { case schema, event, file, symbology, text, valid, isbn13, gtin13, addon, error }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(JSONSchema.version, forKey: .schema)
        try container.encode(code.isValid ? "code" : "rejected", forKey: .event)
        try container.encode(file, forKey: .file)
        try container.encode(code.symbology.rawValue, forKey: .symbology)
        try container.encode(code.text, forKey: .text)
        try container.encode(code.isValid, forKey: .valid)
        if let product = code.productCode {
            try container.encode(product.isbn13?.digits, forKey: .isbn13)
            try container.encode(product.gtin13, forKey: .gtin13)
        }
        try container.encode(code.addOn.map(AddOnRecord.init), forKey: .addon)
        if let error = code.rejection { try container.encode(error.description, forKey: .error) }
    }
}

/// A file where different valid codes were read at one place: `{"file", "ambiguities"}`.
struct AmbiguityRecord: Encodable {
    var schema = JSONSchema.version
    var event = "ambiguous"
    let file: String
    let ambiguities: Int
}

/// A file where valid codes were read once, too weakly to report: `{"file", "unconfirmed"}`.
struct UnconfirmedRecord: Encodable {
    var schema = JSONSchema.version
    var event = "unconfirmed"
    let file: String
    let unconfirmed: Int
}

/// A file where codes were read whose digits the bars contradict: `{"file", "contradicted"}`.
struct ContradictedRecord: Encodable {
    var schema = JSONSchema.version
    var event = "contradicted"
    let file: String
    let contradicted: Int
}

/// A readable file with no barcode in it.
struct NoCodeRecord: Encodable {
    var schema = JSONSchema.version
    var event = "noCode"
    let file: String
}

/// The last `decode --json` line.
struct DecodeSummaryRecord: Encodable {
    var schema = JSONSchema.version
    var event = "summary"
    var files: Int
    var filesWithCodes: Int
    var codes: Int
    var noCode: Int
    var rejected: Int
    var unreadable: Int
    var ambiguous: Int
    var unconfirmed: Int
    var contradicted: Int

    init(_ tally: DecodeTally) {
        files = tally.files + tally.unreadable
        filesWithCodes = tally.filesWithCodes
        codes = tally.codes
        noCode = tally.files - tally.filesWithCodes
        rejected = tally.rejected
        unreadable = tally.unreadable
        ambiguous = tally.ambiguities
        unconfirmed = tally.unconfirmed
        contradicted = tally.contradicted
    }
}

extension ScanEffort: ExpressibleByArgument {}

/// One file `decode --json` could not read.
struct UnreadableFileRecord: Encodable {
    var schema = JSONSchema.version
    var event = "unreadable"
    let file: String
    let error: String
}

/// `decode -`: standard input saved to a file in a private temporary folder.
struct StandardInputFile {
    let folder: URL
    let url: URL

    struct IsATerminal: Error, CustomStringConvertible {
        var description: String { "-: standard input is a terminal; pipe an image in (decode - < photo.jpg)" }
    }

    /// `raw`: named so that --raw-frame applies (raw frames are recognised by extension).
    init(raw: Bool) throws {
        if isatty(STDIN_FILENO) == 1 { throw IsATerminal() }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("rapidscan-stdin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        url = folder.appendingPathComponent(raw ? "stdin.raw" : "stdin")
        let data = FileHandle.standardInput.readDataToEndOfFile()
        try data.write(to: url)
    }

    func shown(_ path: String) -> String { path == url.path || path == url.relativePath ? "-" : path }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}
