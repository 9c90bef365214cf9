import Foundation

/// How often words occur in titles, and which words a dictionary knows: what OCR's glued runs
/// ("THEHOUSEOFTHE", "GUIDETO") are spaced with before any candidate search. Words are kept in
/// `TextNormalizer.ocrCanonical` spelling, the spelling the index and the matcher compare.
public struct WordFrequencies: Sendable {
    /// Canonical word -> how many works use it (in a title, series or author's name).
    let counts: [String: Int]
    /// Lower-case words of the system's word list (`wamerican`, installed by scripts/setup), if any.
    let dictionary: Set<String>
    let total: Double

    public init(counts: [String: Int], dictionary: Set<String> = WordFrequencies.systemDictionary) {
        self.counts = counts
        self.dictionary = dictionary
        total = Double(counts.values.reduce(0, +) + dictionary.count) + Self.stopwordCount * Double(TextNormalizer.gluingWords.count)
    }

    /// The dictionary alone: what spaces a reading whose candidates come from the network.
    public static let dictionaryOnly = WordFrequencies(counts: [:])

    /// /usr/share/dict/words in canonical spelling (lower-case entries only: no names, no
    /// possessives); empty where no word list is installed.
    public static let systemDictionary: Set<String> = {
        guard let text = try? String(contentsOfFile: "/usr/share/dict/words", encoding: .utf8) else { return [] }
        var words = Set<String>()
        for line in text.split(separator: "\n") where line.count >= 2 && line.allSatisfy({ $0.isASCII && $0.isLowercase }) {
            words.insert(TextNormalizer.ocrCanonical(String(line)))
        }
        return words
    }()

    /// A function word counts as this many works: "of", "the" and "to" glue to everything.
    static let stopwordCount = 2000.0

    /// How many times `word` (canonical) is seen; 0 when unknown.
    func count(_ word: String) -> Double {
        if TextNormalizer.gluingWords.contains(word) || word == "a" { return Self.stopwordCount }
        let seen = Double(counts[word] ?? 0) + (dictionary.contains(word) ? 1 : 0)
        // Two-letter words other than function words are mostly abbreviations: kept rare.
        return word.count <= 2 ? seen * 0.1 : seen
    }

    public func knows(_ word: String) -> Bool { count(TextNormalizer.ocrCanonical(word)) > 0 }

    /// `word` (folded, lower case) as the likeliest run of known words, each seen in titles or
    /// the dictionary (dynamic programming over -log frequency: fewer, commoner words win);
    /// nil when it is a known word itself, shorter than seven letters, or splits into no known
    /// words. A shorter unknown word is more often one misread ("lnwind" for Unwind, not "in wind").
    public func split(_ word: String) -> [String]? {
        let characters = Array(word)
        let count = characters.count
        guard count >= 7, count <= 40, !knows(word), characters.allSatisfy(\.isLetter) else { return nil }
        // best[i]: the lowest cost of characters[0..<i] and where its last piece starts.
        var best = [(cost: Double, start: Int)?](repeating: nil, count: count + 1)
        best[0] = (0, 0)
        for end in 1...count {
            for start in stride(from: end - 1, through: max(0, end - 24), by: -1) {
                guard let before = best[start] else { continue }
                let piece = String(characters[start..<end])
                let seen = self.count(TextNormalizer.ocrCanonical(piece))
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
