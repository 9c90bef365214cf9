import Foundation
import Pipeline
@preconcurrency import Rainbow

/// Escape sequences (colour, cursor moves for the progress bar and the live panel) follow
/// `StandardStream.allowsEscapes`: a terminal, no `NO_COLOR`, a TERM that is not dumb.
enum Terminal {
    static func allowsEscapes(
        _ stream: StandardStream, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Bool {
        stream.allowsEscapes(environment: environment)
    }

    static func allowsEscapes(isTerminal: Bool, environment: [String: String]) -> Bool {
        StandardStream.allowsEscapes(isTerminal: isTerminal, environment: environment)
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
        case .queued, .unreadCode, .held: line.yellow
        case .nonBook, .debounced, .noCode, .dropped: line.dim
        case .notFound, .libraryFull, .rejected, .unreadable, .failed: line.red
        }
    }

    /// The terminal's width in columns (TIOCGWINSZ on the descriptor), 80 when it cannot say.
    static func columns(of descriptor: Int32 = STDOUT_FILENO) -> Int {
        var size = winsize()
        let status = withUnsafeMutablePointer(to: &size) { ioctl(descriptor, UInt(TIOCGWINSZ), $0) }
        guard status == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}
