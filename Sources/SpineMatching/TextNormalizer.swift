import BookMetadata
import Foundation

/// Title and author text reduced to what matching compares: lower case, accents folded,
/// punctuation gone, leading articles dropped, and OCR look-alikes (rn/m, 0/O, 1/l, 5/S,
/// vv/w) mapped to one spelling on both sides so a misread letter costs nothing.
public enum TextNormalizer {
    static let articles: Set<String> = ["the", "a", "an", "le", "la", "les", "l", "der", "die", "das", "el", "los", "las", "il", "lo", "un", "une",
                                        "els", "una"]
    /// English function words (and Chinese ones: each character is a word there, "与" is "and",
    /// "的" "of") as written: what glued runs are spaced around (`WordFrequencies`).
    static let gluingWords: Set<String> = ["the", "a", "an", "of", "and", "in", "on", "to", "for", "with", "at", "by", "from", "de", "la", "le",
                                           "et", "und", "的", "与", "和", "及", "之"]
    /// Function words, Spanish and Catalan ones too, in both spellings: the words compared are
    /// `ocrCanonical` ("in" is "ln", "with" "wlth"), so the plain spelling alone never matched those.
    static let stopwords: Set<String> = {
        let words = gluingWords.union(["el", "los", "las", "del", "els", "dels", "les", "y", "en", "una", "con", "por", "amb"])
        return words.union(words.map(ocrCanonical))
    }()

    /// Lower case, accents folded, every non-alphanumeric run a single space.
    public static func fold(_ text: String) -> String {
        if let ascii = foldASCII(text) { return ascii }
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: Locale(identifier: "en_US_POSIX"))
        var out = ""
        out.reserveCapacity(folded.utf8.count)
        var lastSpace = true
        var lastHan = false, lastIdeograph = false
        for (scalar, camelStart) in zip(folded.unicodeScalars, camelBoundaries(text, count: folded.unicodeScalars.count)) {
            // "TheFaithful Spy": a lower-to-upper change inside a word is a lost space.
            if camelStart, !lastSpace { out.append(" "); lastSpace = true }
            // "Spark GraphX实战": Latin and CJK script run together are two words (a Latin-script
            // reader reads one of them). Chinese and Japanese are written without spaces: each
            // Han or kana character is a word of its own, so a title read in part, inside junk
            // or with one character wrong is compared character by character ("大数据系统构建"
            // -> "大 数 据 系 统 构 建"). Hangul is written with spaces and stays in words.
            let han = isCJK(scalar)
            let ideograph = scalar.isHanOrKana
            if !lastSpace, han != lastHan || ideograph || lastIdeograph, CharacterSet.alphanumerics.contains(scalar) { out.append(" "); lastSpace = true }
            lastHan = han
            lastIdeograph = ideograph
            // Apostrophes join ("sorcerer's" -> "sorcerers"); other punctuation separates.
            if scalar == "'" || scalar == "\u{2019}" { continue }
            if CharacterSet.alphanumerics.contains(scalar) {
                out.unicodeScalars.append(scalar)
                lastSpace = false
            } else if !lastSpace {
                out.append(" ")
                lastSpace = true
            }
        }
        if out.hasSuffix(" ") { out.removeLast() }
        return out
    }

    /// Han, kana and Hangul: scripts written without spaces between words.
    static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7AF, 0xF900...0xFAFF, 0x20000...0x2FA1F: true
        default: false
        }
    }

    /// A word that is one Han or kana character (`fold` makes every such character a word).
    public static func isIdeographic(_ word: String) -> Bool {
        word.count == 1 && word.first!.isHanOrKana
    }

    /// `fold` for plain ASCII text (most titles) without Foundation's folding; nil otherwise.
    private static func foldASCII(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        func isLower(_ b: UInt8) -> Bool { b >= 0x61 && b <= 0x7A }
        func isUpper(_ b: UInt8) -> Bool { b >= 0x41 && b <= 0x5A }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var lastSpace = true
        for (i, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: "'") { continue }
            // Same camel-case rule as `camelBoundaries`.
            if isUpper(byte), i >= 2, i + 1 < bytes.count, isLower(bytes[i + 1]), isLower(bytes[i - 1]), isLower(bytes[i - 2]), !lastSpace,
               byte != UInt8(ascii: "I") || !readsAsWordWithL(bytes.map { Unicode.Scalar($0) }, at: i) {
                out.append(0x20)
                lastSpace = true
            }
            if isLower(byte) || (byte >= 0x30 && byte <= 0x39) {
                out.append(byte)
                lastSpace = false
            } else if isUpper(byte) {
                out.append(byte + 0x20)
                lastSpace = false
            } else if !lastSpace {
                out.append(0x20)
                lastSpace = true
            }
        }
        if out.last == 0x20 { out.removeLast() }
        return String(decoding: out, as: UTF8.self)
    }

    /// The text as read with a space at each lost space `fold` finds by case ("MatroidTheory",
    /// "toFasterReading"), nothing else changed: what a source's search is asked (its own
    /// tokenizer splits at punctuation, and "Sorcerer's" must stay as printed).
    public static func camelSpaced(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        let starts = camelBoundaries(text, count: scalars.count)
        guard starts.contains(true) else { return text }
        var spaced = String.UnicodeScalarView()
        for (scalar, start) in zip(scalars, starts) {
            if start { spaced.append(" ") }
            spaced.append(scalar)
        }
        return String(spaced)
    }

    /// For each scalar of the folded text, whether in the original
    /// a lower-case letter is followed by an upper-case one there (folding keeps the scalar count for Latin text; otherwise no boundaries).
    private static func camelBoundaries(_ text: String, count: Int) -> [Bool] {
        let scalars = text.unicodeScalars
        guard scalars.count == count else { return [Bool](repeating: false, count: count) }
        // Only "xxXx": two lower-case letters, then an upper-case one followed by a lower-case
        // one. OCR's "SHlNlNG" (l for I) and "McDonald" stay whole.
        let list = Array(scalars)
        let lower = CharacterSet.lowercaseLetters, upper = CharacterSet.uppercaseLetters
        return list.indices.map { i in
            i >= 2 && i + 1 < list.count && upper.contains(list[i]) && lower.contains(list[i + 1])
                && lower.contains(list[i - 1]) && lower.contains(list[i - 2])
                && (list[i] != "I" || !readsAsWordWithL(list, at: i))
        }
    }

    /// Whether the word around the capital `I` at `index` (the lower-case letters either side,
    /// and a capital before them) is a dictionary word when that `I` is an `l`: OCR and small
    /// models read `l` as `I` ("The MiserabIe Mill"), which the camel-case rule would cut into
    /// "miserab ie". "theIsland" ("thelsland") is no word and is still two.
    static func readsAsWordWithL(_ scalars: [Unicode.Scalar], at index: Int) -> Bool {
        func isLower(_ s: Unicode.Scalar) -> Bool { CharacterSet.lowercaseLetters.contains(s) }
        var start = index, end = index + 1
        while start > 0, isLower(scalars[start - 1]) { start -= 1 }
        if start > 0, CharacterSet.uppercaseLetters.contains(scalars[start - 1]) { start -= 1 }
        while end < scalars.count, isLower(scalars[end]) { end += 1 }
        var word = String.UnicodeScalarView()
        for (offset, scalar) in scalars[start..<end].enumerated() {
            word.append(start + offset == index ? "l" : scalar)
        }
        return WordFrequencies.systemDictionary.contains(ocrCanonical(String(word).lowercased()))
    }

    /// Folded words, with OCR look-alikes canonicalised.
    public static func tokens(_ text: String) -> [String] {
        fold(text).split(separator: " ").map { ocrCanonical(String($0)) }
    }

    /// Tokens without a leading article.
    public static func titleTokens(_ text: String) -> [String] {
        var words = fold(text).split(separator: " ").map(String.init)
        if words.count > 1, articles.contains(words[0]) { words.removeFirst() }
        return words.map(ocrCanonical)
    }

    /// One spelling for characters OCR and small vision models confuse. Digits become
    /// letters only inside words that also hold letters ("1984" stays a number, "B0Y" -> "boy").
    static func ocrCanonical(_ word: String) -> String {
        var w = word
        let hasLetter = w.contains(where: \.isLetter)
        let hasDigit = w.contains(where: \.isNumber)
        if hasLetter && hasDigit {
            w = String(w.map { c -> Character in
                switch c {
                case "0": "o"
                case "1": "l"
                case "5": "s"
                case "8": "b"
                default: c
                }
            })
        }
        if w.contains("rn") { w = w.replacingOccurrences(of: "rn", with: "m") }
        if w.contains("vv") { w = w.replacingOccurrences(of: "vv", with: "w") }
        if w.contains("cl") { w = w.replacingOccurrences(of: "cl", with: "d") }
        // i/l/1/| all look alike on a narrow spine.
        if w.contains("i") && hasLetter { w = w.replacingOccurrences(of: "i", with: "l") }
        return w
    }
}

/// A title split the way catalogues and spines print it.
public struct TitleParts: Sendable, Hashable {
    /// Everything before a subtitle separator, series parenthesis or volume marker.
    public var main: [String]
    /// Main title plus subtitle.
    public var full: [String]
    /// "(Series, #n)" or "Series, Vol. n": the series' words.
    public var series: [String]
    /// The volume number, when printed ("Vol. 7", "#7", "Book VII", "Volume One").
    public var volume: Double?
    /// The volume is printed in the title itself ("Batman: Earth One, Volume 1"), not only in a
    /// "(Series, #n)" suffix: the title then reads the same for every volume.
    public var volumeInTitle = false

    static let volumeWords = ["vol", "volume", "book", "part", "tome", "band", "no", "number", "issue", "livre", "bd"]
    static let numberWords: [String: Double] = [
        "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
        "eleven": 11, "twelve": 12, "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
    ]
    static let romans: [String: Double] = [
        "i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10,
        "xi": 11, "xii": 12, "xiii": 13, "xiv": 14, "xv": 15,
    ]

    /// Parses a title as printed. `seriesHint`/`volumeHint` are what a reader reported separately.
    public init(title: String, seriesHint: String? = nil, volumeHint: String? = nil) {
        var text = title
        var series: [String] = []
        var volume: Double?
        var volumeInTitle = false
        // "(Series, #3)" / "(Series #3)" at the end (Goodreads style).
        if let open = text.lastIndex(of: "("), text.hasSuffix(")") {
            let inner = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
            if let hash = inner.lastIndex(of: "#") {
                let name = inner[..<hash].trimmingCharacters(in: CharacterSet(charactersIn: " ,;"))
                let number = inner[inner.index(after: hash)...].trimmingCharacters(in: .whitespaces)
                series = TextNormalizer.titleTokens(name)
                // "#5", "#5, Part 1", "#1-3", "#0.5": the leading number.
                volume = Double(String(number.prefix { $0.isNumber || $0 == "." }))
                text = String(text[..<open]).trimmingCharacters(in: .whitespaces)
            }
        }
        let foldedWords = TextNormalizer.fold(text).split(separator: " ").map(String.init)
        // A volume marker inside the title: "Naruto, Vol. 01: The Tests" -> series "naruto", volume 1.
        var mainEnd = foldedWords.count
        var i = 0
        while i < foldedWords.count {
            let word = foldedWords[i]
            if Self.volumeWords.contains(word), i + 1 < foldedWords.count, let n = Self.number(foldedWords[i + 1]) {
                if volume == nil { volume = n }
                volumeInTitle = true
                if series.isEmpty, i > 0 { series = TextNormalizer.titleTokens(foldedWords[..<i].joined(separator: " ")) }
                mainEnd = min(mainEnd, i)
                break
            }
            i += 1
        }
        // "Harry Potter 3" / "Saga 1": a trailing bare number after at least one word.
        if volume == nil, foldedWords.count >= 2, let last = foldedWords.last, let n = Double(last), n < 200,
           !(foldedWords.count == 2 && last.count == 4) {
            volume = n
            volumeInTitle = true
            mainEnd = foldedWords.count - 1
        }
        // Subtitle: the part before the first ":" (or " - ").
        // A trailing "(Penguin Classics)" / "(Deluxe Edition)" is no part of the title either.
        var head = text
        if head.hasSuffix(")"), let open = head.lastIndex(of: "("), open > head.startIndex {
            head = String(head[..<open]).trimmingCharacters(in: .whitespaces)
        }
        let beforeColon = head.split(separator: ":", maxSplits: 1).first.map(String.init) ?? head
        let mainTokens = TextNormalizer.titleTokens(beforeColon)
        let fullTokens = TextNormalizer.titleTokens(foldedWords.joined(separator: " "))
        var main = mainTokens
        if mainEnd < foldedWords.count {
            let head = TextNormalizer.titleTokens(foldedWords[..<mainEnd].joined(separator: " "))
            if !head.isEmpty, head.count < main.count { main = head }
        }
        if let seriesHint, !seriesHint.isEmpty, series.isEmpty { series = TextNormalizer.titleTokens(seriesHint) }
        if let volumeHint, let n = Self.number(TextNormalizer.fold(volumeHint).split(separator: " ").last.map(String.init) ?? "") {
            volume = n
        }
        self.main = main.isEmpty ? fullTokens : main
        self.full = fullTokens
        self.series = series
        self.volume = volume
        self.volumeInTitle = volumeInTitle
    }

    static func number(_ word: String) -> Double? {
        if let n = Double(word) { return n }
        return numberWords[word] ?? romans[word]
    }
}
