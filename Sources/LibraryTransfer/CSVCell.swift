import Foundation

/// Formula injection (OWASP "CSV Injection"): a spreadsheet opening our CSV runs a text cell
/// that starts with `=`, `+`, `-`, `@`, a tab or a carriage return as a formula
/// (`=HYPERLINK(…)` in a title from a metadata server). Exports write such a text cell with
/// a leading `'`, which spreadsheets show as the text itself; imports take it off again.
///
/// Reversible: a cell that already starts with `'`s before one of those characters gets one
/// more, and reading takes exactly one off, so every text reads back as it was.
enum CSVCell {
    static let triggers: Set<Character> = ["=", "+", "-", "@", "\t", "\r"]

    /// The text cell as written to a CSV export.
    static func protected(_ text: String) -> String {
        needsQuote(text) ? "'" + text : text
    }

    /// A cell as read from a CSV file: our own protection taken off.
    static func unprotected(_ cell: String) -> String {
        cell.hasPrefix("'") && needsQuote(cell) ? String(cell.dropFirst()) : cell
    }

    /// Starts with a trigger, after any run of `'`.
    private static func needsQuote(_ text: String) -> Bool {
        text.drop(while: { $0 == "'" }).first.map(triggers.contains) ?? false
    }
}
