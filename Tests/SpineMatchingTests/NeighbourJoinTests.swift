import Foundation
import SpineMatching
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
        let alone = shelf(["Die Trying", "XQZW", "Persuader"])
        let matches = shelf(["Die Trying", "Lee Child", "Persuader"])
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
}
