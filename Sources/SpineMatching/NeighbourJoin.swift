import Foundation
import Vision

/// OCR's spine grouping often puts one spine's author and its title into two neighbouring
/// readings ("MEYER" beside "the host STEPHENTE"). A reading refused as an author alone is tried
/// joined to a neighbour that matched nothing or only for review; the join is matched by the
/// usual rules and kept only when its book is by that author and it is a better answer than the
/// neighbour's own. Likewise a title cut in two ("TWISTRD TALE" above "FICTIONAL" on a book
/// lying flat): two neighbours that each matched nothing are tried joined, and the join stands
/// only when its book's title holds a word of each.
extension SpineMatcher {
    /// An author-alone reading and the neighbour it may belong to, as one reading.
    public struct NeighbourJoin: Sendable, Hashable {
        /// Indices into the photo's readings.
        public var author: Int
        public var title: Int
        /// The author reading's text, the title reading's after it.
        public var authorText: String
        public var joined: SpineReading
        /// `author` is no author but the rest of a title `title` holds the start of.
        public var titleFragment = false
    }

    /// The joins worth trying for one photo's readings (in shelf order) and their matches.
    public static func neighbourJoins(_ readings: [SpineReading], _ matches: [SpineMatch?],
                                      thresholds: Thresholds = Thresholds()) -> [NeighbourJoin] {
        var joins: [NeighbourJoin] = []
        // A reading its reader was unsure of is matched alone, and is nobody's neighbour:
        // neighbours are the sure readings on either side, past any unsure one between.
        let sure = readings.indices.filter { !thresholds.isUnsure(readings[$0]) }
        let skipped = Set(readings.filter(thresholds.isUnsure).compactMap(\.position))
        for (rank, number) in sure.enumerated() where Self.isAuthorAlone(matches[number]) {
            for other in [rank - 1, rank + 1].filter(sure.indices.contains).map({ sure[$0] }) {
                // A neighbour settled by an earlier run (no match now) is left alone.
                guard let own = matches[other], !Self.isAuthorAlone(own), own.decision != .strong,
                      !readings[other].unreadable, Self.adjacent(readings[number], readings[other], skipping: skipped) else { continue }
                joins.append(NeighbourJoin(author: number, title: other, authorText: readings[number].text,
                                           joined: Self.joined(readings[other], readings[number])))
            }
        }
        // A book suggested for review whose author the reading does not hold ("REPLICA" beside
        // "OLIVER", "Boys without Mames" beside "SHETH"): a neighbour that matched nothing and holds
        // that book's author's surname is the rest of the spine (OCR cut it in two); the join is
        // matched by the usual rules and stands only for the same book (`acceptedJoins`).
        for (rank, number) in sure.enumerated() {
            guard let own = matches[number], own.decision == .medium, let book = own.best, !own.ambiguous,
                  !readings[number].unreadable, !Self.namesAuthor(readings[number].text, of: book) else { continue }
            for other in [rank - 1, rank + 1].filter(sure.indices.contains).map({ sure[$0] }) {
                guard let neighbour = matches[other], neighbour.decision == .none, !Self.isAuthorAlone(neighbour),
                      !readings[other].unreadable, Self.adjacent(readings[number], readings[other], skipping: skipped),
                      Self.namesAuthor(readings[other].text, of: book) else { continue }
                joins.append(NeighbourJoin(author: other, title: number, authorText: readings[other].text,
                                           joined: Self.joined(readings[number], readings[other])))
            }
        }
        for (number, next) in zip(sure, sure.dropFirst()) where Self.isUnmatchedText(matches[number]) && Self.isUnmatchedText(matches[next])
            && !readings[number].unreadable && !readings[next].unreadable && Self.adjacent(readings[number], readings[next], skipping: skipped) {
            let (first, second) = (readings[number], readings[next])
            // Either may hold the title's start: both orders are read.
            let joined = SpineReading(text: first.text + " " + second.text, position: first.position,
                                      confidence: min(first.confidence ?? 1, second.confidence ?? 1),
                                      alternatives: [second.text + " " + first.text])
            joins.append(NeighbourJoin(author: next, title: number, authorText: second.text, joined: joined, titleFragment: true))
        }
        return joins
    }

    /// Which joins stand: the joined match names a book whose author the author reading holds,
    /// and beats the title reading's own match. An author reading that two neighbours would both
    /// take is left alone (it may belong to either), and so is a title two authors would take.
    public static func acceptedJoins(_ joins: [NeighbourJoin], _ results: [SpineMatch], matches: [SpineMatch?]) -> [Int: SpineMatch] {
        var kept: [(join: NeighbourJoin, match: SpineMatch)] = []
        for (join, result) in zip(joins, results) {
            guard result.decision != .none, let book = result.best, !result.ambiguous else { continue }
            if join.titleFragment {
                guard let first = matches[join.title]?.reading.text,
                      holdsTitleWord(first, of: book), holdsTitleWord(join.authorText, of: book) else { continue }
                kept.append((join, result))
                continue
            }
            guard namesAuthor(join.authorText, of: book) else { continue }
            if let own = matches[join.title], own.decision != .none {
                let better = (result.decision == .strong && own.decision != .strong)
                    || (result.decision == own.decision && result.distance < own.distance && own.best?.workKey == book.workKey)
                guard better else { continue }
                // A title read for review as one book does not become another through a neighbour.
                guard own.best?.workKey == book.workKey else { continue }
            }
            kept.append((join, result))
        }
        var accepted: [Int: SpineMatch] = [:]
        for entry in kept {
            // A reading two joins would take (as author, title or fragment) may belong to either.
            let places = [entry.join.author, entry.join.title]
            let takenTwice = kept.filter { !Set([$0.join.author, $0.join.title]).isDisjoint(with: places) }.count > 1
            guard !takenTwice else { continue }
            var match = entry.match
            match.matchedText = entry.join.joined.text
            accepted[entry.join.title] = match
        }
        return accepted
    }

    /// Readings of one photo matched against the index, author-alone readings joined to a neighbour,
    /// readings that matched nothing compared with the books of authors matched beside them.
    public func matchShelf(_ readings: [SpineReading], index: WorkIndex) -> [SpineMatch] {
        var matches = readings.map { match($0, index: index) }
        let joins = Self.neighbourJoins(readings, matches, thresholds: thresholds)
        let results = joins.map { match($0.joined, index: index) }
        for (title, match) in Self.acceptedJoins(joins, results, matches: matches) {
            matches[title] = match
        }
        for (number, match) in shelfConfirmed(readings, matches) {
            matches[number] = match
        }
        for (number, match) in shelfContext(readings, matches, books: { index.works(byAuthors: $0) }) {
            matches[number] = match
        }
        return matches
    }

    /// Why a reading holding only an author's name matched nothing (what the join looks for).
    static let authorAloneReason = "an author's name, not a title"

    static func isAuthorAlone(_ match: SpineMatch?) -> Bool {
        match?.decision == MatchDecision.none && match?.reason == authorAloneReason
    }

    /// A reading that matched nothing for want of a close book (not an author alone, a call
    /// number or a publisher): it may be part of a title.
    static func isUnmatchedText(_ match: SpineMatch?) -> Bool {
        match?.decision == MatchDecision.none && match?.reason == "no candidate close enough"
    }

    /// The text holds a word of four letters or more of the book's title (a letter off for 5+).
    static func holdsTitleWord(_ text: String, of book: MatchCandidate) -> Bool {
        let title = TextNormalizer.tokens(book.title).filter { $0.utf8.count >= 4 }
        return TextNormalizer.tokens(text).contains { word in
            word.utf8.count >= 4 && title.contains { word == $0 || (word.utf8.count >= 5 && Similarity.wordSimilarity(word, $0) >= 0.8) }
        }
    }

    /// A title reading with its neighbour's author text after it: the title's place, the less
    /// sure of the two confidences, and the author after each of the title's alternatives.
    static func joined(_ title: SpineReading, _ author: SpineReading) -> SpineReading {
        SpineReading(text: title.text + " " + author.text, position: title.position,
                     confidence: min(title.confidence ?? 1, author.confidence ?? 1),
                     alternatives: title.alternatives.map { $0 + " " + author.text })
    }

    /// Neighbours in shelf order: the reader's positions one apart (or only `skipping`
    /// positions between them), or no positions given.
    static func adjacent(_ a: SpineReading, _ b: SpineReading, skipping: Set<Int> = []) -> Bool {
        guard let first = a.position, let second = b.position else { return true }
        guard first != second else { return false }
        return (min(first, second) + 1..<max(first, second)).allSatisfy(skipping.contains)
    }

    /// The author reading holds a surname of the book's authors (a letter off for 5+ letters).
    static func namesAuthor(_ authorText: String, of book: MatchCandidate) -> Bool {
        let surnames = book.authors.compactMap { AuthorName.words($0).last }
        let read = AuthorName.joiningNames(TextNormalizer.tokens(authorText), Set(surnames))
        return read.contains { word in
            surnames.contains { surname in
                word == surname || (word.utf8.count >= 5 && Similarity.wordSimilarity(word, surname) >= 0.8)
            }
        }
    }
}
