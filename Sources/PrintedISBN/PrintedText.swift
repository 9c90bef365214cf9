import BookCodes

/// What a number printed on a book says it is, from the words around it on its line.
public enum PrintedLabel: Sendable, Hashable {
    /// "ISBN", "ISBN-10", "ISBN-13", "ISBN:" before it.
    case isbn
    /// "SBN" before it: a 9-digit Standard Book Number, the ISBN-10 with a leading 0.
    case sbn
    /// No label: only a 13-digit 978/979 run counts (the digit line under a book's bars).
    case none
}

/// One ISBN found in a line of OCR text, before it is confirmed.
public struct PrintedNumber: Sendable, Hashable {
    public var isbn: ISBN13
    /// The digits as printed (9, 10 or 13), without hyphens or spaces.
    public var printed: String
    public var label: PrintedLabel
    /// The format named beside it ("ebook", "pbk."), lowercased, if any.
    public var format: String?
    /// The format is one this photographed copy cannot be (an ebook, an audiobook).
    public var isOtherFormat: Bool

    public init(isbn: ISBN13, printed: String, label: PrintedLabel, format: String? = nil, isOtherFormat: Bool = false) {
        self.isbn = isbn
        self.printed = printed
        self.label = label
        self.format = format
        self.isOtherFormat = isOtherFormat
    }
}

/// Reading ISBNs and EAN/UPC digit lines out of OCR text. Pure: the rules the tests pin down.
///
/// A labelled number ("ISBN 0-345-34803-6", "SBN 345-03355-4") counts at 13 or 10 characters
/// (9 after "SBN") with its check character right; an unlabelled one only as a 13-digit run
/// starting 978/979 whose check digit holds (the line under a book's bars). Ten unlabelled
/// digits are never an ISBN: phone numbers and LCCNs have that shape, and one in eleven of
/// them passes the mod-11 check by chance.
public enum PrintedText {
    /// Formats a photographed copy cannot be; an ISBN labelled with one is reported, not added.
    static let otherFormats = ["ebook", "e-book", "epub", "e-pub", "pdf", "kindle", "mobi", "electronic", "digital",
                               "audio", "audiobook", "online", "web"]
    /// Print formats: the ISBN names a paper edition (perhaps this one).
    static let printFormats = ["hardcover", "hardback", "hbk", "hc", "cloth", "paperback", "pbk", "pb", "softcover",
                               "trade", "mass market", "library binding", "print", "large print", "alk. paper", "acid-free"]

    /// The ISBNs a line of text states, in reading order.
    public static func numbers(in line: String) -> [PrintedNumber] {
        let tokens = tokenize(line)
        var found: [(number: PrintedNumber, end: Int)] = []
        var index = 0
        while index < tokens.count {
            guard let label = tokens[index].label else { index += 1; continue }
            var digits = tokens[index].digitsAfterLabel
            var end = index
            var best: (isbn: ISBN13, printed: String, end: Int)?
            if let accepted = accept(digits, label: label) { best = (accepted, digits, end) }
            var next = index + 1
            while next < tokens.count, tokens[next].label == nil, let more = tokens[next].digits, digits.count + more.count <= 13 {
                digits += more
                end = next
                if let accepted = accept(digits, label: label) { best = (accepted, digits, end) }
                next += 1
            }
            if let best {
                let otherLabelAt = tokens[(best.end + 1)...].firstIndex { $0.label != nil } ?? tokens.count
                let (format, other) = formatNamed(prefix: tokens[index].prefixWord,
                                                  before: index > 0 ? tokens[max(0, index - 2)..<index].map(\.text) : [],
                                                  after: tokens[(best.end + 1)..<otherLabelAt].map(\.text))
                found.append((PrintedNumber(isbn: best.isbn, printed: best.printed, label: label == .sbn ? .sbn : .isbn,
                                            format: format, isOtherFormat: other), best.end))
                index = best.end + 1
            } else {
                index += 1
            }
        }
        let labelled = Set(found.map(\.number.isbn))
        for run in digitRuns(in: tokens) where run.count == 13 {
            guard run.hasPrefix("978") || run.hasPrefix("979"), let isbn = try? ISBN13(validating: run),
                  !labelled.contains(isbn) else { continue }
            found.append((PrintedNumber(isbn: isbn, printed: run, label: .none), tokens.count))
        }
        return found.map(\.number)
    }

    /// Whether a line read alone shows an ISBN-like run: nine digits or more (an ISBN's digits,
    /// an SBN's nine, the digit line under bars), or "SBN" (of "ISBN"/"SBN", its label): the
    /// digits anywhere on the line, so a price and a year (8) are not enough, a phone number is.
    public static func showsAnISBN(_ text: String) -> Bool {
        text.filter { $0.isASCII && $0.isNumber }.count >= 9 || text.uppercased().contains("SBN")
    }

    /// The ISBN-13s in a line read as digits alone (the digit engine, guard-bar stubs erased):
    /// every 13-digit window of its digits, spaces ignored, that starts 978/979 and whose check
    /// holds. A stub left over reads as a "1" between the groups, a bar of the add-on beside the
    /// code as a digit after them ("911781585730575"): whole runs would lose those lines. Chance
    /// passes the check one time in ten; the caller asks two readings to agree.
    public static func digitLineISBNs(in text: String) -> Set<ISBN13> {
        let digits = Array(text.filter { $0.isASCII && $0.isNumber })
        guard digits.count >= 13 else { return [] }
        var found: Set<ISBN13> = []
        for start in 0...(digits.count - 13) where digits[start] == "9" && digits[start + 1] == "7"
            && (digits[start + 2] == "8" || digits[start + 2] == "9") {
            if let isbn = try? ISBN13(validating: String(digits[start..<start + 13])) { found.insert(isbn) }
        }
        return found
    }

    /// Runs of digit groups making 12 or 13 digits whose GS1 check digit holds, as GTIN-13
    /// (a UPC-A with its leading 0): what the human-readable line under an EAN/UPC says.
    public static func gtinLines(in line: String) -> [String] {
        let tokens = tokenize(line)
        var lines: [String] = []
        // A labelled number is an ISBN or nothing: "ISBN 978-1-250-31318" with its check digit
        // cut off is 12 digits that pass a UPC-A check one time in ten.
        for run in digitRuns(in: tokens, skippingLabelled: true) where run.count == 12 || run.count == 13 {
            if let gtin = try? GTIN(validating: run) { lines.append(gtin.gtin13) }
        }
        for number in numbers(in: line) where number.label != .none { lines.append(number.isbn.digits) }
        return lines
    }

    // MARK: - Tokens

    struct Token {
        var text: String
        /// "ISBN", "SBN" (with "-10", "-13", ":", an "e" before it) opening the token.
        var label: PrintedLabel?
        /// A word glued before the label ("eISBN" → "e").
        var prefixWord: String?
        /// The digits glued after the label ("ISBN:0345348036").
        var digitsAfterLabel: String
        /// The token as digits, OCR's letter-for-digit slips mended; nil when it is not a number.
        var digits: String?
    }

    static func tokenize(_ line: String) -> [Token] {
        // Quote marks are the stubs of guard bars read between the digit groups ("9 "780201"310054").
        line.split(whereSeparator: { " \t\"“”'‘’".contains($0) }).map { word in
            let text = String(word)
            var token = Token(text: text, label: nil, prefixWord: nil, digitsAfterLabel: "", digits: digitsOf(text))
            let upper = text.uppercased()
            for (name, label) in [("ISBN", PrintedLabel.isbn), ("SBN", .sbn)] {
                guard let range = upper.range(of: name) else { continue }
                let before = String(upper[..<range.lowerBound])
                // "ISBN" inside "eISBN"/"E-ISBN" is still a label; "SBN" inside "ISBN" was taken above.
                guard before.isEmpty || before == "E" || before == "E-" || before == "(" else { continue }
                var rest = Substring(upper[range.upperBound...])
                if rest.hasPrefix("-13") || rest.hasPrefix("-10") { rest = rest.dropFirst(3) }
                else if rest.hasPrefix("13") || rest.hasPrefix("10"), rest.count <= 3 { rest = rest.dropFirst(2) }
                while let first = rest.first, first == ":" || first == "." || first == "-" { rest = rest.dropFirst() }
                token.label = label
                token.prefixWord = before.isEmpty || before == "(" ? nil : "e"
                token.digitsAfterLabel = rest.isEmpty ? "" : (digitsOf(String(rest)) ?? "")
                token.digits = nil
                break
            }
            return token
        }
    }

    /// The digits of a token that is a number ("0-345-34803-6", "978-0", "O-345"), the check
    /// character X kept at its end; nil for words.
    static func digitsOf(_ text: String) -> String? {
        var trimmed = Substring(text)
        while let last = trimmed.last, ".,;:)]\"'“”’".contains(last) { trimmed = trimmed.dropLast() }
        while let first = trimmed.first, "([:\"'“‘".contains(first) { trimmed = trimmed.dropFirst() }
        guard !trimmed.isEmpty else { return nil }
        var digits = ""
        var realDigits = 0
        for (offset, character) in trimmed.enumerated() {
            switch character {
            case "0"..."9": digits.append(character); realDigits += 1
            case "-", "‐", "‑", "–", "—": continue
            // OCR's usual slips inside a number.
            case "O", "o": digits.append("0")
            case "I", "l", "|": digits.append("1")
            case "X", "x":
                guard offset == trimmed.count - 1 else { return nil }
                digits.append("X")
            default: return nil
            }
        }
        // A word of slips alone ("I", "lO") is no number.
        return realDigits * 2 > digits.count ? digits : nil
    }

    /// Maximal runs of number tokens next to each other, their digits joined (X only last).
    static func digitRuns(in tokens: [Token], skippingLabelled: Bool = false) -> [String] {
        var runs: [String] = []
        var current = ""
        var labelled = false
        for token in tokens {
            if let digits = token.digits, !current.hasSuffix("X") {
                current += digits
            } else {
                if !current.isEmpty, !(skippingLabelled && labelled) { runs.append(current) }
                current = token.digits ?? ""
                labelled = token.label != nil
            }
        }
        if !current.isEmpty, !(skippingLabelled && labelled) { runs.append(current) }
        // A run of 14+ digits may hold a 13-digit line glued to a neighbour's digits: every
        // 12/13-digit window that starts at a group boundary is not tried (chance passes the
        // check one time in ten); such a run counts as nothing.
        return runs
    }

    static func accept(_ digits: String, label: PrintedLabel) -> ISBN13? {
        switch digits.count {
        case 13 where label == .isbn: try? ISBN13(validating: digits)
        case 10 where label == .isbn: try? ISBN10(validating: digits).isbn13
        case 9 where label == .sbn: try? ISBN10(validating: "0" + digits).isbn13
        default: nil
        }
    }

    /// The format named next to a number: the words after it up to the next label, or the two
    /// before its label ("Paperback ISBN", "eBook ISBN"), or an "e" glued to the label.
    static func formatNamed(prefix: String?, before: [String], after: [String]) -> (String?, Bool) {
        if prefix == "e" { return ("e-ISBN", true) }
        for words in [after, before] {
            let text = words.joined(separator: " ").lowercased()
            for name in otherFormats where contains(word: name, in: text) { return (name, true) }
            for name in printFormats where contains(word: name, in: text) { return (name, false) }
        }
        return (nil, false)
    }

    private static func contains(word: String, in text: String) -> Bool {
        var search = text[...]
        while let range = search.range(of: word) {
            let before = range.lowerBound == text.startIndex ? nil : text[text.index(before: range.lowerBound)]
            let after = range.upperBound == text.endIndex ? nil : text[range.upperBound]
            if !(before?.isLetter ?? false), !(after?.isLetter ?? false) { return true }
            search = text[range.upperBound...]
        }
        return false
    }
}
