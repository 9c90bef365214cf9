import Foundation
import Vision

/// Shelves stand by author: a home library's Collins beside Collins, a library's call numbers
/// keep an author's books together. A reading that matched nothing, standing among books one
/// author's readings matched, is compared letter by letter with that author's other books:
/// OCR that misreads stylised lettering ("DEHINGUAY" beside *Catching Fire*) keeps enough of
/// a title's letters for one of a few books to be clearly nearest, where the whole catalogue
/// would hold a dozen as near. Such a match is only ever a suggestion for review.
extension SpineMatcher {
    public struct ShelfContextRule: Sendable, Hashable {
        /// How many readings either side an author's matched books lend it.
        public var reach = 3
        /// An author counts with one strong match nearby, or this many for review.
        public var mediumMatches = 2
        /// Letter similarity (1 − edits / letters) a title must reach...
        public var minimumSimilarity = 0.5
        /// ...this far ahead of the author's next nearest book...
        public var gap = 0.2
        /// ...and hold at least this many letters (a short title is too easily met by chance).
        public var minimumLetters = 8
        /// A leading part of a title stands for it only this near.
        public var prefixSimilarity = 0.85
        public init() {}
    }

    /// An author this photo's matches name, and where (reading indices in shelf order).
    public struct ShelfAuthor: Sendable, Hashable {
        /// The matched book's first author, as its record gives it.
        public var name: String
        public var positions: [Int]
    }

    /// The authors the photo's matches name enough (one strong, or `mediumMatches` for review).
    /// Spellings of one surname count together ("Shusterman", "Neal Shusterman").
    public static func shelfAuthors(_ matches: [SpineMatch?], rule: ShelfContextRule = ShelfContextRule()) -> [ShelfAuthor] {
        var strong: [String: Int] = [:], medium: [String: Int] = [:]
        var positions: [String: [Int]] = [:], names: [String: Set<String>] = [:]
        for (index, match) in matches.enumerated() {
            guard let match, match.decision != .none, !match.ambiguous, let name = match.best?.authors.first,
                  let surname = AuthorName.words(name).last else { continue }
            names[surname, default: []].insert(name)
            positions[surname, default: []].append(index)
            if match.decision == .strong { strong[surname, default: 0] += 1 } else { medium[surname, default: 0] += 1 }
        }
        return positions.keys.sorted().flatMap { surname -> [ShelfAuthor] in
            guard (strong[surname] ?? 0) >= 1 || (medium[surname] ?? 0) >= rule.mediumMatches else { return [] }
            return names[surname]!.sorted().map { ShelfAuthor(name: $0, positions: positions[surname]!) }
        }
    }

    /// Readings that matched nothing for want of a close book, with the shelf authors near them.
    public static func contextRequests(_ readings: [SpineReading], _ matches: [SpineMatch?],
                                       rule: ShelfContextRule = ShelfContextRule()) -> [(reading: Int, authors: [String])] {
        let authors = shelfAuthors(matches, rule: rule)
        guard !authors.isEmpty else { return [] }
        return readings.indices.compactMap { index in
            guard isUnmatchedText(matches[index]), !readings[index].unreadable else { return nil }
            let near = authors.filter { $0.positions.contains { abs($0 - index) <= rule.reach } }.map(\.name)
            return near.isEmpty ? nil : (index, near)
        }
    }

    /// One unmatched reading against its shelf authors' books (`books`, any order; works this
    /// photo already matched left out): a review suggestion when one title is clearly nearest.
    public func contextMatch(_ reading: SpineReading, authors: [String], books: [PreparedCandidate], matchedWorks: Set<String>,
                             rule: ShelfContextRule = ShelfContextRule()) -> SpineMatch? {
        let texts = [reading.text] + (reading.unreadable ? [] : reading.alternatives)
        // A reading that names one of them ("of, the Bust PHESSES") is that author's book: the
        // others' books are no rivals.
        let named = authors.filter { author in texts.contains { Self.holdsSurname($0, of: author) } }
        let authors = named.isEmpty ? authors : named
        var seen = Set<String>()
        let own = books.filter { book in
            guard let first = book.candidate.authors.first, authors.contains(where: { Self.sameAuthor($0, first) }),
                  !matchedWorks.contains(book.candidate.workKey) else { return false }
            return seen.insert(book.identity).inserted
        }
        let scored = own.map { book in
            (book, texts.map { Self.titleSimilarity(TextNormalizer.tokens($0), title: book.parts.main, rule: rule) }.max() ?? 0)
        }.sorted { $0.1 > $1.1 }
        guard let (best, similarity) = scored.first, similarity >= rule.minimumSimilarity,
              best.parts.main.joined().count >= rule.minimumLetters,
              similarity - (scored.dropFirst().first?.1 ?? 0) >= rule.gap else { return nil }
        // An unsure reading too (its own rule allows 0.25): here the author, not the letters, makes it likely.
        return SpineMatch(reading: reading, decision: .medium, distance: ((1 - similarity) * 1000).rounded() / 1000,
                          best: best.candidate, runnerUpDistance: scored.dropFirst().first.map { 1 - $0.1 },
                          reason: "\(Self.shelfContextReason), beside other books by \(best.candidate.authors.first ?? "")")
    }

    /// How a shelf-context suggestion's reason starts.
    public static let shelfContextReason = "read only near its letters"

    /// The photo's shelf-context suggestions by reading index; `books` gives an author's books.
    /// `requests`: `contextRequests(readings, matches)` when the caller has it already (to fetch the books).
    public func shelfContext(_ readings: [SpineReading], _ matches: [SpineMatch?], requests: [(reading: Int, authors: [String])]? = nil,
                             books: ([String]) -> [PreparedCandidate]) -> [Int: SpineMatch] {
        let requests = requests ?? Self.contextRequests(readings, matches)
        let shelves = Dictionary(uniqueKeysWithValues: requests.map { ($0.reading, books($0.authors)) })
        var taken = Set(matches.compactMap { $0?.decision != MatchDecision.none ? $0?.best?.workKey : nil })
        var suggested: [Int: SpineMatch] = [:]
        // Rounds: a book suggested for one place is no other's nearest in the next ("UnDivided"
        // and "UnSouled" taken, a third garbled Shusterman spine is nearest "UnWholly" by far).
        for _ in 0..<3 {
            var round: [Int: SpineMatch] = [:]
            for (index, authors) in requests where suggested[index] == nil {
                if let match = contextMatch(readings[index], authors: authors, books: shelves[index] ?? [], matchedWorks: taken) {
                    round[index] = match
                }
            }
            let kept = Self.eachBookInOnePlace(round)
            guard !kept.isEmpty else { break }
            for (index, match) in kept {
                suggested[index] = match
                taken.insert(match.best?.workKey ?? "")
            }
        }
        return suggested
    }

    /// A round's matches less any book matched at two places: either may be it, so neither is.
    static func eachBookInOnePlace(_ round: [Int: SpineMatch]) -> [Int: SpineMatch] {
        let counts = Dictionary(grouping: round.values, by: { $0.best?.workKey ?? "" }).mapValues(\.count)
        return round.filter { counts[$0.value.best?.workKey ?? ""] == 1 }
    }

    /// How many spines either side a book read strong confirms its author's title (`shelfConfirmed`):
    /// the shelf context's reach.
    public static let confirmingReach = ShelfContextRule().reach
    public static let shelfConfirmedReason = "confirmed by its author's book beside it"

    /// Titles read whole that are short of strong only for want of their author (a one-word title,
    /// "EVERLOST") or a little over the strong distance, standing within `confirmingReach` spines of
    /// another book by the same author read strong (*The Dark Side of Nowhere* by Shusterman): the
    /// shelf reads the author. Every word of the reading must be the book's (title, series or
    /// author: no junk beside it, so "14" inside a call number never is), the reader sure, the book
    /// `gap` ahead of the next, within `agreedStrong`, and not already strong elsewhere on the photo.
    /// A title confirmed confirms its neighbours in the next round (an author's run of spines with
    /// unread ones between: *UnSouled*, *Everlost*, *Everwild*).
    public func shelfConfirmed(_ readings: [SpineReading], _ matches: [SpineMatch?]) -> [Int: SpineMatch] {
        var matches = matches
        var confirmed: [Int: SpineMatch] = [:]
        for _ in 0..<3 {
            let strong = matches.indices.filter { matches[$0]?.decision == .strong && matches[$0]?.ambiguous == false }
            let strongWorks = Set(strong.compactMap { matches[$0]?.best?.workKey })
            var round: [Int: SpineMatch] = [:]
            for index in matches.indices {
                guard var match = matches[index], match.decision == .medium, !match.ambiguous, let book = match.best,
                      book.isbn13 != nil, !strongWorks.contains(book.workKey), !thresholds.isUnsure(match.reading),
                      match.distance <= thresholds.agreedStrong,
                      match.reason == Self.needsAuthorReason || match.reason?.hasPrefix("distance ") == true,
                      (match.runnerUpDistance ?? 1) - match.distance >= thresholds.gap,
                      let author = book.authors.first else { continue }
                let prepared = PreparedCandidate(book)
                let words = TextNormalizer.tokens(match.matchedText ?? match.reading.text)
                guard !words.isEmpty, words.allSatisfy({ TextNormalizer.stopwords.contains($0) || prepared.covers($0) }) else { continue }
                let place = readings[index].position ?? index
                let beside = strong.contains { other in
                    guard other != index, let neighbour = matches[other], let theirs = neighbour.best, theirs.workKey != book.workKey,
                          let theirAuthor = theirs.authors.first, Self.sameAuthor(author, theirAuthor) else { return false }
                    return abs((readings[other].position ?? other) - place) <= Self.confirmingReach
                }
                guard beside else { continue }
                match.decision = .strong
                match.reason = Self.shelfConfirmedReason
                round[index] = match
            }
            let kept = Self.eachBookInOnePlace(round)
            guard !kept.isEmpty else { break }
            for (index, match) in kept {
                confirmed[index] = match
                matches[index] = match
            }
        }
        return confirmed
    }

    /// The text holds the author's surname: as a word, a letter off (5+ letters), or inside a
    /// longer word OCR glued to it ("PHESSES").
    static func holdsSurname(_ text: String, of author: String) -> Bool {
        guard let surname = AuthorName.words(author).last else { return false }
        return AuthorName.joiningNames(TextNormalizer.tokens(text), [surname]).contains { word in
            word == surname || (surname.utf8.count >= 5 && (Similarity.wordSimilarity(word, surname) >= 0.8 || word.contains(surname)))
        }
    }

    /// Two spellings of one author: the same surname, and the same first given name when both
    /// give one ("Hesse" is "Karen Hesse"; "Wilkie Collins" is not "Suzanne Collins").
    static func sameAuthor(_ a: String, _ b: String) -> Bool {
        let x = AuthorName.words(a), y = AuthorName.words(b)
        guard let surname = x.last, surname == y.last else { return false }
        return x.count < 2 || y.count < 2 || x[0] == y[0]
    }

    /// The whole title's letter similarity, or a leading part of a long title's (a spine that
    /// shows only "Inequalities" of *Inequalities for Graph Eigenvalues*) when that is nearly
    /// exact: `prefixSimilarity` or more, over at least `minimumLetters` letters.
    static func titleSimilarity(_ read: [String], title: [String], rule: ShelfContextRule) -> Double {
        var best = letterSimilarity(read, title: title)
        for count in stride(from: title.count - 1, through: 1, by: -1) where title.prefix(count).joined().count >= rule.minimumLetters {
            let part = letterSimilarity(read, title: Array(title.prefix(count)))
            if part >= rule.prefixSimilarity { best = max(best, part) }
        }
        return best
    }

    /// How nearly a run of read words spells the title's letters: 1 − edits / the longer's
    /// letters, for the best run of words whose letters number 70–140% of the title's.
    static func letterSimilarity(_ read: [String], title: [String]) -> Double {
        let target = Array(title.joined().utf8)
        guard !target.isEmpty else { return 0 }
        var best = 0.0
        for start in read.indices {
            var run: [UInt8] = []
            for word in read[start...] {
                run += Array(word.utf8)
                if run.count * 10 > target.count * 14 { break }
                guard run.count * 10 >= target.count * 7 else { continue }
                let edits = Similarity.levenshtein(run, target, limit: max(run.count, target.count))
                best = max(best, 1 - Double(edits) / Double(max(run.count, target.count)))
            }
        }
        return best
    }
}

extension WorkIndex {
    /// Every work whose first author is one of `authors` (`SpineMatcher.sameAuthor`).
    public func works(byAuthors authors: [String]) -> [PreparedCandidate] {
        let surnames = Set(authors.compactMap { AuthorName.words($0).last })
        var found: [PreparedCandidate] = []
        var seen = Set<Int32>()
        for surname in surnames {
            for index in postings(for: surname) where seen.insert(index).inserted {
                let work = works[Int(index)]
                if let first = work.candidate.authors.first, authors.contains(where: { SpineMatcher.sameAuthor($0, first) }) { found.append(work) }
            }
        }
        return found
    }
}
