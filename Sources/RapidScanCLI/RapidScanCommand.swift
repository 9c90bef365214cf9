import ArgumentParser
import Pipeline
import RapidScanConfig

/// The root command; each subcommand is one type in Commands/.
public struct RapidScanCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "rapidscan",
        abstract: "Catalogue physical books from pictures of their barcodes.",
        discussion: """
        Examples:
          rapidscan scan ~/Pictures/books          photos and folders -> owned books
          rapidscan watch --consume /tmp/frames    a webcam's frames, live
          rapidscan spines shelf.jpg               shelf photos: the spines read
          rapidscan import goodreads_library_export.csv
          rapidscan library                        what you own
          rapidscan doctor                         what it works with, what is missing
        """,
        version: RapidScanVersion.current,
        subcommands: [
            DecodeCommand.self,
            ScanCommand.self,
            WatchCommand.self,
            LookupCommand.self,
            SearchCommand.self,
            PendingCommand.self,
            CacheCommand.self,
            DatabaseCommand.self,
            SourcesCommand.self,
            AccountCommand.self,
            SpinesCommand.self,
            ReviewCommand.self,
            LibraryCommand.self,
            ImportCommand.self,
            ExportCommand.self,
            DoctorCommand.self,
        ]
    )

    public init() {}
}

/// The executable's entry point: runs `RapidScanCommand` through ArgumentParser's async `main`.
public enum RapidScanEntryPoint {
    public static func run() async {
        // First, before parsing or opening anything: Ctrl-C/SIGTERM during start-up must not
        // kill a session by signal (it exits 130 with its summary instead).
        let interrupt = InterruptMonitor.process
        interrupt.beforeForcedExit {
            // Only where the progress line was drawn: a terminal that takes escapes (docs/CLI.md).
            if StandardStream.standardError.allowsEscapes() { StandardStream.standardError.write("\r\u{1B}[J") }
        }
        do {
            var command = try RapidScanCommand.parseAsRoot(nil)
            if !(command is any FinishesOnInterrupt) { interrupt.exitOnInterrupt() }
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            exit(with: error)
        }
    }

    /// Every error leaves through here: one prefix (`rapidscan: `) on standard error and
    /// one exit status per kind of failure (`ExitStatus`), whichever command raised it.
    static func exit(with error: any Error) -> Never {
        let argumentParserStatus = RapidScanCommand.exitCode(for: error)
        // Help, --version and usage errors: ArgumentParser's text, under our prefix.
        if argumentParserStatus != ExitCode(1) || error is CleanExit || error is ExitCode {
            if argumentParserStatus == ExitStatus.success {
                let message = RapidScanCommand.fullMessage(for: error)
                // Every command's help (and `rapidscan help CMD`) ends with the one table.
                if message.hasPrefix("OVERVIEW:") || message.hasPrefix("USAGE:") {
                    Console.out(message.trimmingCharacters(in: .newlines) + "\n\n" + ExitStatus.table)
                    RapidScanCommand.exit(withError: ExitStatus.success)
                }
            }
            if argumentParserStatus == ExitStatus.usage {
                var message = RapidScanCommand.fullMessage(for: error)
                if message.hasPrefix("Error: ") { message = "rapidscan: " + message.dropFirst("Error: ".count) }
                // A mistyped subcommand (`rapidscan scna photos`): name the one meant.
                if let near = CommandSuggestion.nearest(to: Array(CommandLine.arguments.dropFirst())) {
                    message = "rapidscan: '\(near.typed)' is not a command; did you mean '\(near.suggestion)'?\n"
                        + message.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().joined(separator: "\n")
                }
                Console.error(message)
                RapidScanCommand.exit(withError: ExitStatus.usage)
            }
            RapidScanCommand.exit(withError: error)
        }
        let (status, message) = ExitStatus.report(for: error)
        if let message { Console.error("rapidscan: \(message)") }
        RapidScanCommand.exit(withError: status)
    }
}

/// A command that polls `InterruptMonitor.process` and finishes its work in flight on the
/// first Ctrl-C (then prints its summary and exits 130); any other command exits at once.
protocol FinishesOnInterrupt {}
