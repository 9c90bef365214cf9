import Foundation
@testable import SpineMatching
import Testing
import Vision

/// OCR's grouping puts a spine's author and its title into two neighbouring readings: the
/// author alone is refused, the title alone is only for review. Joined they may be strong;
/// an author beside another author's book must never make it a different book.
@Suite struct NeighbourJoinTests {
    static func book(_ key: String, _ title: String, _ author: String) -> MatchCandidate {
        MatchCandidate(workKey: key, title: title, authors: [author], isbn13: "9780000000002", source: "test")
    }

    static let catalogue = WorkIndex([
        book("trying", "Die Trying (Jack Reacher, #2)", "Lee Child"),
        book("persuader", "Persuader (Jack Reacher, #7)", "Lee Child"),
        book("tense", "Past Tense (Jack Reacher, #23)", "Lee Child"),
        book("killing", "Killing Floor (Jack Reacher, #1)", "Lee Child"),
        book("host", "The Host (The Host, #1)", "Stephenie Meyer"),
        book("twilight", "Twilight (Twilight, #1)", "Stephenie Meyer"),
        book("jingo", "Jingo (Discworld, #21)", "Terry Pratchett"),
        book("mort", "Mort (Discworld, #4)", "Terry Pratchett"),
        book("trying-again", "Trying Again", "Ann Other"),
        book("dying", "Die Laughing", "Carl Comic"),
    ])

    func shelf(_ texts: [String]) -> [SpineMatch] {
        let readings = texts.enumerated().map { SpineReading(text: $1, position: $0, confidence: 0.9) }
        return SpineMatcher().matchShelf(readings, index: Self.catalogue)
    }

    @Test func anAuthorBesideItsTitleMakesTheTitleStrong() {
        let alone = shelf(["Die Trying"])
        #expect(alone[0].best?.workKey == "trying")
        #expect(alone[0].decision == .medium)
        let matches = shelf(["Die Trying", "Lee Child"])
        #expect(matches[0].decision == .strong)
        #expect(matches[0].best?.workKey == "trying")
        #expect(matches[0].matchedText == "Die Trying Lee Child")
        // The author's reading itself still names no book.
        #expect(matches[1].decision == .none)
        #expect(matches[1].best == nil)
        // Either side of the title.
        let before = shelf(["Terry Pratchett", "Jingo", "XQZW"])
        #expect(before[1].decision == .strong)
        #expect(before[1].best?.workKey == "jingo")
    }

    @Test func anAuthorWithOCRScrapsBesideItIsStillAnAuthorAlone() {
        // Rendered shelf: "James vv. Loewen" beside "Lies viy reacner Me".
        let matches = shelf(["Die Trying", "Lee vv. Child"])
        #expect(matches[1].decision == .none && matches[1].reason == SpineMatcher.authorAloneReason)
        #expect(matches[0].decision == .strong && matches[0].matchedText == "Die Trying Lee vv. Child")
        // A two-letter word of the title is no scrap: "It" beside its author is a title.
        let it = WorkIndex([Self.book("it", "It", "Stephen King"), Self.book("carrie", "Carrie", "Stephen King")])
        let read = SpineMatcher().match(SpineReading(text: "It Stephen King", confidence: 0.9), index: it)
        #expect(read.decision == .strong && read.best?.workKey == "it")
    }

    @Test func anUnsureReadingBetweenIsNobodysNeighbour() {
        // OCR's unsure words (confidence halved, under the floor) read between the title and its
        // author: the two are still neighbours, and the unsure reading joins neither.
        let readings = [SpineReading(text: "Die Trying", position: 0, confidence: 0.9),
                        SpineReading(text: "PERSUADER", position: 1, confidence: 0.2),
                        SpineReading(text: "Lee Child", position: 2, confidence: 0.9)]
        let matches = SpineMatcher().matchShelf(readings, index: Self.catalogue)
        #expect(matches[0].decision == .strong && matches[0].matchedText == "Die Trying Lee Child")
        #expect(matches[1].decision == .medium && matches[1].best?.workKey == "persuader" && matches[1].matchedText == nil)
        // A sure reading between still parts them.
        var parted = readings
        parted[1].confidence = 0.9
        parted[1].text = "XQZW"
        #expect(SpineMatcher().matchShelf(parted, index: Self.catalogue)[0].decision == .medium)
    }

    @Test func anAuthorBesideAnotherAuthorsBookIsNotJoined() {
        // "The Host" is Meyer's: Lee Child beside it neither makes it strong nor makes it one of his.
        let alone = shelf(["the host STEPHENTE"])
        let matches = shelf(["the host STEPHENTE", "Lee Child"])
        #expect(matches[0] == alone[0])
        #expect(matches[0].decision != .strong)
        #expect(!["trying", "persuader", "killing"].contains(matches[0].best?.workKey ?? ""))
        // Meyer beside it does.
        let right = shelf(["the host STEPHENTE", "MEYER"])
        #expect(right[0].decision == .strong)
        #expect(right[0].best?.workKey == "host")
    }

    @Test func aTitleForReviewAsOneBookDoesNotBecomeTheAuthorsOtherBook() {
        // "Die Laughing" read for review; Lee Child beside it must not turn it into Die Trying.
        let alone = shelf(["Die Laughing"])
        #expect(alone[0].best?.workKey == "dying")
        let matches = shelf(["Die Laughing", "Lee Child"])
        #expect(matches[0].best?.workKey == "dying")
        #expect(matches[0].decision == alone[0].decision)
    }

    @Test func anAuthorTwoNeighboursCouldTakeJoinsNeither() {
        // Both titles are Child's: the name may belong to either spine, so neither is made strong by it.
        // (Two titles that need their author: "Persuader" alone is a sole title since stop 38, "Echo
        // Burning", two dictionary words of eleven letters, since stop 41.)
        let alone = shelf(["Die Trying", "XQZW", "Past Tense"])
        let matches = shelf(["Die Trying", "Lee Child", "Past Tense"])
        #expect(matches[0].decision == alone[0].decision)
        #expect(matches[2].decision == alone[2].decision)
        #expect(matches[0].decision != .strong)
        #expect(matches[2].decision != .strong)
    }

    @Test func readingsNotNextToEachOtherAreNotJoined() {
        let readings = [SpineReading(text: "Die Trying", position: 0, confidence: 0.9),
                        SpineReading(text: "Lee Child", position: 3, confidence: 0.9)]
        let matches = SpineMatcher().matchShelf(readings, index: Self.catalogue)
        #expect(matches[0].decision == .medium)
        #expect(SpineMatcher.neighbourJoins(readings, matches).isEmpty)
    }

    /// The acceptance rules on their own, with the matcher's answers given: whatever the matcher
    /// makes of a joined reading, a join stands only for a book by the author read beside the
    /// title, and only for the book the title alone pointed at.
    @Test func aJoinStandsOnlyForTheAuthorsBookAndTheTitlesOwnBook() {
        let readings = [SpineReading(text: "Die Laughing", position: 0, confidence: 0.9),
                        SpineReading(text: "Lee Child", position: 1, confidence: 0.9)]
        let books = ["trying": Self.book("trying", "Die Trying (Jack Reacher, #2)", "Lee Child"),
                     "host": Self.book("host", "The Host (The Host, #1)", "Stephenie Meyer"),
                     "dying": Self.book("dying", "Die Laughing", "Carl Comic")]
        func candidate(_ key: String) -> MatchCandidate { books[key]! }
        func answer(_ key: String?, _ decision: MatchDecision, _ reading: SpineReading, _ distance: Double = 0.1) -> SpineMatch {
            SpineMatch(reading: reading, decision: decision, distance: distance, best: key.map(candidate))
        }
        let authorAlone = SpineMatch(reading: readings[1], decision: .none, distance: 1, best: nil,
                                     reason: "an author's name, not a title")
        let unmatchedTitle = answer(nil, .none, readings[0], 1)
        let joins = SpineMatcher.neighbourJoins(readings, [unmatchedTitle, authorAlone])
        #expect(joins.count == 1)
        // Strong for one of Child's books: kept.
        let child = SpineMatcher.acceptedJoins(joins, [answer("trying", .strong, joins[0].joined)],
                                               matches: [unmatchedTitle, authorAlone])
        #expect(child[0]?.best?.workKey == "trying")
        // Strong for Meyer's book beside "Lee Child": the name read is not its author's.
        let meyer = SpineMatcher.acceptedJoins(joins, [answer("host", .strong, joins[0].joined)],
                                               matches: [unmatchedTitle, authorAlone])
        #expect(meyer.isEmpty)
        // The title alone was for review as Die Laughing: a strong Die Trying through the join is not taken.
        let forReview = answer("dying", .medium, readings[0], 0.3)
        let other = SpineMatcher.acceptedJoins(joins, [answer("trying", .strong, joins[0].joined)],
                                               matches: [forReview, authorAlone])
        #expect(other.isEmpty)
    }

    /// A book lying flat: its title's lines read as two neighbouring readings that match nothing alone.
    static let flat = WorkIndex([
        book("twisted", "Twisted Tales of Fictional Fun and Games", "Ann Author"),
        book("tale", "A Tale of Two Cities", "Charles Dickens"),
        book("fiction", "Fictional Lives", "Carl Writer"),
    ])

    @Test func aTitleCutInTwoIsReadJoined() {
        let readings = ["TWISTRD TALE", "FICTIONAL FUN"].enumerated().map { SpineReading(text: $1, position: $0, confidence: 0.9) }
        let alone = readings.map { SpineMatcher().match($0, index: Self.flat) }
        #expect(alone.allSatisfy { $0.decision == .none })
        let matches = SpineMatcher().matchShelf(readings, index: Self.flat)
        #expect(matches[0].best?.workKey == "twisted")
        #expect(matches[0].decision != .none)
        #expect(matches[0].matchedText == "TWISTRD TALE FICTIONAL FUN")
        // The second line is not a second book.
        #expect(matches[1].decision == .none)
        // Read the other way round (the lower line first) the join still finds it.
        let reversed = SpineMatcher().matchShelf(Array(readings.reversed()).enumerated().map {
            SpineReading(text: $1.text, position: $0, confidence: 0.9)
        }, index: Self.flat)
        #expect(reversed[0].best?.workKey == "twisted")
    }

    /// Whatever the matcher makes of two joined fragments, the join stands only for a book whose
    /// title holds a word of each, and not when a fragment could go with either neighbour.
    @Test func aFragmentJoinStandsOnlyForATitleHoldingBothParts() {
        let readings = ["TWISTRD TALE", "FICTIONAL", "LIVES"].enumerated().map { SpineReading(text: $1, position: $0, confidence: 0.9) }
        let unmatched = readings.map { SpineMatch(reading: $0, decision: .none, distance: 1, reason: "no candidate close enough") }
        let joins = SpineMatcher.neighbourJoins(readings, unmatched)
        #expect(joins.count == 2)
        #expect(joins.allSatisfy { $0.titleFragment })
        func answer(_ title: String, _ join: SpineMatcher.NeighbourJoin) -> SpineMatch {
            SpineMatch(reading: join.joined, decision: .strong, distance: 0.1,
                       best: Self.book(title, title, "Ann Author"))
        }
        // Only the first join names a book: one holding words of both parts is taken...
        let none = SpineMatch(reading: joins[1].joined, decision: .none, distance: 1)
        let taken = SpineMatcher.acceptedJoins(joins, [answer("Twisted Tales: Fictional Fun", joins[0]), none], matches: unmatched)
        #expect(taken[0]?.best?.title == "Twisted Tales: Fictional Fun")
        // ...one holding words of only one part is not.
        let half = SpineMatcher.acceptedJoins(joins, [answer("Twisted Tales", joins[0]), none], matches: unmatched)
        #expect(half.isEmpty)
        // "FICTIONAL" would go with either neighbour: neither join stands.
        let both = SpineMatcher.acceptedJoins(joins, [answer("Twisted Tales: Fictional Fun", joins[0]),
                                                      answer("Fictional Lives", joins[1])], matches: unmatched)
        #expect(both.isEmpty)
        // A neighbour refused as a call number is no fragment.
        var refused = unmatched
        refused[1].reason = "a call number, not a title"
        #expect(SpineMatcher.neighbourJoins(readings, refused).isEmpty)
    }
}
