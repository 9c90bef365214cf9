import Foundation

/// A known book as OCR text is compared against it.
public struct KnownBook: Sendable, Hashable {
    public var id: String
    public var title: String
    public var author: String?
    public init(id: String, title: String, author: String?) {
        self.id = id
        self.title = title
        self.author = author
    }
}

/// Compares raw OCR spine text (words glued or split, no title/author split, either order)
/// with known books: the measure the tests and scripts/bench-spines-ocr use for OCR recall
/// and wrong books. Conservative on purpose: strong needs most of the title's letters and a
/// clear lead over the runner-up. (The catalogue decision proper is the spine matcher's.)
public struct OCRTextMatch: Sendable {
    public enum Decision: String, Sendable { case strong, medium, none }
    public struct Result: Sendable {
        public var decision: Decision
        public var book: KnownBook?
        public var score: Double
    }

    private let books: [KnownBook]
    private let titleLetters: [String]
    private let titleTokens: [[String]]
    private let surnames: [String?]
    private var trigramIndex: [String: [Int]] = [:]

    public init(books: [KnownBook]) {
        self.books = books
        titleLetters = books.map { Self.letters($0.title) }
        titleTokens = books.map { Self.significantTokens($0.title) }
        surnames = books.map { book in
            book.author.flatMap { author in
                author.split(separator: ",").first.flatMap { $0.split(separator: " ").last }.map { Self.letters(String($0)) }
            }.flatMap { $0.count >= 3 ? $0 : nil }
        }
        for (index, letters) in titleLetters.enumerated() {
            for gram in Set(Self.trigrams(letters)) { trigramIndex[gram, default: []].append(index) }
        }
    }

    public func match(_ text: String) -> Result {
        let reading = Self.letters(text)
        guard reading.count >= 4 else { return Result(decision: .none, book: nil, score: 0) }
        var hits: [Int: Int] = [:]
        for gram in Set(Self.trigrams(reading)) {
            for index in trigramIndex[gram] ?? [] { hits[index, default: 0] += 1 }
        }
        var scored: [(index: Int, score: Double)] = []
        for (index, count) in hits {
            let total = max(1, titleLetters[index].count - 2)
            guard Double(count) / Double(total) >= 0.4 else { continue }
            scored.append((index, score(reading: reading, book: index)))
        }
        scored.sort { $0.score > $1.score || ($0.score == $1.score && $0.index < $1.index) }
        guard let best = scored.first, best.score >= 0.6 else { return Result(decision: .none, book: nil, score: 0) }
        // The same title twice in the catalogue (another edition, same title) is not a rival.
        let runnerUp = scored.dropFirst().first { titleLetters[$0.index] != titleLetters[best.index] }?.score ?? 0
        // Strong needs the whole title letter for letter, or the author's surname beside it:
        // a near title alone ("Whisper" read, "Whispers" catalogued) only waits for review.
        let exact = Self.substringDistance(titleLetters[best.index], in: reading) == 0 && titleLetters[best.index].count >= 8
        let strong = best.score >= 0.8 && best.score - runnerUp >= 0.1 && (exact || authorFound(reading, best.index))
        return Result(decision: strong ? .strong : .medium, book: books[best.index], score: best.score)
    }

    /// Share of the title's letters found in the reading (glued or spaced alike), plus
    /// agreement of the author's surname; short titles need the author.
    func score(reading: String, book index: Int) -> Double {
        let title = titleLetters[index]
        guard !title.isEmpty else { return 0 }
        let distance = Self.substringDistance(title, in: reading)
        var titleShare = max(0, 1 - Double(distance) / Double(title.count))
        // A title much longer than the reading may still be read in part (a sticker over it).
        if titleShare < 0.8, titleTokens[index].count >= 3 {
            let found = titleTokens[index].filter { Self.substringDistance($0, in: reading) <= ($0.count >= 6 ? 1 : 0) }
            let share = Double(found.reduce(0) { $0 + $1.count }) / Double(titleTokens[index].reduce(0) { $0 + $1.count })
            titleShare = max(titleShare, share * 0.85)
        }
        let authorFound = authorFound(reading, index)
        // Letters in the reading neither title nor author explain: a longer, different title?
        let explained = title.count + (authorFound ? (books[index].author.map { Self.letters($0).count } ?? 0) : 0)
        let unexplained = max(0, Double(reading.count - explained) / Double(reading.count))
        var score = titleShare
        if title.count < 8 { score *= authorFound ? 1 : 0.7 }
        if authorFound { score = min(1, score + 0.1) }
        score -= max(0, unexplained - 0.35) * 0.5
        return score
    }

    func authorFound(_ reading: String, _ index: Int) -> Bool {
        surnames[index].map { Self.substringDistance($0, in: reading) <= ($0.count >= 6 ? 1 : 0) } ?? false
    }

    /// Lowercase letters and digits only, accents folded.
    public static func letters(_ text: String) -> String {
        text.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil)
            .lowercased().filter { $0.isLetter || $0.isNumber }
    }

    static let stopwords: Set<String> = ["the", "and", "of", "a", "an", "in", "on", "to", "for", "with", "de", "la"]

    static func significantTokens(_ title: String) -> [String] {
        title.split { !$0.isLetter && !$0.isNumber }.map { letters(String($0)) }
            .filter { $0.count >= 3 && !stopwords.contains($0) }
    }

    static func trigrams(_ text: String) -> [String] {
        let characters = Array(text)
        guard characters.count >= 3 else { return [] }
        return (0...(characters.count - 3)).map { String(characters[$0..<$0 + 3]) }
    }

    /// Fewest edits turning `needle` into some substring of `haystack` (Sellers' algorithm).
    static func substringDistance(_ needle: String, in haystack: String) -> Int {
        let pattern = Array(needle), text = Array(haystack)
        guard !pattern.isEmpty else { return 0 }
        var previous = Array(0...pattern.count)
        var best = pattern.count
        var current = [Int](repeating: 0, count: pattern.count + 1)
        for character in text {
            current[0] = 0
            for row in 1...pattern.count {
                let cost = pattern[row - 1] == character ? 0 : 1
                current[row] = min(previous[row - 1] + cost, previous[row] + 1, current[row - 1] + 1)
            }
            best = min(best, current[pattern.count])
            swap(&previous, &current)
        }
        return best
    }
}
