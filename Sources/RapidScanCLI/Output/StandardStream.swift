import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file descriptor written with write(2), so lines reach a pipe at once (no stdio buffer).
struct StandardStream: Sendable {
    let descriptor: Int32
    init(descriptor: Int32) { self.descriptor = descriptor }

    static let standardOutput = StandardStream(descriptor: STDOUT_FILENO)
    static let standardError = StandardStream(descriptor: STDERR_FILENO)

    var isTerminal: Bool { isatty(descriptor) == 1 }

    /// Whether escape sequences (colour, cursor moves) may go to this stream: only to a
    /// terminal, never with `NO_COLOR` set (https://no-color.org) or `TERM=dumb` (or no TERM
    /// at all), which cannot draw them. The one rule for the CLI and the interrupt handler.
    func allowsEscapes(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        Self.allowsEscapes(isTerminal: isTerminal, environment: environment)
    }

    static func allowsEscapes(isTerminal: Bool, environment: [String: String]) -> Bool {
        guard isTerminal else { return false }
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        guard let term = environment["TERM"], !term.isEmpty, term != "dumb" else { return false }
        return true
    }

    func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return  // a closed pipe: nothing sensible left to do with output
            }
            offset += written
        }
        bytes.removeAll()
    }
}
