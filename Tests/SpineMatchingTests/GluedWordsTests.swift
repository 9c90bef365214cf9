import SpineMatching
import Testing
import Vision

/// OCR glues a spine's words together; the candidate search splits an unknown long word
/// into known ones so the right work is among the candidates at all.
@Suite struct GluedWordsTests {
    /// Forty works sharing "moon", then the one the reading means, then Williams' play.
    static let catalogue = WorkIndex(
        (0..<40).map { MatchCandidate(workKey: "moon\($0)", title: "Moon Story \($0)", authors: ["Author \($0)"],
                                      isbn13: nil, source: "test") }
            + [MatchCandidate(workKey: "shooting", title: "Shooting the Moon", authors: ["Frances O'Roark Dowell"],
                              isbn13: "9781416926856", source: "test"),
               MatchCandidate(workKey: "cat", title: "Cat on a Hot Tin Roof", authors: ["Tennessee Williams"],
                              isbn13: "9780811216012", source: "test")])

    @Test func aGluedWordStillFindsItsWork() {
        let query = CandidateQuery(title: "shootingthe moon", author: nil, text: "shootingthe moon")
        // "moon" alone ties forty works ahead of it; "shooting" split off the glued word decides.
        #expect(Self.catalogue.candidates(for: query, limit: 5).first?.candidate.workKey == "shooting")
        let match = SpineMatcher().match(SpineReading(text: "shootingthe moon", confidence: 0.9), index: Self.catalogue)
        #expect(match.best?.workKey == "shooting")
        #expect(match.decision != .none)
    }

    @Test func authorAndTitleGluedIntoOneWordMatch() {
        let match = SpineMatcher().match(SpineReading(text: "TennesseeWilliamsCatonaHotTinRoof", confidence: 0.9),
                                         index: Self.catalogue)
        #expect(match.best?.workKey == "cat")
        #expect(match.decision == .strong)
    }

    @Test func aWordThatSplitsIntoNothingKnownFindsNothing() {
        let query = CandidateQuery(title: "xqzvbnwrtk", author: nil, text: "xqzvbnwrtk")
        #expect(Self.catalogue.candidates(for: query, limit: 5).isEmpty)
    }
}
