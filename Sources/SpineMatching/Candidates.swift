import Foundation

/// A book a reading might be: one work with the ISBN that would be added for it.
public struct MatchCandidate: Sendable, Hashable, Codable {
    public var workKey: String
    public var title: String
    public var authors: [String]
    public var isbn13: String?
    /// Where it came from (`cache`, `googleBooks`, `openLibrary`, `table`).
    public var source: String

    public init(workKey: String, title: String, authors: [String], isbn13: String?, source: String) {
        self.workKey = workKey
        self.title = title
        self.authors = authors
        self.isbn13 = isbn13
        self.source = source
    }
}

/// A candidate with its title and authors already normalised (done once per work).
public struct PreparedCandidate: Sendable, Hashable {
    public let candidate: MatchCandidate
    let parts: TitleParts
    /// Each author's words (initials dropped), surname last.
    let authorWords: [[String]]
    /// Same work whatever the edition: main title (subtitle aside) + volume + first surname,
    /// so "Dune" and "Dune: Deluxe Edition" by Herbert are one book, not rivals.
    let identity: String

    public init(_ candidate: MatchCandidate) {
        self.candidate = candidate
        self.parts = TitleParts(title: candidate.title)
        self.authorWords = candidate.authors.prefix(4).map { AuthorName.words($0) }.filter { !$0.isEmpty }
        self.identity = parts.main.joined(separator: " ") + "|" + (parts.volume.map { "\($0)" } ?? "") + "|" + (authorWords.first?.last ?? "")
    }

    var surnames: [String] { authorWords.compactMap(\.last) }

    /// A read word found (nearly) in the title, series or an author's name.
    func covers(_ word: String) -> Bool {
        (parts.full + parts.series + authorWords.joined()).contains { word == $0 || Similarity.wordSimilarity(word, $0) > 0 }
    }
}

enum AuthorName {
    /// Words of a name without initials ("J.K. Rowling" -> ["rowling"]), surname last;
    /// "Rowling, J.K." is turned round first.
    static func words(_ name: String) -> [String] {
        var text = name
        let commaParts = name.split(separator: ",", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        if commaParts.count == 2, !commaParts[1].contains(" ") || commaParts[1].contains(".") {
            text = "\(commaParts[1]) \(commaParts[0])"
        }
        return joiningIdeographs(TextNormalizer.tokens(text))
            .filter { $0.count > 1 && !["jr", "sr", "dr", "mr", "mrs", "ms", "ed", "eds"].contains($0) }
    }

    /// A Chinese or Japanese name is written together, two or three characters ("程方军"), where
    /// `TextNormalizer.fold` makes each character a word: the run is one word again (surname and
    /// all), or the one-letter filter would drop the name.
    static func joiningIdeographs(_ words: [String]) -> [String] {
        var joined: [String] = []
        var run = ""
        for word in words {
            if TextNormalizer.isIdeographic(word) { run += word; continue }
            if !run.isEmpty { joined.append(run); run = "" }
            joined.append(word)
        }
        if !run.isEmpty { joined.append(run) }
        return joined
    }

    /// An ideographic name (`joiningIdeographs`) is one word: a reading's characters that spell
    /// it in a row are joined back into it, so it is found as a name ("程 方 军" -> "程方军").
    static func joiningNames(_ words: [String], _ names: Set<String>) -> [String] {
        let ideographic = names.filter { $0.count >= 2 && $0.allSatisfy(\.isHanOrKana) }.sorted { $0.count > $1.count }
        guard !ideographic.isEmpty, words.contains(where: TextNormalizer.isIdeographic) else { return words }
        var joined: [String] = []
        var index = 0
        while index < words.count {
            if let name = ideographic.first(where: { index + $0.count <= words.count && words[index..<index + $0.count].joined() == $0 }) {
                joined.append(name)
                index += name.count
            } else {
                joined.append(words[index])
                index += 1
            }
        }
        return joined
    }
}

/// What a candidate search is asked: the reading's title and author as best known.
public struct CandidateQuery: Sendable, Hashable {
    public var title: String
    public var author: String?
    /// All the words read, for readers that cannot tell title from author.
    public var text: String
    /// OCR text's title without its last word, when that word may be the author's surname read
    /// after the title ("Catching Fire ColIins"): what a title search that finds nothing asks next.
    public var withoutLastWord: String?

    public init(title: String, author: String?, text: String, withoutLastWord: String? = nil) {
        self.title = title
        self.author = author
        self.text = text
        self.withoutLastWord = withoutLastWord
    }

    /// The title with each word no dictionary holds (four letters or more) spelt as the one
    /// dictionary word a look-alike letter away ("Six Degrces" -> "Six Degrees", "Engincering"
    /// -> "Engineering"; "Civll" is `civil` already to the dictionary and stays): what a source
    /// whose search wants the words as printed is asked when the title as read found nothing.
    /// nil when no word changes.
    public var respelledTitle: String? {
        let source = title.isEmpty ? text : title
        var changed = false
        let words = source.split(separator: " ", omittingEmptySubsequences: false).map { word -> String in
            guard let respelled = Self.respelled(String(word)) else { return String(word) }
            changed = true
            return respelled
        }
        return changed ? words.joined(separator: " ") : nil
    }

    /// Letters OCR and small models read for one another that `TextNormalizer.ocrCanonical`
    /// does not already spell alike (it does l/I/1, 0/O, rn/m, cl/d).
    static let lookAlikes: [(String, String)] = [("e", "c"), ("c", "e"), ("o", "a"), ("a", "o"), ("n", "h"), ("h", "n"),
                                                 ("u", "v"), ("v", "u")]

    /// `word` (letters only, four or more, in no dictionary) as the single dictionary word one
    /// look-alike letter from it, in the word's case; nil when none or several.
    static func respelled(_ word: String) -> String? {
        let dictionary = WordFrequencies.systemDictionary
        guard word.count >= 4, word.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        let lower = word.lowercased()
        guard !dictionary.contains(TextNormalizer.ocrCanonical(lower)) else { return nil }
        let letters = Array(lower)
        var found: Set<String> = []
        for (index, letter) in letters.enumerated() {
            for (read, meant) in lookAlikes where String(letter) == read {
                var candidate = letters
                candidate[index] = Character(meant)
                let spelt = String(candidate)
                if dictionary.contains(TextNormalizer.ocrCanonical(spelt)) { found.insert(spelt) }
            }
        }
        guard found.count == 1, let spelt = found.first else { return nil }
        if word.allSatisfy(\.isUppercase) { return spelt.uppercased() }
        return word.first!.isUppercase ? spelt.prefix(1).uppercased() + spelt.dropFirst() : spelt
    }

    /// `title` without its last word when that word reads as a surname (a capital, then letters:
    /// "ColIins", "SHARPE") and a word of three letters or more is left before it; nil otherwise.
    public static func withoutSurname(_ title: String) -> String? {
        var words = title.split(whereSeparator: \.isWhitespace)
        guard words.count >= 2, let last = words.last, last.count >= 3, last.first?.isUppercase == true,
              last.allSatisfy(\.isLetter) else { return nil }
        words.removeLast()
        guard words.contains(where: { $0.filter(\.isLetter).count >= 3 }) else { return nil }
        return words.joined(separator: " ")
    }
}

/// Where candidates come from: the local cache (FTS5), Google Books, Open Library, a table.
public protocol CandidateSource: Sendable {
    func candidates(for query: CandidateQuery, limit: Int) async throws -> [PreparedCandidate]
    /// Books by these authors (shelf context): by default an author-only search per author.
    func books(by authors: [String], limit: Int) async throws -> [PreparedCandidate]
    /// Asking it sends a request over the network (a reading that is mostly junk does not).
    var asksNetwork: Bool { get }
    /// Its requests wait for a rate limit of its own (Open Library, Library of Congress): a
    /// spine asks it fewer queries (`SpineMatcher.queriesPerPacedSource`).
    var isPaced: Bool { get }
    /// Whose records it searches, when a source on this machine may hold the same (Open Library's
    /// search and a loaded Open Library dump): a catalogue searched here is not searched again afar.
    var catalogue: String? { get }
}

extension CandidateSource {
    public var asksNetwork: Bool { false }
    public var isPaced: Bool { false }
    public var catalogue: String? { nil }

    public func books(by authors: [String], limit: Int) async throws -> [PreparedCandidate] {
        var found: [PreparedCandidate] = []
        for author in authors { found += try await candidates(for: CandidateQuery(title: "", author: author, text: ""), limit: limit) }
        return found
    }
}

/// An in-memory word index over works: the matching table's catalogue, the benchmark's
/// 10,000 works, or the local cache loaded once per run. Postings by normalised title,
/// series and author words; a query ranks works by the IDF of the words they share.
public final class WorkIndex: CandidateSource, @unchecked Sendable {
    // Immutable after init, hence unchecked Sendable.
    public let works: [PreparedCandidate]
    private let postings: [String: [Int32]]
    /// Indexed words (five letters or more) under each spelling with one letter left out: two
    /// words one edit apart share one of these (or one is the other's), so a misread word's
    /// neighbours are found without comparing it with every word.
    private let deletions: [String: [String]]
    /// The indexed words with the number of works using each, and the system dictionary: what
    /// glued OCR words are spaced with (`WordFrequencies.split`).
    public let words: WordFrequencies

    public init(_ candidates: [MatchCandidate]) {
        let prepared = candidates.map(PreparedCandidate.init)
        var postings: [String: [Int32]] = [:]
        for (index, work) in prepared.enumerated() {
            var words = Set(work.parts.full + work.parts.series)
            for name in work.authorWords { words.formUnion(name) }
            for word in words where !TextNormalizer.stopwords.contains(word) {
                postings[word, default: []].append(Int32(index))
            }
        }
        self.works = prepared
        self.postings = postings
        self.words = WordFrequencies(counts: postings.mapValues(\.count))
        var deletions: [String: [String]] = [:]
        for word in postings.keys where word.utf8.count >= 4 && word.utf8.count <= 30 && word.utf8.allSatisfy({ $0 < 0x80 }) {
            for variant in Self.deletionVariants(word) { deletions[variant, default: []].append(word) }
        }
        self.deletions = deletions
    }

    /// `word` with each of its letters left out in turn.
    static func deletionVariants(_ word: String) -> Set<String> {
        let bytes = Array(word.utf8)
        var variants = Set<String>()
        for index in bytes.indices {
            var variant = bytes
            variant.remove(at: index)
            variants.insert(String(decoding: variant, as: UTF8.self))
        }
        return variants
    }

    public var count: Int { works.count }

    /// The works an indexed word is in (title, series or an author's name).
    func postings(for word: String) -> [Int32] { postings[word] ?? [] }

    /// Indexed words one edit (a letter changed, dropped or added) away from `word`, which is
    /// at least five letters long: "unwin" finds "unwind", "twistrd" "twisted" (shorter words
    /// are one edit from too many others).
    func nearWords(_ word: String) -> [String] {
        let read = Array(word.utf8)
        guard read.count >= 5, read.count <= 30, read.allSatisfy({ $0 < 0x80 }), read.contains(where: { $0 >= 0x61 && $0 <= 0x7A }) else { return [] }
        // A letter dropped: the word is a deletion of a known one. Added: a deletion of it is
        // known. Changed: both share a deletion.
        var near = Set(deletions[word] ?? [])
        for variant in Self.deletionVariants(word) {
            if postings[variant] != nil { near.insert(variant) }
            for known in deletions[variant] ?? [] where Similarity.levenshtein(read, Array(known.utf8), limit: 1) <= 1 { near.insert(known) }
        }
        near.remove(word)
        return near.sorted()
    }

    public func books(by authors: [String], limit: Int) -> [PreparedCandidate] {
        Array(works(byAuthors: authors).prefix(limit))
    }

    public func candidates(for query: CandidateQuery, limit: Int) -> [PreparedCandidate] {
        var words = Set(TextNormalizer.tokens(query.title))
        words.formUnion(TextNormalizer.tokens(query.text))
        if let author = query.author { words.formUnion(TextNormalizer.tokens(author)) }
        // OCR splits words at a gap between letters ("RI NALDI"): two neighbours that are one
        // known word together are looked up as that word.
        for text in [query.title, query.text] {
            let tokens = TextNormalizer.tokens(text)
            for (first, second) in zip(tokens, tokens.dropFirst()) where postings[first] == nil || postings[second] == nil {
                if postings[first + second] != nil { words.insert(first + second) }
            }
        }
        // OCR glues words ("shootingthe", "catonahottinroof"): an unknown long word is also
        // looked up as the likeliest known words it splits into.
        // A word misread by a letter ("Bulle Teak" for Belle Teal) is looked up as the known
        // words one edit away, at half weight: the exact words read still rank first.
        var near: Set<String> = []
        for word in words where postings[word] == nil {
            let pieces = word.count >= 6 ? self.words.split(word) ?? [] : []
            words.formUnion(pieces)
            if pieces.isEmpty { near.formUnion(nearWords(word)) }
        }
        near.subtract(words)
        var scores: [Int32: Double] = [:]
        var nearHits: Set<Int32> = []
        let total = Double(works.count + 1)
        for (word, weight) in words.map({ ($0, 1.0) }) + near.map({ ($0, 0.5) }) where !TextNormalizer.stopwords.contains(word) {
            guard let list = postings[word] else { continue }
            let idf = weight * log(total / Double(list.count))
            for index in list { scores[index, default: 0] += idf }
            if weight < 1 { nearHits.formUnion(list) }
        }
        var top = Self.top(scores, limit: limit)
        // Works found only through a misread word rank low against a common word read right
        // ("TWISTRD TALE": forty Tales): the best few of them are kept as well.
        if !nearHits.isEmpty {
            let kept = Set(top)
            top += Self.top(nearHits.lazy.filter { !kept.contains($0) }.map { (key: $0, value: scores[$0] ?? 0) }, limit: min(limit, 5))
        }
        return top.map { works[Int($0)] }
    }

    /// The `limit` best-scored works (ties by index, for determinism) without sorting every hit.
    static func top<Scores: Sequence>(_ scores: Scores, limit: Int) -> [Int32] where Scores.Element == (key: Int32, value: Double) {
        var top: [(key: Int32, value: Double)] = []
        top.reserveCapacity(limit + 1)
        func before(_ a: (key: Int32, value: Double), _ b: (key: Int32, value: Double)) -> Bool {
            a.value != b.value ? a.value > b.value : a.key < b.key
        }
        for entry in scores {
            if top.count == limit, let last = top.last, !before((entry.key, entry.value), last) { continue }
            let position = top.firstIndex { before((entry.key, entry.value), $0) } ?? top.count
            top.insert((entry.key, entry.value), at: position)
            if top.count > limit { top.removeLast() }
        }
        return top.map(\.key)
    }
}
