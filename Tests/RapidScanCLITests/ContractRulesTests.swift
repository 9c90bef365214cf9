import ArgumentParser
import BookCodes
import Foundation
import Imaging
import Intake
import Pipeline
@preconcurrency import Rainbow
@testable import RapidScanCLI
import Testing

/// The rules behind docs/CLI.md, one by one (the binary's behaviour is in CLITests).
@Suite struct ContractRulesTests {
    @Test func theMostSeriousStatusWinsInTheTablesOrder() {
        #expect(ExitStatus.worst([]) == ExitStatus.success)
        #expect(ExitStatus.worst([ExitStatus.partial, ExitStatus.notFound]) == ExitStatus.notFound)
        #expect(ExitStatus.worst([ExitStatus.review, ExitStatus.notFound]) == ExitStatus.notFound)
        #expect(ExitStatus.worst([ExitStatus.queued, ExitStatus.libraryFull]) == ExitStatus.libraryFull)
        #expect(ExitStatus.worst([ExitStatus.libraryFull, ExitStatus.inputError]) == ExitStatus.inputError)
        #expect(ExitStatus.worst([ExitStatus.inputError, ExitStatus.failure]) == ExitStatus.failure)
        #expect(ExitStatus.worst([ExitStatus.failure, ExitStatus.interrupted]) == ExitStatus.interrupted)
        // The help text states the same order the code uses.
        let order = ExitStatus.precedence.map { String($0.rawValue) }.joined(separator: ", ")
        #expect(ExitStatus.table.contains("in this order: \(order)"))
    }

    /// One exit policy: each intake outcome has one status, whichever command reports it.
    @Test func outcomesMapToTheTablesStatusesWithOnePrecedence() {
        #expect(ExitStatus.status(outcomes: [IntakeOutcome.Kind.added, .alreadyOwned]) == ExitStatus.success)
        #expect(ExitStatus.status(for: .libraryFull) == ExitStatus.libraryFull)
        #expect(ExitStatus.status(for: .queued) == ExitStatus.queued)
        #expect(ExitStatus.status(for: .notFound) == ExitStatus.notFound && ExitStatus.status(for: .unmatched) == ExitStatus.notFound)
        #expect(ExitStatus.status(for: .review) == ExitStatus.review)
        #expect(ExitStatus.status(for: .failed) == ExitStatus.failure)
        #expect(ExitStatus.status(outcomes: [.queued, .notFound, .libraryFull]) == ExitStatus.libraryFull)
        #expect(ExitStatus.status(outcomes: [.libraryFull], inputErrors: true) == ExitStatus.inputError)
        #expect(ExitStatus.status(outcomes: [.failed], inputErrors: true, interrupted: true) == ExitStatus.interrupted)
    }

    /// The hints the wording table prints; CLITests' `IntakeHintCLITests` runs exactly these.
    @Test func everyHintNamesACommand() throws {
        let hints = IntakeWording.allHints(sample: try ISBN13(validating: "9780306406157")).map(\.arguments)
        #expect(hints == [
            ["account", "--pro"], ["pending", "retry"], ["review"],
            ["library", "add", "9780306406157", "--title", "TITLE", "--author", "AUTHOR"],
        ])
        #expect(IntakeWording.libraryFull(owned: 50, limit: 50).contains("`rapidscan account --pro`"))
    }

    @Test func errorsMapToOneStatusEach() {
        #expect(ExitStatus.report(for: LibraryLocation.ReadOnlyLocation(path: "/ro/x.sqlite")).status == ExitStatus.failure)
        #expect(ExitStatus.report(for: UnreadableInput(path: "a", reason: "b")).status == ExitStatus.inputError)
        let thrown = ExitStatus.report(for: ExitStatus.queued)
        #expect(thrown.status == ExitStatus.queued && thrown.message == nil, "a thrown code prints nothing more")
    }

    @Test func oneRawFrameSyntax() throws {
        #expect(try RawFrameSyntax.parse("yuyv:1280x720") == .yuyv(width: 1280, height: 720))
        #expect(try RawFrameSyntax.parse("GREY:640X480") == .y800(width: 640, height: 480))
        for bad in ["rgb:1x2", "y800", "y800:0x10", "y800:10", "y800:10x10:3", ":10x10"] {
            #expect(throws: ValidationError.self, "\(bad)") { try RawFrameSyntax.parse(bad) }
        }
    }

    // MARK: Terminal

    /// (Whether a stream is a terminal is isatty(3); the binary under a real pseudo-terminal
    /// is CLITests' CLIContractTests.colourAndCursorEscapesOnlyOnATerminalThatWantsThem.)
    @Test func escapesOnlyOnATerminalThatWantsThem() {
        #expect(Terminal.allowsEscapes(isTerminal: true, environment: ["TERM": "xterm-256color"]))
        #expect(Terminal.allowsEscapes(isTerminal: true, environment: ["TERM": "xterm", "NO_COLOR": ""]), "an empty NO_COLOR is unset")
        #expect(!Terminal.allowsEscapes(isTerminal: true, environment: ["TERM": "xterm", "NO_COLOR": "1"]))
        #expect(!Terminal.allowsEscapes(isTerminal: true, environment: ["TERM": "dumb"]))
        #expect(!Terminal.allowsEscapes(isTerminal: true, environment: [:]), "no TERM: nothing known to draw escapes")
        #expect(!Terminal.allowsEscapes(isTerminal: false, environment: ["TERM": "xterm-256color"]))

        let pipe = Pipe()
        let piped = StandardStream(descriptor: pipe.fileHandleForWriting.fileDescriptor)
        #expect(!piped.isTerminal)
        #expect(!Terminal.allowsEscapes(piped, environment: ["TERM": "xterm-256color"]))
    }

    @Test func toastColoursFollowTheOutcome() {
        // As `Terminal.toastColour` sets Rainbow once it has decided colour is wanted.
        Rainbow.outputTarget = .console
        Rainbow.enabled = true
        #expect(Terminal.colour("✓ Added", .added) == "\u{1B}[32m✓ Added\u{1B}[0m")
        #expect(Terminal.colour("… Queued", .queued) == "\u{1B}[33m… Queued\u{1B}[0m")
        #expect(Terminal.colour("✗ Book Not Found", .notFound) == "\u{1B}[31m✗ Book Not Found\u{1B}[0m")
        #expect(Terminal.colour("= Already in Library", .alreadyOwned) == "\u{1B}[36m= Already in Library\u{1B}[0m")
        // Without a terminal that wants colour, no closure that could add any is handed out.
        let plain = Terminal.toastColour(environment: ["TERM": "dumb"])
        #expect(plain("✓ Added", .added) == "✓ Added")
    }
}
