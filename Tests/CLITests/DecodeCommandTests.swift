import Foundation
import Testing
import TestSupport

/// `rapidscan decode` end to end: the real binary on real image bytes.
@Suite struct DecodeCommandTests {
    static let goodImage = SharedFiles.sampleImages.appendingPathComponent("isbn-9780306406157.png")
    static let goodLine = "EAN-13 9780306406157 (ISBN 978-0-306-40615-7)"

    /// One kind of bad input: how to make it in a folder, and what the error must say.
    struct BadInput: CustomTestStringConvertible, Sendable {
        let name: String
        let make: @Sendable (URL) throws -> Void
        let reason: String
        var testDescription: String { name }
    }

    static let badInputs: [BadInput] = [
        BadInput(name: "empty.jpg", make: { try Data().write(to: $0) }, reason: "empty file"),
        BadInput(name: "cut.jpg", make: { try halfOf("isbn-9780306406157.jpg").write(to: $0) }, reason: "truncated JPEG"),
        BadInput(name: "cut.png", make: { try halfOf("isbn-9780306406157.png").write(to: $0) }, reason: "truncated PNG"),
        BadInput(name: "notes.jpg", make: { try Data("hello, this is text".utf8).write(to: $0) },
                 reason: "not an image (starts with 'hello"),
        BadInput(name: "huge.pgm", make: { try (Data("P5\n20000 20000\n255\n".utf8) + Data([0, 0, 0])).write(to: $0) },
                 reason: "20000×20000 pixels is over the 100 MP limit"),
        BadInput(name: "anim.gif", make: { try Data("GIF89a\u{1}\u{0}\u{1}\u{0}\u{0}\u{0}\u{0};".utf8).write(to: $0) },
                 reason: "unsupported format GIF"),
        BadInput(name: "no-images", make: { folder in
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            try Data("not a picture".utf8).write(to: folder.appendingPathComponent("readme.txt"))
        }, reason: "no image files in this directory"),
        BadInput(name: "gone.png", make: {
            try FileManager.default.createSymbolicLink(atPath: $0.path, withDestinationPath: "missing.png")
        }, reason: "symbolic link to 'missing.png', which does not exist"),
    ]

    static func halfOf(_ sample: String) throws -> Data {
        let data = try Data(contentsOf: SharedFiles.sampleImages.appendingPathComponent(sample))
        return data.prefix(data.count / 2)
    }

    @Test("A bad file is reported by name and the run goes on", arguments: badInputs)
    func badInputIsReportedAndTheRunContinues(_ input: BadInput) async throws {
        try await withTemporaryDirectory { folder in
            let bad = folder.appendingPathComponent(input.name)
            try input.make(bad)
            try FileManager.default.copyItem(at: Self.goodImage, to: folder.appendingPathComponent("good.png"))

            let text = try await runRapidScan(["decode", input.name, "good.png"], currentDirectory: folder)
            #expect(text.status == 1, "stderr: \(text.stderr)")
            #expect(text.stdoutLines == ["good.png: \(Self.goodLine)"])
            let errorLine = try #require(text.stderrLines.first { $0.hasPrefix(input.name + ": ") })
            #expect(errorLine.contains(input.reason), "got: \(errorLine)")
            #expect(!text.stderr.contains("Fatal error"))

            let json = try await runRapidScan(["decode", "--json", input.name, "good.png"], currentDirectory: folder)
            #expect(json.status == 1)
            // Every line carries the schema; the last is the summary (docs/CLI.md).
            #expect(json.jsonLines.allSatisfy { $0["schema"] as? Int == 1 })
            #expect(json.jsonLines.last?["event"] as? String == "summary")
            #expect(json.jsonLines.last?["unreadable"] as? Int == 1)
            let objects = json.jsonLines.dropLast()
            #expect(objects.map { $0["file"] as? String } == [input.name, "good.png"], "input order")
            #expect(objects.map { $0["event"] as? String } == ["unreadable", "code"])
            let error = try #require(objects.first { $0["file"] as? String == input.name })
            #expect((error["error"] as? String)?.contains(input.reason) == true)
            let good = try #require(objects.first { $0["file"] as? String == "good.png" })
            #expect(good["isbn13"] as? String == "9780306406157")
        }
    }

    @Test func everyFileWithACodeExitsZeroAndPrintsOneLinePerCode() async throws {
        let samples = ["isbn-9781250313188-usd.png", "upca-036000291452.png", "scene-two-books.jpg"]
        let result = try await runRapidScan(["decode"] + samples, currentDirectory: SharedFiles.sampleImages)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        // Codes in one picture come top to bottom, then left to right.
        #expect(result.stdoutLines == [
            "isbn-9781250313188-usd.png: EAN-13 9781250313188 (ISBN 978-1-250-31318-8) + EAN-5 52899 (price US$28.99)",
            "upca-036000291452.png: UPC-A 036000291452 (product)",
            "scene-two-books.jpg: EAN-13 9780306406157 (ISBN 978-0-306-40615-7)",
            "scene-two-books.jpg: EAN-13 9782070427796 (ISBN 978-2-07-042779-6)",
        ])
        #expect(result.stderr.contains("decoded 4 codes from 3 of 3 files"))
    }

    @Test func aFileWithoutACodeExitsFourAndSaysSo() async throws {
        let result = try await runRapidScan(["decode", "none-blank.png", "isbn-9780306406157.png"],
                                      currentDirectory: SharedFiles.sampleImages)
        #expect(result.status == 4)
        #expect(result.stderrLines.contains("none-blank.png: no barcode found"))
        #expect(result.stdoutLines == ["isbn-9780306406157.png: \(Self.goodLine)"])

        let quiet = try await runRapidScan(["decode", "--quiet", "none-blank.png"], currentDirectory: SharedFiles.sampleImages)
        #expect(quiet.status == 4)
        #expect(quiet.stderr.isEmpty)
    }

    /// `--verbose` names, per file, the bars' CPU, the pass that read the code and the scans it
    /// took, and the printed follow-up's CPU: what the benchmarks split a photo's cost by.
    @Test func verboseShowsEachFilesCostAndThePassThatReadIt() async throws {
        let result = try await runRapidScan(["decode", "--verbose", "isbn-9780306406157.png", "none-blank.png"],
                                            currentDirectory: SharedFiles.sampleImages)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        let read = lines.first { $0.hasPrefix("rapidscan: isbn-9780306406157.png: bars ") }
        // A small photo is scanned every other line first, then every line where that saw bars.
        #expect(read?.contains(" ms CPU (full size, 2 scans), follow-up ") == true, "\(result.stderr)")
        let none = lines.first { $0.hasPrefix("rapidscan: none-blank.png: bars ") }
        #expect(none?.contains("(nothing read, 1 scans, hard passes skipped)") == true, "\(result.stderr)")
        #expect(result.stdout.contains(Self.goodLine))
    }

    @Test func jsonLinesDescribeCodesAddOnsAndProducts() async throws {
        let result = try await runRapidScan(["decode", "--json", "isbn-9781250313188-usd.png", "upca-036000291452.png",
                                       "none-blank.png"], currentDirectory: SharedFiles.sampleImages)
        #expect(result.status == 4)
        // One object per code, a `noCode` object for a file without one, then the summary.
        #expect(result.jsonLines.map { $0["event"] as? String } == ["code", "code", "noCode", "summary"], "\(result.stdout)")
        #expect(result.jsonLines[2]["file"] as? String == "none-blank.png")
        #expect(result.jsonLines.allSatisfy { $0["schema"] as? Int == 1 })
        let summary = try #require(result.jsonLines.last)
        #expect([summary["files"], summary["filesWithCodes"], summary["codes"], summary["noCode"]] as? [Int] == [3, 2, 2, 1])
        let objects = result.jsonLines.filter { $0["event"] as? String == "code" }
        #expect(objects.count == 2, "one object per code: \(result.stdout)")
        let book = try #require(objects.first)
        #expect(book["file"] as? String == "isbn-9781250313188-usd.png")
        #expect(book["symbology"] as? String == "EAN-13")
        #expect(book["text"] as? String == "9781250313188")
        #expect(book["valid"] as? Bool == true)
        #expect(book["isbn13"] as? String == "9781250313188")
        let addOn = try #require(book["addon"] as? [String: Any])
        #expect(addOn["symbology"] as? String == "EAN-5")
        #expect(addOn["text"] as? String == "52899")
        #expect(addOn["price"] as? String == "US$28.99")
        let product = try #require(objects.last)
        #expect(product["symbology"] as? String == "UPC-A")
        #expect(product["gtin13"] as? String == "0036000291452")
        #expect(product["isbn13"] is NSNull)
        #expect(product["addon"] is NSNull)
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func anAddOnAloneIsRejectedWithTheReason() async throws {
        let addOnOnly = try SharedFiles.requireImage("barcodes/zbar-examples/ean-5.png")
        let json = try await runRapidScan(["decode", "--json", addOnOnly.path])
        #expect(json.status == 4)
        let object = try #require(json.jsonLines.first)
        #expect(object["event"] as? String == "rejected")
        #expect(object["symbology"] as? String == "EAN-5")
        #expect(object["valid"] as? Bool == false)
        #expect((object["error"] as? String)?.contains("add-on") == true)

        let text = try await runRapidScan(["decode", addOnOnly.path])
        #expect(text.stdout.isEmpty)
        #expect(text.stderr.contains("\(addOnOnly.path): EAN-5 09876 rejected: "))
    }

    @Test func foldersAreWalkedInNameOrderAndRawPrintsOnlyDigits() async throws {
        try await withTemporaryDirectory { folder in
            let nested = folder.appendingPathComponent("shelf/b")
            try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
            let copies = [("shelf/b/2.png", "upca-036000291452.png"), ("shelf/1.png", "isbn-9780306406157.png"),
                          ("shelf/.hidden.png", "ean8-96385074.png"), ("shelf/notes.txt", "ean8-96385074.png")]
            for (target, sample) in copies {
                try FileManager.default.copyItem(at: SharedFiles.sampleImages.appendingPathComponent(sample),
                                                 to: folder.appendingPathComponent(target))
            }
            let result = try await runRapidScan(["decode", "--raw", "shelf"], currentDirectory: folder)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines == ["9780306406157", "036000291452"])
        }
    }

    @Test func rawFramesAreReadWithTheFormatGiven() async throws {
        // The binary PGM sample is a header and then exactly the Y800 bytes.
        let pgm = try Data(contentsOf: SharedFiles.sampleImages.appendingPathComponent("ean13-4006381333931.pgm"))
        let lines = String(decoding: pgm.prefix(32), as: UTF8.self).split(separator: "\n", maxSplits: 3)
        let size = lines[1].split(separator: " ").compactMap { Int($0) }
        let headerLength = lines.prefix(3).map(\.utf8.count).reduce(3, +)  // + three newlines
        try await withTemporaryDirectory { folder in
            try pgm.dropFirst(headerLength).write(to: folder.appendingPathComponent("frame.y800"))
            let result = try await runRapidScan(["decode", "--raw-frame", "y800:\(size[0])x\(size[1])", "frame.y800"],
                                          currentDirectory: folder)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdoutLines == ["frame.y800: EAN-13 4006381333931 (product)"])
            let wrongSize = try await runRapidScan(["decode", "--raw-frame", "y800:10x10", "frame.y800"], currentDirectory: folder)
            #expect(wrongSize.status == 1)
            #expect(wrongSize.stderr.contains("frame.y800: "))
        }
    }

    @Test("Usage errors exit 64", arguments: [[], ["--workers", "0"], ["--json", "--raw", "x.png"], ["--bogus", "x.png"],
                                              ["--raw-frame", "rgb:1x2", "x.raw"]])
    func usageErrorsExit64(_ arguments: [String]) async throws {
        let result = try await runRapidScan(["decode"] + arguments)
        #expect(result.status == 64, "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func helpDocumentsTheExitStatuses() async throws {
        let result = try await runRapidScan(["decode", "--help"])
        #expect(result.status == 0)
        for status in ["0 every file had a valid code", "4 some file had none", "1 some file could", "64 usage"] {
            let words = result.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(words.contains(status), "\(status)")
        }
    }
}
