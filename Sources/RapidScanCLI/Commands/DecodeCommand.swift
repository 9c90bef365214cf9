import ArgumentParser
import BarcodeReading
import BookCodes
import Foundation
import Imaging

/// `rapidscan decode`: zbarimg, but book-aware (validation, ISBNs, add-on prices).
struct DecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Read EAN/UPC/ISBN barcodes from image files and folders.",
        discussion: """
        Prints one line per code: `path: EAN-13 9780306406157 (ISBN 978-0-306-40615-7)`, \
        with any EAN-2/EAN-5 add-on after it (`+ EAN-5 51299 (price US$12.99)`). Folders are \
        walked recursively (hidden files and non-images skipped). Codes that fail validation, \
        unreadable files and files without a code are reported on standard error, naming the \
        file; the run goes on with the other files. PNG, JPEG, WebP, HEIC/HEIF/AVIF and PGM/PPM are read (EXIF/irot orientation applied), and raw Y800/YUYV frames with --raw-frame; other image formats (GIF, TIFF, camera raw…) are reported by name.

        With --json, standard output is JSON Lines: one object per code \
        {"file", "symbology", "text", "valid", "isbn13", "gtin13", "addon"} (rejected codes: \
        "valid": false and "error"), and one {"file", "error"} per file that could not be read.

        Exit status: 0 every file had a valid code; 4 some file had none; 1 some file could \
        not be read (wins over 4); 64 usage error (no paths, bad option).
        """
    )

    @Argument(help: ArgumentHelp("Image files or folders to read.", valueName: "path"))
    var paths: [String] = []

    @Flag(help: "Print JSON Lines instead of text.")
    var json = false

    @Flag(help: "Print only the codes' digits, one per line (like zbarimg --raw).")
    var raw = false

    @Flag(name: .shortAndLong, help: "Print no notices for files without a code and no summary.")
    var quiet = false

    @Flag(help: "Only plain scans: skip the image tricks tried when nothing is found (same as --effort fast).")
    var fast = false

    @Option(help: ArgumentHelp("How hard to look at images that do not read at once: fast, normal or thorough.",
                               valueName: "level"))
    var effort: ScanEffort = .normal

    @Option(help: ArgumentHelp("Decode on this many threads (default: all cores).", valueName: "n"))
    var workers: Int?

    @Option(help: ArgumentHelp("Refuse images with more pixels than this (decompression bombs).", valueName: "n"))
    var maxPixels: Int = ScanOptions().maxPixels

    @Option(help: ArgumentHelp(
        "Read headerless frame files (.y800 .grey .gray .yuv .yuyv .raw) as this format and size, e.g. y800:640x480 or yuyv:1280x720.",
        valueName: "format:WxH"))
    var rawFrame: String?

    /// `--raw-frame` parsed; nil when not given or not valid (validate() reports the latter).
    var rawFormat: RawFrameFormat? {
        guard let rawFrame else { return nil }
        let parts = rawFrame.lowercased().split(separator: ":")
        let size = parts.last?.split(separator: "x").compactMap { Int($0) } ?? []
        guard parts.count == 2, size.count == 2, size[0] > 0, size[1] > 0 else { return nil }
        switch parts[0] {
        case "y800", "grey", "gray": return .y800(width: size[0], height: size[1])
        case "yuyv", "yuy2": return .yuyv(width: size[0], height: size[1])
        default: return nil
        }
    }

    func validate() throws {
        if paths.isEmpty { throw ValidationError("Give at least one image file or folder to read.") }
        if let workers, workers < 1 { throw ValidationError("--workers must be at least 1, not \(workers).") }
        if let rawFrame, rawFormat == nil {
            throw ValidationError("--raw-frame wants FORMAT:WIDTHxHEIGHT with FORMAT y800 or yuyv (e.g. y800:640x480), not '\(rawFrame)'.")
        }
        if maxPixels < 1 { throw ValidationError("--max-pixels must be at least 1, not \(maxPixels).") }
        if json && raw { throw ValidationError("--json and --raw cannot be used together.") }
    }

    func run() async throws {
        let started = Date()
        let output = DecodeOutput(mode: json ? .json : raw ? .raw : .text, quiet: quiet)
        var tally = DecodeTally()
        let entries = FileWalker.imageFiles(in: paths.map { URL(fileURLWithPath: $0) }, rawFormat: rawFormat)
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
            options: ScanOptions(maxPixels: maxPixels, rawFormat: rawFormat, effort: fast ? .fast : effort))
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
        if !quiet && !json && !raw { Console.error(tally.summary(seconds: Date().timeIntervalSince(started))) }
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

    mutating func record(_ scan: FileScanResult) {
        files += 1
        ambiguities += scan.ambiguities
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
        if !notes.isEmpty { line += " (" + notes.joined(separator: ", ") + ")" }
        return line + String(format: " in %.2f s", seconds)
    }
}

/// The three output forms of `decode`.
struct DecodeOutput {
    enum Mode { case text, json, raw }
    let mode: Mode
    let quiet: Bool

    func scanned(file: String, _ scan: FileScanResult) {
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
        if scan.codes.isEmpty, !quiet, mode != .json { Console.error("\(file): no barcode found") }
    }

    func unreadable(file: String, reason: String) {
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

    enum CodingKeys: String, CodingKey { case file, symbology, text, valid, isbn13, gtin13, addon, error }
    enum AddOnKeys: String, CodingKey { case symbology, text, price }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(file, forKey: .file)
        try container.encode(code.symbology.rawValue, forKey: .symbology)
        try container.encode(code.text, forKey: .text)
        try container.encode(code.isValid, forKey: .valid)
        if let product = code.productCode {
            try container.encode(product.isbn13?.digits, forKey: .isbn13)
            try container.encode(product.gtin13, forKey: .gtin13)
        }
        if let addOn = code.addOn {
            var nested = container.nestedContainer(keyedBy: AddOnKeys.self, forKey: .addon)
            try nested.encode(addOn.symbology.rawValue, forKey: .symbology)
            try nested.encode(addOn.text, forKey: .text)
            try nested.encode(addOn.price?.description, forKey: .price)
        } else {
            try container.encodeNil(forKey: .addon)
        }
        if let error = code.rejection { try container.encode(error.description, forKey: .error) }
    }
}

/// A file where different valid codes were read at one place: `{"file", "ambiguities"}`.
struct AmbiguityRecord: Encodable {
    let file: String
    let ambiguities: Int
}

extension ScanEffort: ExpressibleByArgument {}

/// One file `decode --json` could not read.
struct UnreadableFileRecord: Encodable {
    let file: String
    let error: String
}
