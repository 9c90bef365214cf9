import Foundation
import Testing
import TestSupport

/// docs/CLI.md, checked on the built binary: one exit table in every `--help`, the same
/// code for the same failure in every command, `--quiet`/`--verbose` everywhere, colour
/// and cursor escapes only on a terminal that wants them, stdout for data and stderr for
/// problems with each path once, `"schema"` on every JSON line, times with a zone, `decode -`.
@Suite struct CLIContractTests {
    static let commands: [[String]] = [
        ["decode"], ["scan"], ["watch"], ["lookup"], ["search"], ["pending"], ["pending", "list"], ["pending", "retry"],
        ["cache"], ["cache", "stats"], ["database"], ["database", "show"], ["database", "copy"], ["account"], ["spines"], ["review"], ["library"], ["library", "list"],
        ["library", "show"], ["library", "add"], ["library", "remove"], ["library", "set"], ["library", "move"],
        ["library", "lists"], ["library", "notfound"], ["import"], ["export"], ["doctor"],
        ["sources"], ["sources", "list"], ["sources", "load"],
    ]
    /// Commands that run something (groups only dispatch to one of these).
    static let leaves = commands.filter { ![["pending"], ["cache"], ["database"], ["library"], ["library", "lists"], ["sources"]].contains($0) }
        + [["library", "lists", "show"], ["library", "lists", "create"]]

    static let tableHeading = "Exit status (the same in every rapidscan command"
    static let tableRow70 = "70   the database or the configuration could not be used"

    @Test func everyHelpEndsWithTheOneExitTable() async throws {
        for command in [[]] + Self.commands {
            let result = try await runRapidScan(command + ["--help"])
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(result.stdout.components(separatedBy: Self.tableHeading).count == 2, "\(command) --help has not exactly one exit table")
            #expect(result.stdout.contains(Self.tableRow70), "\(command)")
            #expect(result.stdout.hasSuffix("interrupted (Ctrl-C or SIGTERM) after finishing the work in flight\n"), "\(command)")
        }
        let viaHelp = try await runRapidScan(["help", "scan"])
        #expect(viaHelp.stdout.contains(Self.tableHeading))
    }

    @Test func quietAndVerboseAreAcceptedEverywhere() async throws {
        for command in Self.leaves {
            let help = try await runRapidScan(command + ["--help"])
            #expect(help.stdout.contains("-q, --quiet"), "\(command) has no --quiet")
            #expect(help.stdout.contains("-v, --verbose"), "\(command) has no --verbose")
        }
        let both = try await runRapidScan(["cache", "stats", "--quiet", "--verbose"])
        #expect(both.status == 64)
        #expect(both.stderr.hasPrefix("rapidscan: --quiet and --verbose cannot be used together"))
    }

    @Test func anUnopenableDatabaseExits70EverywhereWithOnePrefixedLine() async throws {
        let harness = try CLIHarness()
        // A database "inside" a regular file: its folder can never be created.
        let blocker = harness.directory.appendingPathComponent("blocker")
        try Data("x".utf8).write(to: blocker)
        harness.extraEnvironment["RAPIDSCAN_DB"] = blocker.appendingPathComponent("library.sqlite").path
        let photo = SharedFiles.sampleImages.appendingPathComponent("isbn-9780306406157.png").path
        let commands: [[String]] = [
            ["lookup", "--offline", "9780306406157"], ["cache", "stats"], ["pending", "list"], ["pending", "retry"],
            ["account"], ["scan", "--offline", photo], ["library", "list"], ["library", "lists", "show"],
            ["export", "--format", "json"],
        ]
        for command in commands {
            let result = try await harness.run(command)
            #expect(result.status == 70, "\(command): \(result.status) \(result.stderr)")
            let lines = result.stderrLines
            #expect(lines.count == 1 && lines[0].hasPrefix("rapidscan: "), "\(command): \(result.stderr)")
            #expect(result.stderr.contains(blocker.path), "\(command) names the database")
            #expect(!result.stderr.contains("Error:"), "\(command)")
        }
    }

    @Test func aMissingPhotoIsOneStderrLineAndNotAFrame() async throws {
        let harness = try CLIHarness()
        let missing = harness.directory.appendingPathComponent("nonexist.jpg").path
        let result = try await harness.run(["scan", "--offline", missing])
        #expect(result.status == 1)
        #expect(!result.stdout.contains(missing), "stdout: \(result.stdout)")
        #expect(result.stderr.components(separatedBy: missing).count - 1 == 1, "the path once: \(result.stderr)")
        #expect(result.stderrLines.contains { $0.hasPrefix(missing + ": ") })
        #expect(result.stdout.contains("Scanned 0 frames"), "\(result.stdout)")
        #expect(result.stdout.contains("Unreadable:         1"))

        let json = try await harness.run(["scan", "--offline", "--json", missing])
        #expect(json.events("unreadable").count == 1)
        #expect(json.summary?["frames"] as? Int == 0)
        #expect(json.summary?["unreadable"] as? Int == 1)
    }

    // MARK: Terminal behaviour

    private static let escape = "\u{1B}["

    @Test func colourAndCursorEscapesOnlyOnATerminalThatWantsThem() async throws {
        let harness = try CLIHarness()
        let folder = try harness.photoFolder("photos", ["isbn-9780306406157.png", "isbn-9781250313188-usd.png"])
        let scan = ["scan", "--offline", "--rescan", folder.path]

        let terminal = try await harness.runOnTerminal(scan, environment: ["TERM": "xterm-256color", "NO_COLOR": ""])
        #expect(terminal.status == 3, "\(terminal.stdout)")
        #expect(terminal.stdout.contains("Queued"))
        #expect(terminal.stdout.contains(Self.escape + "33m"), "the queued toast is yellow: \(terminal.stdout.debugDescription)")
        #expect(terminal.stdout.contains("\u{1B}[J"), "the progress bar is cleared in place")

        for environment in [["TERM": "dumb"], ["TERM": "xterm-256color", "NO_COLOR": "1"]] {
            let plain = try await harness.runOnTerminal(scan, environment: environment)
            #expect(plain.status == 3, "\(environment): \(plain.stdout)")
            #expect(plain.stdout.contains("Queued"), "\(environment)")
            #expect(!plain.stdout.contains("\u{1B}"), "\(environment): \(plain.stdout.debugDescription)")
        }

        harness.extraEnvironment["TERM"] = "xterm-256color"
        let piped = try await harness.run(scan)
        #expect(piped.status == 3)
        #expect(piped.stdout.contains("Queued"))
        #expect(!(piped.stdout + piped.stderr).contains("\u{1B}"), "piped output is plain")
    }

    @Test func quietLeavesOnlyProblemsAndTheSummaryVerboseAddsDetail() async throws {
        let harness = try CLIHarness()
        let folder = try harness.photoFolder("photos", ["isbn-9780306406157.png", "none-blank.png"])
        let normal = try await harness.run(["scan", "--offline", "--rescan", folder.path])
        #expect(normal.stdout.contains("… Queued"))
        #expect(!normal.stdout.contains("No Barcode"))

        let quiet = try await harness.run(["scan", "--offline", "--rescan", "--quiet", folder.path])
        #expect(quiet.status == 3)
        #expect(!quiet.stdout.contains("Queued —"), "no success toasts: \(quiet.stdout)")
        #expect(quiet.stdout.contains("Scanned 2 frames"))
        #expect(quiet.stderr.isEmpty)

        let verbose = try await harness.run(["scan", "--offline", "--rescan", "-v", folder.path])
        #expect(verbose.stdout.contains("No Barcode"), "frames without a code are shown: \(verbose.stdout)")
        #expect(verbose.stderr.contains("rapidscan: library \(harness.database.path)"))
        #expect(verbose.stderr.contains("rapidscan: config none"))

        let photo = SharedFiles.sampleImages.appendingPathComponent("none-blank.png").path
        let decodeVerbose = try await harness.run(["decode", "--verbose", "--workers", "1", photo])
        #expect(decodeVerbose.stderr.contains("rapidscan: decoding on 1 threads, effort normal"), "\(decodeVerbose.stderr)")
        let decodeQuiet = try await harness.run(["decode", "-q", photo])
        #expect(decodeQuiet.status == 4 && decodeQuiet.stderr.isEmpty)
    }

    // MARK: JSON and times

    @Test func everyJSONLineCarriesTheSchemaAndSharedNames() async throws {
        let harness = try CLIHarness()
        let photo = SharedFiles.sampleImages.appendingPathComponent("isbn-9781250313188-usd.png").path
        let scan = try await harness.run(["scan", "--offline", "--json", photo])
        let decode = try await harness.run(["decode", "--json", photo])
        let lookup = try await harness.run(["lookup", "--offline", "--json", "9781250313188", "12345"])
        let pending = try await harness.run(["pending", "list", "--json"])
        let stats = try await harness.run(["cache", "stats", "--json"])
        let account = try await harness.run(["account", "--json"])
        // No source listens (the fixture server is not started): the retry stays queued.
        let retry = try await harness.run(["pending", "retry", "--json"])
        #expect(retry.status == 3, "\(retry.stderr)")
        let frames = harness.directory.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        let watch = try await harness.run(["watch", "--json", "--idle-exit", "0.5", frames.path])
        #expect(watch.summary != nil, "\(watch.stdout) \(watch.stderr)")
        #expect(watch.stderr.contains("Watching \(frames.path)"))
        let quietWatch = try await harness.run(["watch", "--json", "--quiet", "--idle-exit", "0.5", frames.path])
        #expect(quietWatch.summary != nil && quietWatch.stderr.isEmpty, "--quiet drops the notice: \(quietWatch.stderr)")
        for (name, result) in [("scan", scan), ("decode", decode), ("lookup", lookup), ("pending", pending),
                               ("stats", stats), ("account", account), ("pending retry", retry), ("watch", watch)] {
            #expect(!result.jsonLines.isEmpty, "\(name): \(result.stdout) \(result.stderr)")
            #expect(result.jsonLines.count == result.stdoutLines.count, "\(name): every line is JSON")
            for line in result.jsonLines {
                #expect(line["schema"] as? Int == 1, "\(name): \(line)")
                #expect(line["event"] is String, "\(name): \(line)")
            }
        }
        // The same add-on, the same shape, in decode and scan.
        let scanned = try #require(scan.events("queued").first)
        let decoded = try #require(decode.jsonLines.first { $0["event"] as? String == "code" })
        for line in [scanned, decoded] {
            #expect(line["isbn13"] as? String == "9781250313188")
            let addOn = try #require(line["addon"] as? [String: Any], "\(line)")
            #expect(addOn["text"] as? String == "52899" && addOn["symbology"] as? String == "EAN-5")
            #expect(addOn["price"] as? String == "US$28.99")
        }
        #expect(lookup.jsonLines.map { $0["event"] as? String } == ["unavailable", "invalid"])
        let queued = try #require(pending.jsonLines.first)
        #expect(queued["event"] as? String == "pending" && queued["isbn13"] as? String == "9781250313188")
        #expect(queued["isbn"] == nil, "the database column's name is not the contract's")
        let retried = try #require(retry.jsonLines.first)
        // Named as every door names a waiting book (scan's `queued`); `status` keeps the older word.
        #expect(retried["event"] as? String == "queued" && retried["isbn13"] as? String == "9781250313188")
        #expect(retried["status"] as? String == "unavailable" && retried["source"] as? String != nil)
    }

    @Test func pendingTimesCarryTheirZone() async throws {
        let harness = try CLIHarness()
        let photo = SharedFiles.sampleImages.appendingPathComponent("isbn-9780306406157.png").path
        _ = try await harness.run(["scan", "--offline", photo])
        harness.extraEnvironment["TZ"] = "Asia/Kolkata"
        let text = try await harness.run(["pending", "list"])
        #expect(text.stdout.range(of: #"next retry \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+05:30"#, options: .regularExpression) != nil,
                "\(text.stdout)")
        let json = try await harness.run(["pending", "list", "--json"])
        let line = try #require(json.jsonLines.first)
        for key in ["queuedAt", "lastAttemptAt", "nextRetryAt"] {
            #expect((line[key] as? String)?.hasSuffix("+05:30") == true, "\(key): \(line)")
        }
    }

    // MARK: One raw-frame syntax, options parsed once

    @Test func scanReadsRawFramesWithTheDecodeSyntaxAndRefusesBadValues() async throws {
        let harness = try CLIHarness()
        // The binary PGM sample is a header and then exactly the Y800 bytes.
        let pgm = try Data(contentsOf: SharedFiles.sampleImages.appendingPathComponent("ean13-4006381333931.pgm"))
        let lines = String(decoding: pgm.prefix(32), as: UTF8.self).split(separator: "\n", maxSplits: 3)
        let size = lines[1].split(separator: " ").compactMap { Int($0) }
        let frame = harness.directory.appendingPathComponent("frame.y800")
        try pgm.dropFirst(lines.prefix(3).map(\.utf8.count).reduce(3, +)).write(to: frame)
        let spellings = [["--raw-frame", "y800:\(size[0])x\(size[1])"], ["--raw-format", "y800", "--size", "\(size[0])x\(size[1])"]]
        for spelling in spellings {
            let result = try await harness.run(["scan", "--json", "--offline", "--rescan"] + spelling + [frame.path])
            #expect(result.status == 0, "\(spelling): \(result.stderr)")
            #expect(result.events("nonBook").first?["code"] as? String == "4006381333931", "\(spelling): \(result.stdout)")
        }
        for bad in [["--raw-frame", "rgb:1x2"], ["--debounce", "soon"], ["--raw-frame", "y800:4x4", "--size", "4x4"]] {
            let result = try await harness.run(["scan", "--offline"] + bad + [frame.path])
            #expect(result.status == 64, "\(bad): \(result.stderr)")
            #expect(result.stderr.hasPrefix("rapidscan: "), "\(bad): \(result.stderr)")
        }
    }

    // MARK: Completions

    @Test func completionScriptsComeFromTheParserAndParse() async throws {
        for shell in ["bash", "zsh", "fish"] {
            let result = try await runRapidScan(["--generate-completion-script", shell])
            #expect(result.status == 0, "\(shell): \(result.stderr)")
            // Option names without dashes: fish writes them as `-l quiet`.
            for word in ["decode", "scan", "watch", "pending", "quiet", "verbose", "raw-frame"] {
                #expect(result.stdout.contains(word), "\(shell) completion lacks \(word)")
            }
        }
        // The bash script is valid bash (syntax check, nothing run).
        let bash = try await runRapidScan(["--generate-completion-script", "bash"])
        let file = try makeTemporaryDirectory().appendingPathComponent("rapidscan.bash")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try bash.stdout.write(to: file, atomically: true, encoding: .utf8)
        let check = try await runProcess(URL(fileURLWithPath: "/bin/bash"), ["-n", file.path])
        #expect(check.status == 0, "\(check.stderr)")
    }

    // MARK: decode -

    @Test func decodeDashReadsAnImageFromStandardInput() async throws {
        let image = try Data(contentsOf: SharedFiles.sampleImages.appendingPathComponent("isbn-9780306406157.png"))
        let result = try await RunningCommand(executable: try RapidScanBinary.url, arguments: ["decode", "-"], input: image).finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines == ["-: EAN-13 9780306406157 (ISBN 978-0-306-40615-7)"])

        let json = try await RunningCommand(executable: try RapidScanBinary.url, arguments: ["decode", "--json", "-"],
                                            input: Data("not an image".utf8)).finish()
        #expect(json.status == 1)
        let unreadable = try #require(json.jsonLines.first)
        #expect(unreadable["event"] as? String == "unreadable" && unreadable["file"] as? String == "-")
        #expect(!json.stdout.contains("rapidscan-stdin"), "the temporary file is never shown: \(json.stdout)")
    }
}
