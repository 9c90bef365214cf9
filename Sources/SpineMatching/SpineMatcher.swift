import Foundation
import Vision

/// beets' three recommendations: strong is added, medium waits for review, none is reported.
public enum MatchDecision: String, Sendable, Hashable, Codable, CaseIterable {
    case strong, medium, none
}

/// What matching made of one reading.
public struct SpineMatch: Sendable, Hashable {
    public var reading: SpineReading
    public var decision: MatchDecision
    /// 0 = certain, 1 = nothing alike; the best candidate's.
    public var distance: Double
    public var best: MatchCandidate?
    /// The best different work's distance (nil when there was none).
    public var runnerUpDistance: Double?
    /// Why it is not strong, when there is a reason worth showing.
    public var reason: String?
    /// Candidate searches that failed (network, quota): a non-strong answer is then inconclusive.
    public var unavailable: [String] = []
    /// The alternative reading of the spine that matched, when it was not the main text.
    public var matchedText: String?
    /// Two readings of the spine came close to different books: never strong.
    public var ambiguous = false
    /// How many of the spine's readings matched this book.
    public var agreeing = 1
    /// Other titles the reading holds beside this one (OCR ran neighbouring spines together),
    /// each matched on its own words: a book for each, strong only by the same rules.
    public var alsoHeld: [SpineMatch] = []
}

/// Scores candidates for a reading and decides. Distance = 0.75·title + 0.25·author + volume
/// penalty; a different author or volume vetoes the candidate outright.
public struct SpineMatcher: Sendable {
    public struct Thresholds: Sendable, Hashable {
        /// Strong below this distance...
        public var strong: Double = 0.16
        /// ...and at least this far ahead of the runner-up.
        public var gap: Double = 0.12
        /// Medium below this; none above.
        public var medium: Double = 0.42
        /// A reader's own confidence under this keeps a match out of strong.
        public var minimumConfidence: Double = 0.5
        /// Strong below this distance when two or more of a spine's readings match the book
        /// (and it is `gap` ahead, and no reading names another book).
        public var agreedStrong: Double = 0.22
        /// Medium below this, not `medium`, for a reading the reader was unsure of (its
        /// confidence under `minimumConfidence`): a chance word is seldom this close to a title.
        public var unsureMedium: Double = 0.25
        /// Strong below this distance, author unread, for a title that stands alone read whole with
        /// letters misread in place (`SpineMatcher.readWholeMisread`): "Groph Separators, with
        /// Applications" is 0.17 from its title, where the unread author alone costs 0.125.
        public var misreadWholeStrong: Double = 0.22
        public init() {}

        /// The reader was unsure of this reading (a confidence under `minimumConfidence`):
        /// never strong, suggested only within `unsureMedium`, matched alone (no neighbour joins).
        public func isUnsure(_ reading: SpineReading) -> Bool {
            (reading.confidence ?? 1) < minimumConfidence
        }
    }

    public var thresholds: Thresholds
    public var candidateLimit: Int
    /// A spine's readings that share no word are also matched joined together.
    public var joinsFragments: Bool
    /// Searches one source is asked per spine (one per reading): bounds network requests.
    public var queriesPerSource = 4
    /// The same for a paced source (`CandidateSource.isPaced`): each of its requests is a wait.
    public var queriesPerPacedSource = 1
    /// What glued OCR words are spaced with when candidates come from sources (matching against
    /// a `WorkIndex` uses the index's own words with the dictionary).
    public var words = WordFrequencies.dictionaryOnly

    public init(thresholds: Thresholds = Thresholds(), candidateLimit: Int = 30, joinsFragments: Bool = true) {
        self.thresholds = thresholds
        self.candidateLimit = candidateLimit
        self.joinsFragments = joinsFragments
    }

    /// Asks `sources` in order, stopping at the first whose best candidate is strong;
    /// candidates from all asked sources are re-scored together. A failing source is noted
    /// in `unavailable` and the next one asked. The spine's readings (the text, then its
    /// alternatives) ask one after another, at most `queriesPerSource` of them, until the
    /// answer is strong: every reading is still scored against every candidate found.
    public func match(_ reading: SpineReading, sources: [any CandidateSource]) async -> SpineMatch {
        let parsed = Self.parsed(reading, words: words)
        guard let readings = parsed.readings else { return Self.refused(reading, parsed.refusal) }
        var pool: [PreparedCandidate] = []
        var result = SpineMatch(reading: reading, decision: .none, distance: 1, reason: "no candidate")
        var unavailable: [String] = []
        // Junk (texture, scraps) is matched against what is on this machine only: no network wait for it.
        let worthSearchingAfar = readings.filter { ReadingFilters.isWorthSearchingAfar($0.reading, words: words, thresholds: thresholds) }
        let searchesAfar = !worthSearchingAfar.isEmpty
        sources: for source in sources where searchesAfar || !source.asksNetwork {
            // A paced source (Open Library: a request a second without a contact) is what the
            // user waits for: asked once a spine, with its first reading worth a search afar, and
            // only when the sources before it found no book the reading comes near: a suggestion
            // with an ISBN already waits for review, and a paced search would only be a second opinion.
            if source.isPaced, result.decision == .medium, !result.ambiguous, result.best?.isbn13 != nil { continue }
            let queries = source.isPaced ? Array(Self.queries(worthSearchingAfar).prefix(queriesPerPacedSource))
                : Array(Self.queries(readings + Self.asRead(readings)).prefix(queriesPerSource))
            for query in queries {
                do {
                    pool += try await source.candidates(for: query, limit: candidateLimit)
                } catch {
                    unavailable.append("\(error)")
                    continue sources
                }
                result = decide(readings, pool, spine: reading)
                if result.decision == .strong { break sources }
            }
        }
        // A reading that ran two spines together: the words beside the book matched, searched on
        // their own when the whole reading's candidates held no other title. Not on a paced source.
        if let leftovers = leftoverQueries(result, readings) {
            for source in sources where !source.isPaced {
                for leftover in leftovers where leftover.worthSearchingAfar || !source.asksNetwork {
                    pool += (try? await source.candidates(for: leftover.query, limit: candidateLimit)) ?? []
                }
            }
            result = decide(readings, pool, spine: reading)
        }
        // A title read whole may lie inside a longer title the searches did not return (a misread
        // word of it found nothing): what is on this machine is asked for titles holding it.
        if result.decision == .strong, let best = result.best {
            var longer: [PreparedCandidate] = []
            for source in sources where !source.asksNetwork {
                longer += (try? await source.candidates(for: Self.longerTitlesQuery(best), limit: candidateLimit)) ?? []
            }
            longer = Self.holding(best, among: longer)
            if !longer.isEmpty { result = decide(readings, pool + longer, spine: reading) }
        }
        if result.decision != .strong { result.unavailable = unavailable }
        if !searchesAfar, result.decision == .none, sources.contains(where: \.asksNetwork) { result.reason = Self.notSearchedAfar }
        guard let beyond = Self.textBeyondFields(reading) else { return result }
        return heldBeside(result, await match(SpineReading(text: beyond, confidence: reading.confidence), sources: sources))
    }

    static let notSearchedAfar = "no known word read: not searched online"

    /// What is asked for the other title of a reading that ran two spines together, when `result`
    /// names a book and no further title: each OCR reading's words beside that book (`leftovers`)
    /// as read, so a source's respelling works on them ("Architecture Principia Borden, Ahdrews
    /// Civll Engincering Materials" asks "Civll Engincering Materials"), and whether a network
    /// source is asked it (`ReadingFilters.isWorthSearchingAfar`); nil when there are none.
    func leftoverQueries(_ result: SpineMatch, _ readings: [ParsedReading]) -> [(query: CandidateQuery, worthSearchingAfar: Bool)]? {
        guard result.decision != .none, result.alsoHeld.isEmpty, let best = result.best else { return nil }
        let book = PreparedCandidate(best)
        var seen = Set<CandidateQuery>()
        // The reading that matched the book, its words beside the book's that are none of the
        // book's (its author's name after the title is no other title), two words as read (a
        // surname misread at a capital, "ColIins", is one).
        let matched = result.matchedText ?? result.reading.text
        let queries = readings.filter { !$0.hasSeparateTitle && $0.reading.text == matched }.flatMap { reading in
            Self.leftovers(reading, besides: book)
                .filter { $0.words.filter { $0.count >= 3 && !TextNormalizer.stopwords.contains($0) && !book.covers($0) }.count >= 2 }
                .compactMap { reading.asRead($0.range)?.inside }
                .filter { $0.split(whereSeparator: \.isWhitespace).filter { $0.filter(\.isLetter).count >= 3 }.count >= 2 }
        }.map { text in
            let leftover = SpineReading(text: text, confidence: result.reading.confidence)
            return (ParsedReading(leftover, words: words).query, ReadingFilters.isWorthSearchingAfar(leftover, words: words, thresholds: thresholds))
        }.filter { seen.insert($0.0).inserted }
        return queries.isEmpty ? nil : Array(queries.prefix(2))
    }

    /// Synchronous scoring against candidates already at hand.
    public func match(_ reading: SpineReading, candidates: [PreparedCandidate]) -> SpineMatch {
        let parsed = Self.parsed(reading, words: words)
        guard let readings = parsed.readings else { return Self.refused(reading, parsed.refusal) }
        let result = decide(readings, candidates, spine: reading)
        guard let beyond = Self.textBeyondFields(reading) else { return result }
        return heldBeside(result, match(SpineReading(text: beyond, confidence: reading.confidence), candidates: candidates))
    }

    public func match(_ reading: SpineReading, index: WorkIndex) -> SpineMatch {
        let parsed = Self.parsed(reading, words: index.words)
        guard let readings = parsed.readings else { return Self.refused(reading, parsed.refusal) }
        var pool = Self.queries(readings + Self.asRead(readings)).flatMap { index.candidates(for: $0, limit: candidateLimit) }
        var result = decide(readings, pool, spine: reading)
        if let leftovers = leftoverQueries(result, readings) {
            pool += leftovers.flatMap { index.candidates(for: $0.query, limit: candidateLimit) }
            result = decide(readings, pool, spine: reading)
        }
        guard result.decision == .strong, let best = result.best else { return result }
        let longer = Self.holding(best, among: index.candidates(for: Self.longerTitlesQuery(best), limit: candidateLimit))
        return longer.isEmpty ? result : decide(readings, pool + longer, spine: reading)
    }

    /// The reading and each alternative taken apart; those that cannot be a title (call numbers,
    /// publishers) left out. Nil readings when none is left, with the main text's refusal.
    static func parsed(_ reading: SpineReading, words: WordFrequencies? = nil) -> (readings: [ParsedReading]?, refusal: String) {
        let main = ParsedReading(reading, words: words)
        var readings = main.refusal == nil ? [main] : []
        if !reading.unreadable {
            for text in reading.alternatives {
                let alternative = ParsedReading(SpineReading(text: text, confidence: reading.confidence), words: words)
                if alternative.refusal == nil { readings.append(alternative) }
            }
        }
        return (readings.isEmpty ? nil : readings, main.refusal ?? "no words read")
    }

    static func refused(_ reading: SpineReading, _ reason: String) -> SpineMatch {
        SpineMatch(reading: reading, decision: .none, distance: 1, reason: reason)
    }

    /// The readings whose glued runs were spaced (`ParsedReading.spaced`), as read.
    static func asRead(_ readings: [ParsedReading]) -> [ParsedReading] {
        readings.filter(\.spaced).map { ParsedReading($0.reading) }
    }

    /// One query per distinct reading.
    static func queries(_ readings: [ParsedReading]) -> [CandidateQuery] {
        var seen = Set<CandidateQuery>()
        return readings.map(\.query).filter { seen.insert($0).inserted }
    }

    /// A spine's readings against the candidates: each reading is decided on its own (the
    /// one-reading rule), then the spine's answer is the work its readings back: one read
    /// strong first, then the most readings, then the closest. It stays strong only when no
    /// reading backs another work more, or comes within the strong distance of another work:
    /// two readings of one spine naming different books are an ambiguity (review, `ambiguous`).
    func decide(_ readings: [ParsedReading], _ candidates: [PreparedCandidate], spine: SpineReading) -> SpineMatch {
        var unique = Set<PreparedCandidate>()
        let candidates = candidates.filter { unique.insert($0).inserted }
        // A reading whose glued runs were spaced is also matched as read: a word no dictionary
        // holds is not always glued ("MOCKINGJAY" is no "mocking jay"). Fragments read by
        // different passes (title by one, author by another) also go together. Neither backs a
        // work as an extra reading (the words were read once).
        let all = readings + Self.asRead(readings) + (joinsFragments ? Self.joined(readings) : [])
        let each = all.map { decide($0, candidates) }
        // A reading whose words all lie in a longer reading, and in the book that one matched,
        // is a fragment of it ("ROAD" of "FANG ROAD MERCY", Long Road to Mercy): it backs that book.
        let backs = each.indices.map { number -> PreparedCandidate? in
            guard each[number].match.decision != .none, let own = each[number].work else { return nil }
            let words = Set(all[number].title.full)
            let fuller = each.indices.first { other in
                guard other != number, let work = each[other].work, work.identity != own.identity,
                      each[other].match.decision != .none else { return false }
                let longer = Set(all[other].title.full)
                return words.isStrictSubset(of: longer) && words.allSatisfy { work.covers($0) }
            }
            return fuller.flatMap { each[$0].work }
        }
        // Works the readings name: how many readings, the closest distance, whether one is strong.
        var works: [String: (support: Int, closest: Double, strong: Bool)] = [:]
        for (number, result) in each.enumerated() where result.match.decision != .none {
            if let fuller = backs[number] {
                if number < readings.count { works[fuller.identity, default: (0, 1, false)].support += 1 }
                continue
            }
            guard let identity = result.work?.identity else { continue }
            var work = works[identity] ?? (0, 1, false)
            if number < readings.count { work.support += 1 }
            work.closest = min(work.closest, result.match.distance)
            work.strong = work.strong || result.match.decision == .strong
            works[identity] = work
        }
        let ranked = works.sorted { a, b in
            if a.value.strong != b.value.strong { return a.value.strong }
            if a.value.support != b.value.support { return a.value.support > b.value.support }
            return a.value.closest != b.value.closest ? a.value.closest < b.value.closest : a.key < b.key
        }
        guard let (identity, winner) = ranked.first,
              let chosen = each.indices.filter({ backs[$0] == nil && each[$0].work?.identity == identity
                  && (!winner.strong || each[$0].match.decision == .strong) })
                .min(by: { each[$0].match.distance < each[$1].match.distance }) else {
            var none = each[0].match
            none.reading = spine
            return none
        }
        var result = each[chosen].match
        result.reading = spine
        result.matchedText = all[chosen].reading.text == spine.text ? nil : all[chosen].reading.text
        result.agreeing = max(1, winner.support)
        // Readings from different passes agreeing on a work are more evidence than one reading.
        if result.decision != .strong, winner.support >= 2, each[chosen].mayAgree, thresholds.agreedStrong > thresholds.strong,
           rule(result, strongBelow: thresholds.agreedStrong).0 == .strong {
            result.decision = .strong
            result.reason = nil
        }
        // A work one reading holds beside the winner (that reading ran the two spines together,
        // each title matched on its own words) is the neighbour, not another reading of this spine:
        // kept beside it ("Lisa Kleypas Again the Magic Faking It Jennifer Crusie"). Readings as
        // read only: two readings joined (`joined`) hold both books by construction.
        func named(_ match: SpineMatch) -> [SpineMatch] { ([match] + match.alsoHeld).filter { $0.decision != .none && $0.best != nil } }
        let heldTogether = each.prefix(readings.count).map { named($0.match) }
            .filter { held in held.contains { PreparedCandidate($0.best!).identity == identity } }
        var rivals = ranked.dropFirst().filter { _, work in work.support > winner.support || work.closest <= thresholds.strong }
        rivals.removeAll { rival, _ in
            guard let beside = heldTogether.lazy.compactMap({ $0.first { PreparedCandidate($0.best!).identity == rival } }).first else { return false }
            if !named(result).contains(where: { PreparedCandidate($0.best!).identity == rival }) {
                var held = beside
                held.alsoHeld = []
                result.alsoHeld.append(held)
            }
            return true
        }
        if result.decision == .strong, !rivals.isEmpty {
            result.decision = .medium
            result.ambiguous = true
            result.reason = "readings of the spine name different books"
        }
        return result
    }

    /// Pairs of readings sharing no word, each pair as one text (at most `limit`).
    static func joined(_ readings: [ParsedReading], limit: Int = 10) -> [ParsedReading] {
        guard readings.count >= 2 else { return [] }
        let words = readings.map { Set(TextNormalizer.tokens($0.reading.text).filter { $0.count >= 3 }) }
        var joined: [ParsedReading] = []
        for first in readings.indices {
            for second in readings.indices where second > first && !words[first].isEmpty && !words[second].isEmpty
                && words[first].isDisjoint(with: words[second]) {
                guard joined.count < limit else { return joined }
                // Their tails stay beside them (a one-word tail is already in the query's text).
                let tails = [readings[first].tail, readings[second].tail].compactMap { $0 }.filter { $0.words.count > 1 }.map(\.text)
                joined.append(ParsedReading(SpineReading(text: ([readings[first].query.text, readings[second].query.text] + tails).joined(separator: " "),
                                                         confidence: readings[first].reading.confidence)))
            }
        }
        return joined
    }

    /// One reading against the candidates, and the work it matched.
    func decide(_ reading: ParsedReading, _ candidates: [PreparedCandidate]) -> (match: SpineMatch, work: PreparedCandidate?, mayAgree: Bool) {
        var bestByWork: [String: (Double, PreparedCandidate, Bool, Bool, Bool)] = [:]
        var authorOnly = false
        var vetoes = 0
        let sole = Self.soleTitle(reading, among: candidates)
        for candidate in candidates {
            switch score(reading, candidate, soleTitle: candidate.identity == sole) {
            case .distance(let d, let mayAgree, let mayBeStrong, let misreadWhole):
                if let seen = bestByWork[candidate.identity], seen.0 <= d { continue }
                bestByWork[candidate.identity] = (d, candidate, mayAgree, mayBeStrong, misreadWhole)
            case .authorOnly: authorOnly = true
            case .veto: vetoes += 1
            }
        }
        let ranked = bestByWork.values.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1.candidate.workKey < $1.1.candidate.workKey }
        // OCR text that is just some candidate's author ("Lee Child") names no title: a loose
        // title match elsewhere ("The Lost Child of Philomena Lee") is chance.
        let onlyAName = authorOnly && !reading.hasSeparateTitle && (ranked.first.map { $0.0 > thresholds.strong } ?? true)
        let medium = thresholds.isUnsure(reading.reading) ? min(thresholds.unsureMedium, thresholds.medium) : thresholds.medium
        guard !onlyAName, let (distance, best, mayAgree, mayBeStrong, misreadWhole) = ranked.first, distance <= medium else {
            let reason = authorOnly ? Self.authorAloneReason : (vetoes > 0 ? "author or volume differs" : "no candidate close enough")
            return (SpineMatch(reading: reading.reading, decision: .none, distance: ranked.first?.0 ?? 1,
                               best: nil, runnerUpDistance: nil, reason: reason), nil, false)
        }
        let runnerUp = ranked.dropFirst().first?.0
        var match = SpineMatch(reading: reading.reading, decision: .medium, distance: distance, best: best.candidate,
                               runnerUpDistance: runnerUp)
        (match.decision, match.reason) = rule(match, strongBelow: misreadWhole ? max(thresholds.strong, thresholds.misreadWholeStrong) : thresholds.strong)
        if match.decision == .strong, !mayBeStrong {
            match.decision = .medium
            match.reason = Self.needsAuthorReason
        }
        // Words no part of this book that hold another title: that title matched on its own, and
        // this one again without them (they are no junk around it). A match of those words weaker
        // than an unsure reading's suggestion is chance ("YEARLING NEWBIRYA" is no The Yearling).
        for rest in reading.hasSeparateTitle ? [] : Self.leftovers(reading, besides: best) {
            // Matched again as read: the compared spelling read again is another word.
            let read = reading.asRead(rest.range)
            let other = decide(ParsedReading(SpineReading(text: read?.inside ?? rest.words.joined(separator: " "),
                                                          confidence: reading.reading.confidence)),
                               candidates.filter { $0.identity != best.identity })
            if other.match.decision != .none, other.match.distance <= thresholds.unsureMedium, let otherWork = other.work {
                var own = reading.title.full
                own.removeSubrange(rest.range)
                // The tail set aside stays beside the title: evidence that more than the title was read.
                let ownText = ([read?.outside ?? own.joined(separator: " ")] + [reading.tail?.text].compactMap { $0 }).joined(separator: " ")
                let alone = decide(ParsedReading(SpineReading(text: ownText, confidence: reading.reading.confidence)),
                                   candidates.filter { $0.identity != otherWork.identity })
                var held = [other.match] + other.match.alsoHeld
                held[0].alsoHeld = []
                var agrees = mayAgree
                if alone.work?.identity == best.identity, alone.match.distance < match.distance {
                    match = alone.match
                    match.reading = reading.reading
                    agrees = alone.mayAgree
                }
                match.alsoHeld = held
                return insideLonger(match, best, agrees, reading, candidates)
            }
        }
        return insideLonger(match, best, mayAgree, reading, candidates)
    }

    /// A strong match whose title lies whole inside a longer candidate title (`longerTitle`) is
    /// for review: "Homer The lliad/The Odyssey" is not The Odyssey, nor "Batman: Hush, Jeph Loeb"
    /// Batman: Hush when Batman: Hush, Vol. 1 is listed. Readings agreeing cannot make it strong.
    func insideLonger(_ match: SpineMatch, _ best: PreparedCandidate, _ mayAgree: Bool, _ reading: ParsedReading,
                      _ candidates: [PreparedCandidate]) -> (match: SpineMatch, work: PreparedCandidate?, mayAgree: Bool) {
        guard match.decision == .strong, let longer = Self.longerTitle(holding: best, read: reading.title.full, among: candidates) else {
            return (match, best, mayAgree)
        }
        var held = match
        held.decision = .medium
        held.reason = "a longer title holds it: \(longer.candidate.title)"
        return (held, best, false)
    }

    /// A candidate whose title holds `book`'s whole (its words in a row) with more words, when the
    /// reading shows those words too, a letter off or misread in place ("lliad"), or they are only a
    /// volume or part marker ("Vol. 1", "Book 2", ", Part One") a spine may not print. A sibling whose
    /// extra words the reading does not show (Dune beside Dune Messiah) is none. The words of `book`
    /// and of its authors' names do not count as shown ("Homer The Odyssey" shows no Homer's Odyssey).
    static func longerTitle(holding book: PreparedCandidate, read: [String], among candidates: [PreparedCandidate]) -> PreparedCandidate? {
        guard book.parts.volume == nil else { return nil }
        var shown = read
        for word in book.parts.full {
            if let index = shown.firstIndex(where: { $0 == word || Similarity.wordSimilarity($0, word) > 0 }) { shown.remove(at: index) }
        }
        let names = Set(book.authorWords.joined())
        shown.removeAll { word in names.contains { word == $0 || Similarity.wordSimilarity(word, $0) > 0 } }
        func isShown(_ word: String) -> Bool {
            shown.contains { $0 == word || Similarity.wordSimilarity($0, word) > 0 || misreadInPlace($0, word) }
        }
        return candidates.first { other in
            guard let extra = wordsBeyond(book, in: other) else { return false }
            // A roman numeral is compared as `ocrCanonical` spells it ("ii" is "ll").
            let marker = extra.filter { !TitleParts.volumeWords.contains($0) && TitleParts.number($0) == nil && !$0.allSatisfy("lvx".contains) }
            if marker.isEmpty { return other.parts.volumeInTitle }
            return marker.allSatisfy(isShown)
        }
    }

    /// The significant words `other`'s title has beyond `book`'s whole title (its words in a row
    /// inside `other`'s); nil when it does not hold it or is the same work.
    static func wordsBeyond(_ book: PreparedCandidate, in other: PreparedCandidate) -> [String]? {
        let title = book.parts.full, full = other.parts.full
        guard !title.isEmpty, other.identity != book.identity, full.count > title.count,
              let start = (0...(full.count - title.count)).first(where: { Array(full[$0..<$0 + title.count]) == title }) else { return nil }
        return Array(full[..<start] + full[(start + title.count)...]).filter { !TextNormalizer.stopwords.contains($0) }
    }

    /// Of `found` (what `longerTitlesQuery(best)` returned), the candidates whose titles hold
    /// `best`'s whole with more words: what a strong match is decided again beside.
    static func holding(_ best: MatchCandidate, among found: [PreparedCandidate]) -> [PreparedCandidate] {
        let book = PreparedCandidate(best)
        return found.filter { wordsBeyond(book, in: $0) != nil }
    }

    /// What a search for titles holding `book`'s is asked (`longerTitle`): its title alone.
    static func longerTitlesQuery(_ book: MatchCandidate) -> CandidateQuery {
        CandidateQuery(title: book.title, author: nil, text: book.title)
    }

    /// The longest run of the reading's words that `book` does not cover (title, series or author
    /// word; function words go with either; an imprint belongs to no title),
    /// when it has two words of three letters or more: room for another title.
    static func leftover(_ reading: ParsedReading, besides book: PreparedCandidate) -> (words: [String], range: Range<Int>)? {
        let words = reading.title.full
        var best: Range<Int>?
        var start: Int?
        for index in 0...words.count {
            let word = index < words.count ? words[index] : ""
            if index < words.count, !Publishers.imprints.contains(word),
               !book.covers(word) || (start != nil && TextNormalizer.stopwords.contains(word)) {
                if start == nil { start = index }
                continue
            }
            if let first = start {
                let run = first..<index
                if run.count > (best?.count ?? 0) { best = run }
                start = nil
            }
        }
        guard let run = best, words[run].filter({ $0.count >= 3 && !TextNormalizer.stopwords.contains($0) }).count >= 2 else { return nil }
        return (Array(words[run]), run)
    }

    /// Where another title may lie in the reading beside `book`'s: the longest run `book` does not
    /// cover (`leftover`), then the words before or after the run that holds `book`'s whole title,
    /// when they have two words of three letters or more. A neighbour sharing a word with `book`
    /// ("Smart Materials Tcchnologies Advanced Building Construction and Materials Handbook":
    /// "materials" is both's) leaves no uncovered run of two words, and a neighbour whose title
    /// holds `book`'s words ("New Frontiers in Graph Theory Hybrid Graph Theory…") leaves only part
    /// of its title uncovered.
    static func leftovers(_ reading: ParsedReading, besides book: PreparedCandidate) -> [(words: [String], range: Range<Int>)] {
        var found = leftover(reading, besides: book).map { [$0] } ?? []
        let words = reading.title.full
        let run = Similarity.bestRun(words, book.parts.full)
        guard run.complete, !run.range.isEmpty else { return found }
        for side in [0..<run.range.lowerBound, run.range.upperBound..<words.count].sorted(by: { $0.count > $1.count })
        where words[side].filter({ $0.count >= 3 && !TextNormalizer.stopwords.contains($0) }).count >= 2
            && !found.contains(where: { $0.range == side }) {
            found.append((Array(words[side]), side))
        }
        return found
    }

    static let needsAuthorReason = "the title is too short or common to add without its author"

    /// beets' rule for a match: strong under `strongBelow`, `gap` ahead of the runner-up, the
    /// reader sure, an ISBN to add; else medium and why.
    func rule(_ match: SpineMatch, strongBelow: Double) -> (MatchDecision, String?) {
        if match.distance > strongBelow {
            return (.medium, "distance \(String(format: "%.2f", match.distance)) is over \(strongBelow)")
        } else if let runnerUp = match.runnerUpDistance, runnerUp - match.distance < thresholds.gap {
            return (.medium, "too close to another book")
        } else if thresholds.isUnsure(match.reading) {
            return (.medium, "the reader was unsure")
        } else if match.best?.isbn13 == nil {
            return (.medium, "no ISBN to add")
        }
        return (.strong, nil)
    }

    /// `mayAgree`: readings agreeing may make it strong at `agreedStrong`; `mayBeStrong`: it may be
    /// strong at all (the title matched whole, and its author read or a title that stands alone);
    /// `misreadWhole`: strong up to `misreadWholeStrong` (`readWholeMisread`).
    enum Score { case distance(Double, mayAgree: Bool, mayBeStrong: Bool, misreadWhole: Bool = false), authorOnly, veto }

    /// `soleTitle`: the reading is this book's title word for word and no other candidate's
    /// (`soleTitle(_:among:)`): it may be strong without its author, one word or two.
    func score(_ reading: ParsedReading, _ candidate: PreparedCandidate, soleTitle: Bool = false) -> Score {
        // Author: a surname agreeing settles it; a different author vetoes.
        // A tail set aside whose words the candidate's title holds is that title's end ("Time's Arrow");
        // one its author's names hold is the author read ("Mockingjay Collins": Suzanne Collins, not the house).
        var readTitle = reading.title
        if let tail = reading.tail, let withTail = reading.titleWithTail,
           tail.words.contains(where: { word in candidate.parts.full.contains(word) || candidate.authorWords.contains { $0.contains(word) } }) {
            readTitle = withTail
        }
        if !reading.hasSeparateTitle {
            readTitle.full = Self.rejoined(readTitle.full, against: candidate)
            readTitle.main = Self.rejoined(readTitle.main, against: candidate)
        }
        var authorDistance = 0.5
        // The candidate's surname read (exactly, in OCR text; or the reader's author field agreeing).
        // A surname read a letter off lowers the distance but is no author read: it never lets a
        // title stand that needs its author ("vines" is not Clines, issue 35).
        var authorRead = false
        // Some of the author read, a surname a letter off included: enough to look at a run of
        // the reading or a one-word title read in part, for review.
        var authorSupported: Bool { authorDistance < 0.5 }
        if !reading.authorWords.isEmpty {
            switch authorAgreement(reading.authorWords, candidate) {
            case .surname:
                authorDistance = 0
                authorRead = true
            case .givenName: authorDistance = 0.4
            case .different:
                // The model swapped the fields ("title": "Cormac McCarthy", "author": "The Road")?
                guard let swapped = reading.swapped, authorAgreement(swapped.authorWords, candidate) == .surname else { return .veto }
                readTitle = swapped.title
                authorDistance = 0.05
                authorRead = true
            }
        } else if !reading.hasSeparateTitle {
            // Title and author run together ("Dune Frank Herbert"): the candidate's author
            // words found in the text count as the author and leave the title.
            // A surname of five letters or more may be read a letter off ("Uruen" for Gruen).
            let names = Set(candidate.authorWords.flatMap { $0 })
            func isName(_ word: String, _ names: Set<String>) -> Bool {
                names.contains(word) || (word.utf8.count >= 5 && names.contains { Similarity.wordSimilarity(word, $0) >= 0.8 })
            }
            let surnames = Set(candidate.surnames)
            // A Chinese name's characters, each a word of the reading, as the one word the name is.
            let read = AuthorName.joiningNames(readTitle.full, names)
            var remaining = read.filter { !isName($0, names) }
            let foundSurname = read.contains { isName($0, surnames) }
            let exactSurname = read.contains { surnames.contains($0) }
            // An imprint printed at the foot of the spine ("... McCARTHY VINTAGE") is no part of the title.
            while let last = remaining.last, Publishers.imprints.contains(last), !candidate.parts.full.contains(last) {
                remaining.removeLast()
            }
            if foundSurname, !remaining.allSatisfy({ Self.isScrap($0, of: candidate) }), remaining.count < read.count {
                let titleHasThem = read.filter { isName($0, names) }.allSatisfy { candidate.parts.full.contains($0) }
                if !titleHasThem {
                    readTitle.full = remaining
                    readTitle.main = remaining
                    authorDistance = exactSurname ? 0 : Self.nearSurnameDistance
                    authorRead = exactSurname
                }
            }
        }
        // An imprint at the foot of the spine is no part of the title, the author read or not
        // ("Island of the Blue Dolphins YEARLING").
        if !reading.hasSeparateTitle {
            while readTitle.full.count > 1, let last = readTitle.full.last, Publishers.imprints.contains(last),
                  !candidate.parts.full.contains(last) {
                readTitle.full.removeLast()
                if readTitle.main.last == last, readTitle.main.count > 1 { readTitle.main.removeLast() }
            }
        }
        // A title that is only the candidate's author's name is no title match.
        // OCR scraps beside the name ("James vv. Loewen", "OL William Shakespeare") leave it a name.
        let names = Set(candidate.authorWords.flatMap { $0 })
        let named = AuthorName.joiningNames(readTitle.full, names).filter { !Self.isScrap($0, of: candidate) }
        if named.count <= 4, !named.isEmpty {
            if named.allSatisfy({ names.contains($0) }), readTitle.full != candidate.parts.full {
                return .authorOnly
            }
        }
        // OCR text is full of two-letter scraps: "It" or "We" among them, without the author, is no title.
        if !reading.hasSeparateTitle, !authorRead, candidate.parts.full.joined().count <= 2 {
            return .distance(1, mayAgree: false, mayBeStrong: false)
        }
        // Nor is a short word read a letter wrong ("Gury" for Fury, "meat" for Heat): a one-word
        // title without its author needs the word exact, or of five letters or more and one
        // letter off ("Unwin" for Unwind).
        if !reading.hasSeparateTitle, !authorSupported, case let words = candidateSignificantWords(candidate), words.count == 1,
           !readTitle.full.contains(where: { $0 == words[0] || ($0.utf8.count >= 5 && Similarity.wordSimilarity($0, words[0]) >= 0.8) }) {
            return .distance(1, mayAgree: false, mayBeStrong: false)
        }
        // Volume: a different number vetoes; one side missing costs a little.
        var penalty = 0.0
        var volumeUnread = false
        switch (readTitle.volume, candidate.parts.volume) {
        case let (read?, known?) where read != known: return .veto
        case (.some, nil): penalty += 0.15
        case (nil, .some):
            penalty += 0.03
            volumeUnread = candidate.parts.volumeInTitle
        default: break
        }
        let fullComparison = Similarity.titleComparison(readTitle.full, candidate.parts.full)
        var titleSimilarity = max(
            fullComparison.score,
            Similarity.titleSimilarity(readTitle.main, candidate.parts.main) - 0.02,
            Similarity.titleSimilarity(readTitle.full, candidate.parts.main) - 0.03,
            Similarity.titleSimilarity(readTitle.main, candidate.parts.full) - 0.05)
        // "Harry Potter 3" names the series and the volume, not the title.
        var seriesNamed = false
        if !candidate.parts.series.isEmpty, readTitle.volume != nil, readTitle.volume == candidate.parts.volume {
            let seriesSimilarity = Similarity.titleSimilarity(readTitle.main, candidate.parts.series) - 0.1
            seriesNamed = seriesSimilarity > titleSimilarity
            titleSimilarity = max(titleSimilarity, seriesSimilarity)
        }
        // A word swapped for another is a different book, not a misreading.
        var swapped = fullComparison.swapped
        var usedRun = false, partialRun = false
        // OCR text (no title field) carries junk around the title: a library sticker, the
        // imprint, art read as letters. The title is then one run of the reading (also of a
        // reading shorter than the title: "The Strange Logic of cons"); each word left over
        // costs 0.03 (at most four), and the run never brings in a candidate whose title is a
        // single significant word unless its author's surname was read too. A reading no longer
        // than the title gains from a run only by leaving out a word that is in no title word.
        let candidateSignificant = candidateSignificantWords(candidate).count
        if !reading.hasSeparateTitle, !seriesNamed, readTitle.full.count >= 2,
           readTitle.full.count > candidate.parts.full.count
            || readTitle.full.contains(where: { word in !candidate.parts.full.contains { Similarity.wordSimilarity(word, $0) > 0 } }),
           candidateSignificant >= 2 || authorSupported {
            let run = Similarity.bestRun(readTitle.full, candidate.parts.full)
            // Junk around a whole title of three or more significant words read exactly costs
            // half: chance does not spell out such a title.
            let wholeLongTitle = run.complete && run.score >= 0.95 && candidateSignificant >= 3
            // A title that stands alone (three different significant words or more), read
            // exactly, is no likelier chance for more junk around it (a library label, the
            // author's name misread, a series line): past three words the junk costs nothing
            // more, so such a title can be added without its author.
            let junkCounted = wholeLongTitle && run.score >= 0.999 && Self.standsAlone(candidate)
                && Set(candidateSignificantWords(candidate)).count >= 3 ? 3 : 4
            let runSimilarity = run.score - (wholeLongTitle ? 0.015 : 0.03) * Double(min(junkCounted, readTitle.full.count - run.length))
            // A run holding one word of a longer title ("ORK Red", The Red Tent) is chance unless the author was read.
            if runSimilarity > titleSimilarity, run.complete || run.matched >= 2 || authorSupported {
                titleSimilarity = runSimilarity
                swapped = false
                usedRun = true
                partialRun = !run.complete
            }
        }
        if swapped, !seriesNamed { penalty += 0.12 }
        // One significant word proves little without an author ("Twilight", "It").
        let significant = usedRun ? candidateSignificant : readTitle.full.filter { !TextNormalizer.stopwords.contains($0) }.count
        if significant <= 1, !authorRead, !soleTitle { penalty += 0.05 }
        let distance = 0.75 * (1 - titleSimilarity) + 0.25 * authorDistance + penalty
        // A run missing one of the title's words is for review, never added.
        // Readings agreeing cannot make these strong: a title cut short, or one word and no author.
        // Nor a volume whose number, printed in its title, no reading holds: the next volume reads the same.
        // Never a wrong book: strong needs the author read or a title that stands alone, and a
        // very short title (one short word, a number) among words that are neither title nor
        // author is never strong, author or not: "14" inside a call-number label is chance.
        let junkAround = !reading.hasSeparateTitle
            && (readTitle.full.contains { word in !candidate.parts.full.contains { Similarity.wordSimilarity(word, $0) > 0 } }
                || reading.tail != nil)
        let mayBeStrong = (authorRead || Self.standsAlone(candidate) || soleTitle) && !(junkAround && Self.isVeryShort(candidate))
        let settled = partialRun || (candidateSignificant <= 1 && !authorRead) || volumeUnread || !mayBeStrong
        // A title that stands alone, its author unread, read whole with a letter misread here and
        // there: its words, nothing else, in the title's word lengths.
        let misreadWhole = !authorRead && !volumeUnread && mayBeStrong && !partialRun && !swapped
            && Self.standsAlone(candidate) && Self.readWholeMisread(readTitle.full, candidate.parts.full)
        return .distance(partialRun ? max(distance, thresholds.strong + 0.01) : distance, mayAgree: !settled, mayBeStrong: mayBeStrong,
                         misreadWhole: misreadWhole)
    }

    /// The reading is the title's words and nothing else, each word as long as the title's with
    /// letters misread in place ("groph" for graph, "zofa" for Zafa; a function word too, "af"
    /// for of), at least one so. Measured on the 10,000 goodbooks works split in halves (five
    /// seeds, `scripts/bench-sole-titles --misread`): of the titles that stand alone, the share whose
    /// words, so misread, are another author's title of the other half is 0.02% for two words
    /// (12+ letters) and 0.03% for three or more, beside the 2.0% and 1.3% that hold them whole (the
    /// exact rule's); with a letter added or dropped too ("Summer Night" for Summer Knight,
    /// "Northern Lights") 0.43% for two words: left out. A misread word in a title that does not
    /// stand alone ("Six Degrces") or junk beside it keeps the strong distance.
    static func readWholeMisread(_ read: [String], _ title: [String]) -> Bool {
        var unpaired = title
        var misread = false
        for word in read {
            if let index = unpaired.firstIndex(of: word) {
                unpaired.remove(at: index)
            } else if let index = unpaired.firstIndex(where: { misreadInPlace(word, $0) }) {
                unpaired.remove(at: index)
                misread = true
            } else if !TextNormalizer.stopwords.contains(word) {
                return false
            }
        }
        return misread && unpaired.allSatisfy(TextNormalizer.stopwords.contains)
    }

    /// As long as `word` with letters substituted: a word of 4+ letters near it (`Similarity`), or a
    /// function word of the title a letter off ("af", "far", "thc").
    static func misreadInPlace(_ read: String, _ word: String) -> Bool {
        guard read.count == word.count, read != word else { return false }
        if word.count >= 4 { return Similarity.wordSimilarity(read, word) > 0 }
        return TextNormalizer.stopwords.contains(word) && zip(read, word).filter { $0 != $1 }.count == 1
    }

    /// What a surname read a letter off counts for in the distance (an exact one counts 0, none 0.5).
    static let nearSurnameDistance = 0.1

    /// A title long and distinctive enough to be added without its author read: three significant
    /// words or more, or two with twelve letters or more between them. Measured on the 10,000
    /// goodbooks works (`TitleDistinctiveness`, scripts/bench-spine-matching --distinctiveness: the
    /// share of titles of each shape that lie whole, within the strong distance, inside another
    /// author's title, where a spine of that other book with its author unread would find them):
    /// one word 52% (under 8 letters), 27% (8-11), 9.8% (12-15); two words 10.3% (under 8), 5.2%
    /// (8-11), 4.1% (12-15), 2.5% (16+); three or more 0 of 11 (under 8), 3.2% (8-11), 2.2%
    /// (12-15), 0.7% (16+). The shapes kept are those under 5%.
    /// A Chinese or Japanese title (each character a word, `TextNormalizer.fold`) stands alone
    /// with `minimumStandingIdeographs` characters or more, a Latin word counting two.
    static func standsAlone(_ candidate: PreparedCandidate) -> Bool {
        let words = candidate.parts.full.filter { !TextNormalizer.stopwords.contains($0) }
        if let size = ideographicSize(words) { return size >= minimumStandingIdeographs }
        return words.count >= 3 || (words.count == 2 && words.reduce(0) { $0 + $1.count } >= minimumStandingLetters)
    }

    /// The candidate whose title the reading is, word for word with nothing else read (no author,
    /// no junk), when no other candidate's title, series or author holds the words read and the
    /// title has a word of four letters or more no dictionary holds: one such word of 8 letters or
    /// more ("Furyborn", "UnSouled"), or two words with one, or two dictionary words of 11 letters
    /// ("Small Worlds"; "The Gilded Ones" is two dictionary words of 10).
    /// Measured on the 10,000 goodbooks works split in halves (five seeds, scripts/bench-sole-titles;
    /// docs/PERFORMANCE.md stop 38): of titles whose words no other title of one half holds, the
    /// share whose words a title of the other half holds (a book the sources did not list, whose
    /// spine would read the same) is 4.8% for one unknown word of 8+ letters, 2.3% for two words
    /// with an unknown one, against 18.2% and 26.3% for one dictionary word (8+ / under 8), 9.5% for
    /// an unknown word under 8 letters, 5.6% for two dictionary words (6.5% under 11 letters, 3.2% of
    /// 11: `minimumSoleDictionaryLetters`): the shapes kept are those under 5%, as `standsAlone`'s.
    /// Chinese titles keep their rule.
    static func soleTitle(_ reading: ParsedReading, among candidates: [PreparedCandidate]) -> String? {
        guard reading.authorWords.isEmpty, reading.tail == nil else { return nil }
        // A word OCR split at a gap ("UnSouLeD" at its capitals, "FURYBORN" spaced as glued) read as one.
        let read = { (candidate: PreparedCandidate) in
            reading.hasSeparateTitle ? reading.title.full : rejoined(reading.title.full, against: candidate)
        }
        guard let book = candidates.first(where: { read($0) == $0.parts.full }), !book.parts.volumeInTitle,
              !Publishers.isWholeReading(book.parts.full), !book.parts.full.contains(where: Publishers.imprints.contains) else { return nil }
        let significant = book.parts.full.filter { !TextNormalizer.stopwords.contains($0) }
        guard ideographicSize(significant) == nil, !significant.contains(where: { $0.allSatisfy(\.isNumber) }) else { return nil }
        // Letters as printed: the compared spelling is shorter ("furyborn" is "furybom").
        let printed = TextNormalizer.fold(book.candidate.title).split(separator: " ").map(String.init)
        func letters(_ word: String) -> Int {
            printed.filter { TextNormalizer.ocrCanonical($0) == word }.map(\.count).max() ?? word.count
        }
        // A word no dictionary holds, of four letters or more ("I'm" is no such word).
        let unknown = significant.filter { !WordFrequencies.systemDictionary.contains($0) && letters($0) >= 4 }
        switch significant.count {
        case 1: guard let word = unknown.first, letters(word) >= minimumSoleLetters else { return nil }
        case 2: guard !unknown.isEmpty || significant.map(letters).reduce(0, +) >= minimumSoleDictionaryLetters else { return nil }
        default: return nil
        }
        let others = candidates.filter { $0.identity != book.identity }
        guard !others.contains(where: { other in significant.allSatisfy(other.covers) }) else { return nil }
        return book.identity
    }

    /// Letters a one-word title no dictionary holds needs to be a sole title (under 8: 9.8% confusable).
    static let minimumSoleLetters = 8

    /// Letters two dictionary words need between them to be a sole title ("Small Worlds", "The Cost
    /// of Knowing"; twelve and more stand alone anyway). scripts/bench-sole-titles: 3.2% of such
    /// titles of 11 letters are held by a title of the other half, 5.7% of 10, 6.0% of 9, 7.2% of 8.
    static let minimumSoleDictionaryLetters = 11

    /// Letters two significant words need between them to stand alone.
    static let minimumStandingLetters = 12

    /// Characters a Chinese or Japanese title needs to stand alone. Measured on the catalogue's
    /// CJK titles (goodbooks' and the labelled shelves', `TitleDistinctiveness`): see docs/PERFORMANCE.md (stop 35).
    static let minimumStandingIdeographs = 6

    /// A title's size in characters when it holds Han or kana (a Latin word counts two); nil for other titles.
    static func ideographicSize(_ significant: [String]) -> Int? {
        let ideographs = significant.filter(TextNormalizer.isIdeographic).count
        return ideographs == 0 ? nil : ideographs + 2 * (significant.count - ideographs)
    }

    /// One short word (four letters or fewer) or a number: the title "14", "It", "Heat"; in
    /// Chinese or Japanese, two characters or fewer ("图论").
    static func isVeryShort(_ candidate: PreparedCandidate) -> Bool {
        let words = candidate.parts.full.filter { !TextNormalizer.stopwords.contains($0) }
        if let size = ideographicSize(words) { return size <= 2 }
        return words.count <= 1 && (words.first.map { $0.count <= 4 || $0.allSatisfy(\.isNumber) } ?? true)
    }

    /// A word of one or two letters that is no word of the candidate's title: OCR's scraps.
    static func isScrap(_ word: String, of candidate: PreparedCandidate) -> Bool {
        word.count <= 2 && !candidate.parts.full.contains(word)
    }

    func candidateSignificantWords(_ candidate: PreparedCandidate) -> [String] {
        candidate.parts.full.filter { !TextNormalizer.stopwords.contains($0) }
    }

    /// OCR splits a word at a gap between letters ("RI NALDI", "GEN ESIS"): two neighbouring
    /// words that are no word of the candidate's alone, but together one of its title or author
    /// words, are read as that word.
    static func rejoined(_ words: [String], against candidate: PreparedCandidate) -> [String] {
        guard words.count >= 2 else { return words }
        var out: [String] = []
        var index = 0
        while index < words.count {
            if index + 1 < words.count {
                let glued = words[index] + words[index + 1]
                if glued.utf8.count >= 5,
                   candidate.parts.full.contains(where: { Similarity.wordSimilarity(glued, $0) > 0 })
                    || candidate.authorWords.contains(where: { $0.contains { Similarity.wordSimilarity(glued, $0) > 0 } }),
                   !candidate.covers(words[index]), !candidate.covers(words[index + 1]) {
                    out.append(glued)
                    index += 2
                    continue
                }
            }
            out.append(words[index])
            index += 1
        }
        return out
    }

    enum AuthorAgreement { case surname, givenName, different }

    func authorAgreement(_ read: [String], _ candidate: PreparedCandidate) -> AuthorAgreement {
        var given = false
        for name in candidate.authorWords {
            guard let surname = name.last else { continue }
            for word in read {
                if Similarity.wordSimilarity(word, surname) > 0 { return .surname }
                if name.dropLast().contains(where: { Similarity.wordSimilarity(word, $0) > 0 }) { given = true }
            }
        }
        // Only initials or very short words read: nothing to disagree with.
        if given { return .givenName }
        return read.contains(where: { $0.count >= 3 }) ? .different : .givenName
    }
}

/// A reading taken apart once: its title parts, author words, and whether it can be a title at all.
struct ParsedReading {
    let reading: SpineReading
    var title: TitleParts
    let authorWords: [String]
    let hasSeparateTitle: Bool
    let query: CandidateQuery
    /// Set when the reading must not be matched (unreadable, call number, publisher).
    let refusal: String?
    /// Title and author the other way round, tried only when the author disagrees.
    let swapped: (title: TitleParts, authorWords: [String])?
    /// Glued runs were spaced (`words`): the text is not as read.
    let spaced: Bool
    /// A publisher's name or call number read after the title in OCR text (`ReadingTail`): set
    /// aside from `title`, kept as evidence that something beside the title was read.
    let tail: ReadingTail?
    /// The title with the tail's words, for a candidate whose own title holds them ("Time's Arrow").
    let titleWithTail: TitleParts?
    /// The text `title` was parsed from, as read (glued runs spaced): what part of it is asked or
    /// matched again as (`asRead`), since compared words are `ocrCanonical` and that spelling is no
    /// reading ("velocity" is "veloclty", which read again is "velodty").
    let titleText: String

    /// `words`: OCR text (no title field) has its glued runs spaced with them before anything
    /// else ("GUIDETO" -> "guide to"): the search and the comparison see the words.
    init(_ reading: SpineReading, words: WordFrequencies? = nil) {
        self.reading = reading
        hasSeparateTitle = reading.title != nil && !(reading.title ?? "").isEmpty
        let printed = reading.title.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 } ?? reading.text
        // OCR text may end in the publisher's name or the library's label (`ReadingTail`).
        tail = hasSeparateTitle || CallNumber.isWholeReading(printed) ? nil : ReadingTail(reading.text)
        var titleText = tail?.head ?? printed
        var text = tail?.head ?? reading.text
        var spacedRuns = false
        if !hasSeparateTitle, let spaced = words?.spaced(text) {
            titleText = spaced
            text = spaced
            spacedRuns = true
        }
        spaced = spacedRuns
        self.titleText = titleText
        title = TitleParts(title: titleText, seriesHint: reading.series, volumeHint: reading.volume)
        titleWithTail = tail.map { TitleParts(title: titleText + " " + $0.text, seriesHint: reading.series, volumeHint: reading.volume) }
        // A one-word tail may be a title's last word ("Time's Arrow"): the sources are asked it too.
        var askedTitle = titleText
        if let tail, tail.words.count == 1 {
            askedTitle += " " + tail.text
            text += " " + tail.text
        }
        authorWords = reading.author.map(AuthorName.words) ?? []
        // OCR text is compared with its camel-case runs apart (`fold`); a source is asked the same
        // words ("Oxley MatroidTheory Second" asks for "Matroid Theory"), not one it has no title with.
        query = hasSeparateTitle || spacedRuns ? CandidateQuery(title: askedTitle, author: reading.author, text: text)
            : CandidateQuery(title: TextNormalizer.camelSpaced(askedTitle), author: reading.author, text: TextNormalizer.camelSpaced(text),
                             withoutLastWord: CandidateQuery.withoutSurname(askedTitle).map(TextNormalizer.camelSpaced))
        if let author = reading.author, let title = reading.title, !author.isEmpty, !title.isEmpty {
            swapped = (TitleParts(title: author), AuthorName.words(title))
        } else {
            swapped = nil
        }
        if reading.unreadable {
            refusal = "unreadable"
        } else if title.full.isEmpty {
            refusal = "no words read"
        } else if CallNumber.isWholeReading(printed) {
            refusal = "a call number, not a title"
        } else if Publishers.isWholeReading(title.full) {
            refusal = "a publisher's name, not a title"
        } else {
            refusal = nil
        }
    }

    /// The words as read that hold `title.full[range]` (a word read glued to one outside it comes
    /// whole), and the words as read outside them; nil when the words read do not line up with
    /// `title.full` (a series suffix parsed away).
    func asRead(_ range: Range<Int>) -> (inside: String, outside: String)? {
        let read = titleText.split(whereSeparator: \.isWhitespace).map(String.init)
        var owner: [Int] = []
        for (index, word) in read.enumerated() {
            owner += Array(repeating: index, count: TextNormalizer.fold(word).split(separator: " ").count)
        }
        // `TitleParts` drops a leading article.
        let folded = TextNormalizer.fold(titleText).split(separator: " ")
        if folded.count > 1, TextNormalizer.articles.contains(String(folded[0])), !owner.isEmpty { owner.removeFirst() }
        guard owner.count == title.full.count, !range.isEmpty, range.upperBound <= owner.count else { return nil }
        let held = owner[range.lowerBound]...owner[range.upperBound - 1]
        let outside = read.indices.filter { !held.contains($0) }.map { read[$0] }
        return (read[held].joined(separator: " "), outside.joined(separator: " "))
    }
}

/// Readings that are never a title (`CallNumber`, `Publishers`), and those worth a search afar.
enum ReadingFilters {
    /// Whether a reading holds anything a search afar could find: a known word (dictionary or
    /// catalogue) of four letters or more, a word in a script other than Latin, or, read by a
    /// reader sure of it, a word shaped like one (a vowel, no run of five consonants or three
    /// same letters, one case or capitalised words: "Shantaram", "toFasterReading"). Texture
    /// read as letters ("ERHRKRSERE", "seseene", "wtemene Biseeas") is not: on the real shelves'
    /// readings this turned away 28 of 71 that matched nothing and none that matched, save three
    /// that shelf context suggests from the author's books anyway.
    static func isWorthSearchingAfar(_ reading: SpineReading, words: WordFrequencies, thresholds: SpineMatcher.Thresholds) -> Bool {
        let text = [reading.title, reading.author, reading.text].compactMap { $0 }.joined(separator: " ")
        let tokens = text.split { !$0.isLetter }.map(String.init)
        if tokens.contains(where: { $0.unicodeScalars.contains { $0.value > 0x24F } }) { return true }
        if tokens.contains(where: { $0.count >= 4 && words.knows($0) }) { return true }
        return !thresholds.isUnsure(reading) && tokens.contains(where: looksLikeAWord)
    }

    static let vowels = Set("aeiouyáéíóúàèìòùäëïöüâêîôûãõåæœ")

    /// Four letters or more with a vowel, no run of five consonants or three same letters, and
    /// one case, or capitalised words glued ("SmartMaterials"), not case flipping ("sHEE").
    static func looksLikeAWord(_ token: String) -> Bool {
        let letters = Array(token)
        guard letters.count >= 4 else { return false }
        let lower = Array(token.lowercased())
        guard lower.contains(where: vowels.contains) else { return false }
        var consonants = 0, same = 1
        for (index, letter) in lower.enumerated() {
            consonants = vowels.contains(letter) ? 0 : consonants + 1
            same = index > 0 && lower[index - 1] == letter ? same + 1 : 1
            if consonants >= 5 || same >= 3 { return false }
        }
        if letters.allSatisfy(\.isUppercase) { return true }
        // A title's stylised capitals, six letters or more from a capital ("UnWHOLLy", "UnDiviDeD": the
        // Unwind series' spines, found by the services under their plain spelling).
        if letters.count >= 6, letters[0].isUppercase { return true }
        // Lower case after the first letter, save a capital starting a glued word (never two capitals in a row).
        for (index, letter) in letters.enumerated().dropFirst() where letter.isUppercase {
            if letters[index - 1].isUppercase || index == letters.count - 1 { return false }
        }
        return true
    }
}
