import Foundation

/// How often words occur in titles, and which words a dictionary knows: what OCR's glued runs
/// ("THEHOUSEOFTHE", "GUIDETO") are spaced with before any candidate search. Words are kept in
/// `TextNormalizer.ocrCanonical` spelling, the spelling the index and the matcher compare.
public struct WordFrequencies: Sendable {
    /// Canonical word -> how many works use it (in a title, series or author's name).
    let counts: [String: Int]
    /// Lower-case words of the system's English word list (`systemDictionary`), if any.
    let dictionary: Set<String>
    let total: Double

    public init(counts: [String: Int], dictionary: Set<String> = WordFrequencies.systemDictionary) {
        self.counts = counts
        self.dictionary = dictionary
        total = Double(counts.values.reduce(0, +) + dictionary.count) + Self.stopwordCount * Double(TextNormalizer.gluingWords.count)
    }

    /// The dictionary alone: what spaces a reading whose candidates come from the network.
    public static let dictionaryOnly = WordFrequencies(counts: [:])

    /// The English word list (/usr/share/dict/words, `wamerican`) in canonical spelling
    /// (lower-case entries only: no names, no possessives); empty where none is installed. What
    /// "a word no dictionary holds" means for a sole title (`SpineMatcher.soleTitle`, measured on it).
    public static let systemDictionary: Set<String> = englishWords()

    /// The Spanish and Catalan word lists' words (`WordList`: Spanish and Catalan library shelves
    /// glue "ELLABERINTODELASOLEDAD" too) that the English list lacks: a run is spaced with them
    /// only where English words alone cannot space it and the pieces hold a Spanish or Catalan
    /// function word (`split`): "sullivan" is no "sull iv an". Read when a word is first looked up
    /// in them (a static let: once a process). A list not installed is left out (`WordList.missing`,
    /// which `rapidscan doctor` names).
    static let foreign = ForeignWords(lists: WordList.all.filter { $0 != .english }, without: systemDictionary)

    /// The function words a run spaced with Spanish or Catalan words must hold ("el", "de", "la", "del"…).
    static let foreignFunctionWords: Set<String> = shortFunctionWords.union(["de", "la", "le", "y", "en", "i"].map(TextNormalizer.ocrCanonical))

    /// The English list's lower-case ASCII entries of two letters or more (as measured for sole
    /// titles), read byte by byte (`canonicalWord`).
    static func englishWords() -> Set<String> {
        guard let data = FileManager.default.contents(atPath: WordList.english.path) else { return [] }
        var words = Set<String>(minimumCapacity: data.count / 10)
        for line in data.split(separator: UInt8(ascii: "\n")) where line.count >= 2 {
            if let word = canonicalWord(line, accents: false) { words.insert(word) }
        }
        return words
    }

    /// The Spanish and Catalan words under four letters that glued runs are spaced around ("ELLABERINTODELASOLEDAD").
    static let shortFunctionWords: Set<String> = Set(["el", "los", "las", "del", "al", "lo", "un", "una", "con", "por", "que",
                                                      "se", "su", "sus", "mi", "es", "ni", "els", "amb", "per", "les", "dels", "sin"]
        .map(TextNormalizer.ocrCanonical))

    /// A lower-case word's UTF-8 bytes in `TextNormalizer.ocrCanonical` spelling, Latin-1 accents
    /// folded when `accents`; nil when it holds anything else.
    static func canonicalWord(_ bytes: some Collection<UInt8>, accents: Bool) -> String? {
        var out: [UInt8] = []
        guard canonicalBytes(bytes, accents: accents, into: &out) else { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    /// `canonicalWord`'s spelling written into `out` (emptied first; its storage reused from line
    /// to line); false when the entry is left out.
    static func canonicalBytes(_ bytes: some Collection<UInt8>, accents: Bool, into out: inout [UInt8]) -> Bool {
        out.removeAll(keepingCapacity: true)
        var lead = false
        for byte in bytes {
            if lead {
                lead = false
                guard byte >= 0xA0, byte <= 0xBF, case let base = latinBase[Int(byte - 0xA0)], base != 0 else { return false }
                out.append(base)
            } else if byte >= 0x61 && byte <= 0x7A {
                out.append(byte)
            } else if byte == 0xC3 && accents {
                lead = true
            } else {
                return false
            }
        }
        guard !lead, out.count >= 2 else { return false }
        // ocrCanonical's replacements, in its order: "rn" -> "m", "vv" -> "w", "cl" -> "d", "i" -> "l".
        for (first, second, with) in [(UInt8(ascii: "r"), UInt8(ascii: "n"), UInt8(ascii: "m")),
                                      (UInt8(ascii: "v"), UInt8(ascii: "v"), UInt8(ascii: "w")),
                                      (UInt8(ascii: "c"), UInt8(ascii: "l"), UInt8(ascii: "d"))] {
            var read = 0, write = 0
            while read < out.count {
                if read + 1 < out.count, out[read] == first, out[read + 1] == second {
                    out[write] = with
                    read += 2
                } else {
                    out[write] = out[read]
                    read += 1
                }
                write += 1
            }
            out.removeLast(out.count - write)
        }
        for index in out.indices where out[index] == UInt8(ascii: "i") { out[index] = UInt8(ascii: "l") }
        return true
    }

    /// The second byte (0xA0...0xBF, after 0xC3) of a lower-case Latin-1 letter with an accent -> its letter; 0 for none.
    static let latinBase: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 32)
        for (letter, seconds) in [("a", 0xA0...0xA5), ("c", 0xA7...0xA7), ("e", 0xA8...0xAB), ("i", 0xAC...0xAF),
                                  ("n", 0xB1...0xB1), ("o", 0xB2...0xB6), ("u", 0xB9...0xBC), ("y", 0xBD...0xBD)] as [(Character, ClosedRange<UInt8>)] {
            for second in seconds { table[Int(second - 0xA0)] = letter.asciiValue! }
        }
        table[0xBF - 0xA0] = UInt8(ascii: "y")
        return table
    }()

    /// A function word counts as this many works: "of", "the" and "to" glue to everything.
    static let stopwordCount = 2000.0

    /// How many times `word` (canonical) is seen; 0 when unknown.
    /// `foreign`: Spanish and Catalan words count too.
    func count(_ word: String, foreign: Bool = true) -> Double {
        if TextNormalizer.gluingWords.contains(word) || word == "a" { return Self.stopwordCount }
        let seen = Double(counts[word] ?? 0) + (dictionary.contains(word) || (foreign && Self.foreign.contains(word)) ? 1 : 0)
        // Two-letter words other than function words are mostly abbreviations: kept rare.
        return word.count <= 2 ? seen * 0.1 : seen
    }

    public func knows(_ word: String) -> Bool { count(TextNormalizer.ocrCanonical(word)) > 0 }

    /// `word` (folded, lower case) as the likeliest run of known words, each seen in titles or
    /// the dictionary (dynamic programming over -log frequency: fewer, commoner words win);
    /// nil when it is a known word itself, shorter than seven letters, or splits into no known
    /// words. A shorter unknown word is more often one misread ("lnwind" for Unwind, not "in wind").
    /// English words (and titles') first; where they cannot space it, Spanish and Catalan ones too,
    /// when the pieces hold one of their function words (`foreignFunctionWords`) and a longer word
    /// only their lists hold: an English word cut short is no English word and a Spanish article
    /// ("EVERLOS", *Everlost* read a letter short, is no "ever los").
    public func split(_ word: String) -> [String]? {
        guard word.count >= 7, word.count <= 40, !knows(word), word.allSatisfy(\.isLetter) else { return nil }
        if let pieces = split(word, foreign: false) { return pieces }
        guard !Self.foreign.isEmpty, let pieces = split(word, foreign: true) else { return nil }
        let canonical = pieces.map(TextNormalizer.ocrCanonical)
        guard canonical.contains(where: Self.foreignFunctionWords.contains),
              canonical.contains(where: { Self.foreign.contains($0) && !Self.foreignFunctionWords.contains($0) }) else { return nil }
        return pieces
    }

    private func split(_ word: String, foreign: Bool) -> [String]? {
        let characters = Array(word)
        let count = characters.count
        let total = foreign ? self.total + Double(Self.foreign.count) : self.total
        // best[i]: the lowest cost of characters[0..<i] and where its last piece starts.
        var best = [(cost: Double, start: Int)?](repeating: nil, count: count + 1)
        best[0] = (0, 0)
        for end in 1...count {
            for start in stride(from: end - 1, through: max(0, end - 24), by: -1) {
                guard let before = best[start] else { continue }
                let piece = String(characters[start..<end])
                let seen = self.count(TextNormalizer.ocrCanonical(piece), foreign: foreign)
                guard seen > 0, piece.count >= 2 || piece == "a" else { continue }
                let cost = before.cost + log(total / seen)
                if best[end].map({ cost < $0.cost }) ?? true { best[end] = (cost, start) }
            }
        }
        guard best[count] != nil else { return nil }
        var pieces: [String] = []
        var end = count
        while end > 0, let step = best[end] {
            pieces.append(String(characters[step.start..<end]))
            end = step.start
        }
        return pieces.count >= 2 ? pieces.reversed() : nil
    }

    /// OCR text with each glued run spaced ("THEHOUSEOFTHE Spirits" -> "the house of the spirits");
    /// nil when no word needed it. Folded: case and punctuation are gone.
    public func spaced(_ text: String) -> String? {
        var changed = false
        let words = TextNormalizer.fold(text).split(separator: " ").flatMap { word -> [String] in
            guard let pieces = split(String(word)) else { return [String(word)] }
            changed = true
            return pieces
        }
        return changed ? words.joined(separator: " ") : nil
    }
}

/// Spanish and Catalan words (`WordFrequencies.foreign`) as 64-bit fingerprints of their canonical
/// spelling: the lists' ~700,000 lines are folded byte by byte into one reused buffer and kept as
/// integers, no string a word. As a set of strings they cost 1.1 s of CPU every `spines` process
/// (stop 40); a false "known" needs two words' fingerprints to collide (about 600,000 / 2^64 a look-up).
struct ForeignWords: Sendable {
    private let fingerprints: Set<UInt64>

    /// The words of `lists` in canonical spelling (two or three letters: function words only),
    /// those of `english` left out.
    init(lists: [WordList], without english: Set<String>) {
        var fingerprints = Set<UInt64>()
        var word: [UInt8] = []
        word.reserveCapacity(64)
        for list in lists {
            guard let data = FileManager.default.contents(atPath: list.path) else { continue }
            fingerprints.reserveCapacity(fingerprints.count + data.count / 10)
            data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
                var start = 0
                while start < bytes.count {
                    var end = start
                    while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
                    let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
                    start = end + 1
                    guard WordFrequencies.canonicalBytes(line, accents: true, into: &word) else { continue }
                    // Spanish and Catalan inflections of two or three letters split names and junk into pieces
                    // ("BRUCHAC" -> "bruc hac", "Presser" -> "pres ser"): only their function words are kept so short.
                    guard word.count >= 4 || WordFrequencies.shortFunctionWords.contains(String(decoding: word, as: UTF8.self)) else { continue }
                    fingerprints.insert(Self.fingerprint(word))
                }
            }
        }
        if !fingerprints.isEmpty { fingerprints.subtract(english.lazy.map { Self.fingerprint($0.utf8) }) }
        self.fingerprints = fingerprints
    }

    var isEmpty: Bool { fingerprints.isEmpty }
    var count: Int { fingerprints.count }

    /// Whether `word` (canonical spelling) is one of them.
    func contains(_ word: String) -> Bool { fingerprints.contains(Self.fingerprint(word.utf8)) }

    /// FNV-1a, 64 bits.
    static func fingerprint(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash
    }
}

/// A system word list glued runs are spaced with, and the Debian package that installs it (scripts/setup).
public enum WordList: String, CaseIterable, Sendable {
    case english, spanish, catalan

    public static let all = allCases

    public var path: String {
        switch self {
        case .english: "/usr/share/dict/words"
        case .spanish: "/usr/share/dict/spanish"
        case .catalan: "/usr/share/dict/catalan"
        }
    }

    public var debianPackage: String {
        switch self {
        case .english: "wamerican"
        case .spanish: "wspanish"
        case .catalan: "wcatalan"
        }
    }

    /// The lists not installed: glued runs in their language are left as read (searched as one word).
    public static var missing: [WordList] {
        all.filter { !FileManager.default.isReadableFile(atPath: $0.path) }
    }
}
