import Foundation
import Pipeline
@preconcurrency import Rainbow

/// When the CLI may write escape sequences (colour, cursor moves for the progress bar and
/// the live panel): only to a terminal, and never with `NO_COLOR` set (https://no-color.org)
/// or `TERM=dumb` (or no TERM at all), which cannot draw them.
enum Terminal {
    static func allowsEscapes(
        _ stream: Pipeline.OutputStream, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Bool {
        allowsEscapes(isTerminal: stream.isTerminal, environment: environment)
    }

    static func allowsEscapes(isTerminal: Bool, environment: [String: String]) -> Bool {
        guard isTerminal else { return false }
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        guard let term = environment["TERM"], !term.isEmpty, term != "dumb" else { return false }
        return true
    }

    /// The toast colouring for standard output: Rainbow's colours when allowed, else none.
    static func toastColour(environment: [String: String] = ProcessInfo.processInfo.environment) -> HumanOutput.Colour {
        guard allowsEscapes(.standardOutput, environment: environment) else { return { line, _ in line } }
        // Our rule decided; Rainbow must not second-guess it from its own tty check.
        Rainbow.outputTarget = .console
        Rainbow.enabled = true
        return { line, kind in colour(line, kind) }
    }

    static func colour(_ line: String, _ kind: ScanEvent.Kind) -> String {
        switch kind {
        case .added: line.green
        case .alreadyOwned: line.cyan
        case .queued: line.yellow
        case .nonBook, .debounced, .noCode, .dropped: line.dim
        case .notFound, .libraryFull, .rejected, .unreadable, .failed: line.red
        }
    }
}
