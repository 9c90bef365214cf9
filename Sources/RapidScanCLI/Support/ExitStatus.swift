import ArgumentParser
import Catalogue
import Foundation
import Intake
import Pipeline
import RapidScanConfig

/// The one exit-status table of every command (docs/CLI.md): the same situation gives the
/// same code everywhere. When several apply, the first in `precedence` wins.
enum ExitStatus {
    /// Everything asked for was done.
    static let success = ExitCode(0)
    /// Some input could not be used (unreadable or unsupported file, bad row, a value that
    /// is not an ISBN); the rest was processed.
    static let inputError = ExitCode(1)
    /// Some code or reading matched no book.
    static let notFound = ExitCode(2)
    /// Some books are queued because no source could answer now.
    static let queued = ExitCode(3)
    /// Some file held no barcode (`decode` only).
    static let partial = ExitCode(4)
    /// Some books were not added: the library is full (free plan).
    static let libraryFull = ExitCode(5)
    /// Some spine matches wait for review.
    static let review = ExitCode(6)
    /// Bad command line (EX_USAGE); ArgumentParser exits with it on a usage error.
    static let usage = ExitCode(64)
    /// The database or the configuration could not be used: nothing more could be done.
    static let failure = ExitCode(70)
    /// Ctrl-C or SIGTERM: work in flight finished, the summary printed.
    static let interrupted = ExitCode(InterruptMonitor.exitStatus)

    static let precedence: [ExitCode] = [interrupted, failure, inputError, libraryFull, queued, notFound, review, partial]

    /// The most serious of `codes` by `precedence` (success when none is set).
    static func worst(_ codes: [ExitCode]) -> ExitCode {
        precedence.first { codes.contains($0) } ?? success
    }

    /// The exit status each intake outcome calls for, whichever command it came from
    /// (`scan`, `watch`, `spines`, `review`, `import`, `library add`, `library notfound --retry`, `pending retry`).
    static func status(for kind: IntakeOutcome.Kind) -> ExitCode {
        switch kind {
        case .added, .alreadyOwned: success
        case .libraryFull: libraryFull
        case .queued: queued
        case .notFound, .unmatched: notFound
        case .review: review
        // A book that could not be stored or queued: the database (its message names it).
        case .failed: failure
        }
    }

    /// The one exit policy of a run: its outcomes, plus what is not a book's outcome (input
    /// that could not be used, an interrupted run, a file without a code in `decode`).
    static func status(outcomes: some Sequence<IntakeOutcome.Kind>, inputErrors: Bool = false, interrupted: Bool = false,
                       partial: Bool = false) -> ExitCode {
        var codes = outcomes.map(status(for:))
        if inputErrors { codes.append(inputError) }
        if interrupted { codes.append(Self.interrupted) }
        if partial { codes.append(Self.partial) }
        return worst(codes)
    }

    /// Throws the policy's status unless it is success.
    static func exit(outcomes: some Sequence<IntakeOutcome.Kind>, inputErrors: Bool = false, interrupted: Bool = false) throws {
        let status = status(outcomes: outcomes, inputErrors: inputErrors, interrupted: interrupted)
        if status != success { throw status }
    }

    /// Appended to every command's `--help` so the table is everywhere it is needed.
    static let table = """
        Exit status (the same in every rapidscan command; the first that applies wins, in \
        this order: 130, 70, 1, 5, 3, 2, 6, 4):
          0    everything asked for was done
          1    some input could not be used (file, row or value); the rest was processed
          2    some code or reading matched no book
          3    some books are queued: no source could answer now (`rapidscan pending retry`)
          4    some file held no barcode (decode)
          5    some books were not added: the library is full (free plan)
          6    some spine matches wait for `rapidscan review`
          64   usage error (bad flag or value)
          70   the database or the configuration could not be used
          130  interrupted (Ctrl-C or SIGTERM) after finishing the work in flight
        """

    /// `discussion` followed by the table.
    static func help(_ discussion: String = "") -> String {
        discussion.isEmpty ? table : discussion + "\n\n" + table
    }

    /// The status for an error that ended a command, and the line to print for it (nil when
    /// the command already said everything, as with a thrown `ExitCode`).
    static func report(for error: any Error) -> (status: ExitCode, message: String?) {
        switch error {
        case let code as ExitCode: return (code, nil)
        case is ConfigError, is CatalogueError, is LibraryLocation.ReadOnlyLocation: return (failure, "\(error)")
        case let error as LibraryError:
            if case .catalogue = error { return (failure, "\(error)") }
            return (inputError, "\(error)")
        case is UnreadableInput: return (inputError, "\(error)")
        default: return (failure, "\(error)")
        }
    }
}
