import Foundation

/// Text from outside (a metadata server, an import file, a vision reply, a command-line
/// flag) on its way in, and names (file paths) on their way to a terminal.
///
/// `clean` is the one rule where outside text enters: what is stored holds no terminal
/// control. A title holding `ESC[2J` would clear the screen of whoever lists the library,
/// OSC 52 would write their clipboard, U+202E would show the rest of a line reversed.
public enum OutsideText {
    /// The text without control characters: ESC sequences (CSI `ESC[…`, OSC `ESC]…BEL`,
    /// DCS/APC/PM/SOS up to their terminator) dropped whole, other C0 controls and DEL
    /// dropped (tab and line breaks become spaces; `keepingLines` keeps the line breaks of a
    /// description), C1 controls dropped (Windows-1252 punctuation that arrived as C1 is
    /// repaired first), bidirectional overrides and isolates dropped. A NUL is dropped, not
    /// an end: the text after it stays.
    public static func clean(_ text: String, keepingLines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        let scalars = Array(text.unicodeScalars)
        var output = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            switch scalar.value {
            case 0x1B:
                index = endOfEscape(scalars, after: index)
            case 0x9B, 0x9D, 0x90, 0x98, 0x9E, 0x9F:
                // C1 CSI/OSC/DCS/SOS/PM/APC: a sequence like its ESC form.
                index = endOfSequence(scalars, introducer: scalar.value, from: index)
            case 0x0A where keepingLines, 0x0D where keepingLines:
                output.append(scalar)
            case 0x09, 0x0A, 0x0B, 0x0C, 0x0D:
                output.append(" ")
            default:
                if let punctuation = PlainText.windows1252C1[scalar.value] {
                    output.append(contentsOf: punctuation.unicodeScalars)
                } else if !isUnsafe(scalar) {
                    output.append(scalar)
                }
            }
        }
        return String(output)
    }

    /// The text as XML or HTML character data or a quoted attribute value: `& < > "` escaped
    /// (MARCXML's fields, the review page's readings and titles).
    public static func markupEscaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }

    /// Whether `scalar` may change what a terminal shows beyond its own glyph.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        // LRE, RLE, PDF, LRO, RLO; LRI, RLI, FSI, PDI; ALM, LRM, RLM.
        case 0x202A...0x202E, 0x2066...0x2069, 0x061C, 0x200E, 0x200F: true
        default: false
        }
    }

    /// A name (a file's path) as bytes, shown with every byte that is not part of valid
    /// UTF-8, and every control or bidirectional character, escaped (`caf\xE9.png`,
    /// `a\x1B[2J.png`, `a\nb.png`, `\u{202E}gnp.exe`).
    public static func shown(_ bytes: [UInt8]) -> String {
        var result = ""
        var index = 0
        while index < bytes.count {
            // The longest valid UTF-8 sequence starting here (1-4 bytes), else one escaped byte.
            var matched = false
            for length in (1...4).reversed() where index + length <= bytes.count {
                if let text = String(validating: bytes[index..<index + length], as: UTF8.self), text.unicodeScalars.count == 1 {
                    result += shown(text.unicodeScalars.first!)
                    index += length
                    matched = true
                    break
                }
            }
            if !matched {
                result += String(format: "\\x%02X", bytes[index])
                index += 1
            }
        }
        return result
    }

    /// A name given as text, shown as `shown(_:)` shows its bytes.
    public static func shown(_ name: String) -> String {
        guard name.unicodeScalars.contains(where: isUnsafe) else { return name }
        return shown(Array(name.utf8))
    }

    /// At most this many characters of a value are quoted in a message (a 50 MB line is not).
    public static let excerptLength = 40

    /// `text` as a message quotes it: its first `excerptLength` characters shown escaped,
    /// and how long it was when it was longer (`'7777…' (52428800 bytes)`).
    public static func excerpt(_ text: some StringProtocol) -> String {
        var head = Substring(text).prefix(excerptLength)
        let cut = head.endIndex < text.endIndex
        if cut { head = head.prefix(excerptLength - 1) }
        let quoted = shown(String(head))
        return cut ? "\(quoted)… (\(text.utf8.count) bytes)" : quoted
    }

    private static func shown(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x09: return "\\t"
        case 0x00...0x7F where isUnsafe(scalar): return String(format: "\\x%02X", scalar.value)
        default: return isUnsafe(scalar) ? String(format: "\\u{%04X}", scalar.value) : String(scalar)
        }
    }

    /// After an ESC at `index - 1`: where the text resumes.
    private static func endOfEscape(_ scalars: [Unicode.Scalar], after index: Int) -> Int {
        guard index < scalars.count else { return index }
        switch scalars[index] {
        case "[": return endOfSequence(scalars, introducer: 0x9B, from: index + 1)
        case "]": return endOfSequence(scalars, introducer: 0x9D, from: index + 1)
        case "P", "X", "^", "_": return endOfSequence(scalars, introducer: 0x90, from: index + 1)
        default:
            // Two-character escapes (ESC c resets the terminal) and charset selections
            // (ESC ( B): intermediates 0x20-0x2F, then one final character.
            var end = index
            while end < scalars.count, (0x20...0x2F).contains(scalars[end].value) { end += 1 }
            return min(end + 1, scalars.count)
        }
    }

    /// The end of a CSI (parameters and intermediates, then a final 0x40-0x7E) or of a
    /// string sequence (up to BEL, ESC \ or ST). One that never ends loses only its introducer.
    private static func endOfSequence(_ scalars: [Unicode.Scalar], introducer: UInt32, from start: Int) -> Int {
        var index = start
        if introducer == 0x9B {
            while index < scalars.count {
                let value = scalars[index].value
                if (0x40...0x7E).contains(value) { return index + 1 }
                guard (0x20...0x3F).contains(value) else { return index }
                index += 1
            }
            return start
        }
        while index < scalars.count {
            switch scalars[index].value {
            case 0x07, 0x9C: return index + 1
            case 0x1B where index + 1 < scalars.count && scalars[index + 1] == "\\": return index + 2
            default: index += 1
            }
        }
        return start
    }
}
