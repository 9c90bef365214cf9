import Foundation
@testable import SpineMatching
import Testing
import Vision

/// Shelves stand by author: a reading whose letters are too garbled for the catalogue
/// ("DEHINGUAY", a real Tesseract reading of *Mockingjay*'s stylised spine) is compared with the
/// books of the authors matched beside it, and suggested for review, never added, when one of
/// them is clearly nearest.
@Suite struct ShelfContextTests {
    static let book = NeighbourJoinTests.book

    static let catalogue = WorkIndex([
        book("hunger", "The Hunger Games (The Hunger Games, #1)", "Suzanne Collins"),
        book("fire", "Catching Fire (The Hunger Games, #2)", "Suzanne Collins"),
        book("mockingjay", "Mockingjay (The Hunger Games, #3)", "Suzanne Collins"),
        book("gregor", "Gregor the Overlander (Underland Chronicles, #1)", "Suzanne Collins"),
        book("moonstone", "The Moonstone", "Wilkie Collins"),
        book("unwind", "Unwind (Unwind, #1)", "Neal Shusterman"),
        book("unwholly", "UnWholly (Unwind, #2)", "Neal Shusterman"),
        book("unsouled", "UnSouled (Unwind, #3)", "Neal Shusterman"),
        book("undivided", "UnDivided (Unwind, #4)", "Neal Shusterman"),
        book("everlost", "Everlost (Skinjacker, #1)", "Neal Shusterman"),
        book("everwild", "Everwild (Skinjacker, #2)", "Neal Shusterman"),
        book("scythe", "Scythe (Arc of a Scythe, #1)", "Neal Shusterman"),
        book("hard", "Hard Times", "Charles Dickens"),
        book("bleak", "Bleak House", "Charles Dickens"),
        book("expectations", "Great Expectations", "Charles Dickens"),
        book("dune", "Dune", "Frank Herbert"),
        book("juice", "Just Juice", "Karen Hesse"),
        book("dust", "Out of the Dust", "Karen Hesse"),
        book("witness", "Witness", "Karen Hesse"),
        book("shard", "A Single Shard", "Linda Sue Park"),
        book("trust", "Trust No One (The 39 Clues: Cahills vs. Vespers, #5)", "Linda Sue Park"),
        book("water", "A Long Walk to Water: Based on a True Story", "Linda Sue Park"),
        book("regular", "Regular Graphs", "Zoran Stanić"),
        book("inequalities", "Inequalities for Graph Eigenvalues", "Stanić"),
        book("spectral", "Spectral Generalizations of Line Graphs", "Dragoš Cvetković"),
    ])

    func shelf(_ texts: [(String, Double)]) -> [SpineMatch] {
        let readings = texts.enumerated().map { SpineReading(text: $1.0, position: $0, confidence: $1.1) }
        return SpineMatcher().matchShelf(readings, index: Self.catalogue)
    }

    @Test func aGarbledTitleBesideItsAuthorsBookIsSuggestedForReview() {
        // Real readings of one shelf: Catching Fire read well, Mockingjay's lettering not.
        let matches = shelf([("COLLINS CATCHING FIRE", 0.81), ("DEHINGUAY", 0.3), ("qwzx", 0.9)])
        #expect(matches[0].decision == .strong && matches[0].best?.workKey == "fire")
        #expect(matches[1].best?.workKey == "mockingjay")
        #expect(matches[1].decision == .medium)
        #expect(matches[1].reason?.contains("Suzanne Collins") == true)
        // Alone, or past the author's books' reach, it is nobody's.
        #expect(shelf([("DEHINGUAY", 0.3)])[0].decision == .none)
        let far = shelf([("COLLINS CATCHING FIRE", 0.81), ("a", 0.9), ("b", 0.9), ("c", 0.9), ("d", 0.9), ("DEHINGUAY", 0.3)])
        #expect(far[5].decision == .none)
    }

    @Test func anAuthorMatchedOnlyForReviewCountsTwice() {
        // "OnDiviven" among Shusterman's books each read for review only.
        let once = shelf([("UNWIN", 0.9), ("OnDiviven", 0.52)])
        #expect(once[0].decision == .medium && once[0].best?.workKey == "unwind")
        #expect(once[1].decision == .none)
        let twice = shelf([("UNWIN", 0.9), ("OnDiviven", 0.52), ("EVERLOS", 0.9)])
        #expect(twice[1].decision == .medium && twice[1].best?.workKey == "undivided")
    }

    @Test func aBookSuggestedForOnePlaceIsNoOtherPlacesNearest() {
        // Real readings of one shelf: "Arionguyy" (UnWholly, read the other way) is as near
        // UnDivided as the gap allows, until "OnDiviven" is suggested as UnDivided.
        let garbled = SpineReading(text: "Arionguyy Exuss}", position: 2, confidence: 0.1,
                                   alternatives: ["Ariongyuyy", "fnfifioiy", "Pompenenp", "fnithioriy", "Onihioiy"])
        let alone = SpineMatcher().matchShelf([SpineReading(text: "UNWIN", position: 0, confidence: 0.9), garbled,
                                               SpineReading(text: "EVERLOS", position: 3, confidence: 0.9)], index: Self.catalogue)
        #expect(alone[1].decision == .none)
        let readings = [SpineReading(text: "UNWIN", position: 0, confidence: 0.9), SpineReading(text: "OnDiviven", position: 1, confidence: 0.52),
                        garbled, SpineReading(text: "EVERLOS", position: 3, confidence: 0.9)]
        let matches = SpineMatcher().matchShelf(readings, index: Self.catalogue)
        #expect(matches[1].best?.workKey == "undivided")
        #expect(matches[2].best?.workKey == "unwholly")
        #expect(matches[2].decision == .medium)
    }

    @Test func aLongTitlesFirstWordsStandForItOnlyWhenNearlyExact() {
        // Real readings: the spine beside *Regular Graphs* showed "Inequalties" alone.
        let matches = shelf([("Inequalties", 0.45), ("Zoran REGULAR GRAPHS", 0.95)])
        #expect(matches[1].decision == .strong)
        #expect(matches[0].best?.workKey == "inequalities" && matches[0].decision == .medium)
        // Half its letters right would do for a whole title, not for a part of one.
        let loose = shelf([("Inaqeultias", 0.45), ("Zoran REGULAR GRAPHS", 0.95)])
        #expect(loose[0].decision == .none)
    }

    @Test func aReadingThatNamesOneShelfAuthorIsComparedWithThatAuthorsBooksOnly() {
        // Real readings: "of, the Bust" between A Single Shard and Just Juice is as near Park's
        // "Trust No One" as Hesse's "Out of the Dust"; one pass also read "PHESSES" on it.
        func shelf(_ middle: SpineReading) -> [SpineMatch] {
            SpineMatcher().matchShelf([SpineReading(text: "SINGLE SHARD LINDA SUE PARK", position: 0, confidence: 0.83), middle,
                                       SpineReading(text: "Sia HESSE Tust Juice.", position: 2, confidence: 0.9)], index: Self.catalogue)
        }
        let plain = shelf(SpineReading(text: "of, the Bust", position: 1, confidence: 0.75))
        #expect(plain[0].decision == .strong && plain[2].best?.workKey == "juice")
        #expect(plain[1].decision == .none)
        let named = shelf(SpineReading(text: "of, the Bust", position: 1, confidence: 0.75, alternatives: ["of, the Bust PHESSES"]))
        #expect(named[1].best?.workKey == "dust")
        #expect(named[1].decision == .medium)
        #expect(SpineMatcher.holdsSurname("of, the Bust PHESSES", of: "Karen Hesse"))
        #expect(!SpineMatcher.holdsSurname("of, the Bust PHESSES", of: "Linda Sue Park"))
    }

    @Test func theAuthorsOtherBooksMustBeClearlyFartherAndTheTitleLong() {
        // "UnSouled" and "UnWholly" are equally near "UNSHOLLED": neither is suggested.
        let even = shelf([("SCYTHE SHUSTERMAN", 0.9), ("UNSHOLLED", 0.6)])
        #expect(even[0].decision == .strong)
        #expect(even[1].decision == .none)
        // A title under eight letters ("Scythe") is met too easily by chance letters.
        let short = shelf([("EVERLOST SHUSTERMAN", 0.9), ("SQYTHF", 0.6)])
        #expect(short[1].decision == .none)
        // Another author's book of the same surname is not the shelf author's.
        let wilkie = shelf([("COLLINS CATCHING FIRE", 0.81), ("MOOMSTOMF", 0.5)])
        #expect(wilkie[1].decision == .none)
    }

    @Test func aContextSuggestionIsNeverStrongAndNeverTakesAMatchedBook() {
        let matches = shelf([("GREAT EXPECTATIONS DICKENS", 0.95), ("BLEAK HOUSE", 0.95), ("HATITEMS", 0.95)])
        #expect(matches[2].best?.workKey == "hard")
        #expect(matches[2].decision == .medium)
        // Bleak House is on the shelf already: a reading nearest it is not a second copy.
        let taken = shelf([("GREAT EXPECTATIONS DICKENS", 0.95), ("BLEAK HOUSE", 0.95), ("BLEEKHOSE", 0.95)])
        #expect(taken[2].best?.workKey != "bleak")
        // One book suggested for two places: either may be it, so neither is.
        let twice = shelf([("HATITEMS", 0.95), ("GREAT EXPECTATIONS DICKENS", 0.95), ("HARTIMES", 0.95)])
        #expect(twice[0].decision == .none && twice[2].decision == .none)
    }

    @Test func oneAuthorIsOneSurnameAndNoOtherGivenName() {
        #expect(SpineMatcher.sameAuthor("Hesse", "Karen Hesse"))
        #expect(SpineMatcher.sameAuthor("Collins, Suzanne", "Suzanne Collins"))
        #expect(!SpineMatcher.sameAuthor("Wilkie Collins", "Suzanne Collins"))
        #expect(!SpineMatcher.sameAuthor("Philip Roth", "Veronica Roth"))
        #expect(!SpineMatcher.sameAuthor("Roth", "Rothfuss"))
    }
}
