import Foundation
import SpineMatching
import Testing
import Vision

/// A spine read several ways (OCR passes, turns, segmentations): the matcher weighs every
/// reading and decides once for the spine.
@Suite struct AlternativeReadingsTests {
    static let catalogue = WorkIndex([
        MatchCandidate(workKey: "road", title: "The Road", authors: ["Cormac McCarthy"], isbn13: "9780307387899", source: "test"),
        MatchCandidate(workKey: "dune", title: "Dune (Dune Chronicles #1)", authors: ["Frank Herbert"], isbn13: "9780441172719", source: "test"),
        MatchCandidate(workKey: "emma", title: "Emma", authors: ["Jane Austen"], isbn13: "9780141439587", source: "test"),
        MatchCandidate(workKey: "gatsby", title: "The Great Gatsby", authors: ["F. Scott Fitzgerald"], isbn13: "9780743273565", source: "test"),
        MatchCandidate(workKey: "weave", title: "Weaveworld", authors: ["Clive Barker"], isbn13: "9780006179800", source: "test"),
        MatchCandidate(workKey: "mockingbird", title: "To Kill a Mockingbird", authors: ["Harper Lee"], isbn13: "9780061120084", source: "test"),
        MatchCandidate(workKey: "twin", title: "The Third Twin", authors: ["Ken Follett"], isbn13: "9780449227428", source: "test"),
        MatchCandidate(workKey: "colouring", title: "Graph Colouring and the Probabilistic Method", authors: ["Michael Molloy", "Bruce Reed"],
                       isbn13: "9783540421399", source: "test"),
        MatchCandidate(workKey: "mercy", title: "Long Road to Mercy (Atlee Pine, #1)", authors: ["David Baldacci"], isbn13: "9781538761380", source: "test"),
        MatchCandidate(workKey: "furyborn", title: "Furyborn (Empirium, #1)", authors: ["Claire Legrand"], isbn13: "9781492656623", source: "test"),
    ])

    func match(_ reading: SpineReading) -> SpineMatch { SpineMatcher().match(reading, index: Self.catalogue) }

    @Test func agreeingReadingsAreStrong() {
        let m = match(SpineReading(text: "THE ROAD CORMAC McCARTHY", confidence: 0.9,
                                   alternatives: ["The Road", "ROAD McCARTHY", "THE R0AD CORMAC"]))
        #expect(m.decision == .strong)
        #expect(m.best?.workKey == "road")
        #expect(!m.ambiguous)
    }

    @Test func anUnsureReadingIsOnlyEverACloseSuggestion() {
        // Sure, the title read exactly is strong; unsure, the same text is a suggestion.
        #expect(match(SpineReading(text: "THE ROAD CORMAC McCARTHY", confidence: 0.9)).decision == .strong)
        let unsure = match(SpineReading(text: "THE ROAD CORMAC McCARTHY", confidence: 0.2))
        #expect(unsure.decision == .medium && unsure.best?.workKey == "road")
        // A looser match a sure reading would still suggest is nothing from an unsure one.
        let loose = "LONG ROAD"   // a part of "Long Road to Mercy", distance 0.33
        #expect(match(SpineReading(text: loose, confidence: 0.9)).decision == .medium)
        #expect(match(SpineReading(text: loose, confidence: 0.2)).decision == .none)
    }

    @Test func readingsNamingDifferentBooksAreNeverStrong() {
        // Each reading alone is a strong match; together they cannot both be this spine.
        #expect(match(SpineReading(text: "DUNE FRANK HERBERT", confidence: 0.9)).decision == .strong)
        #expect(match(SpineReading(text: "EMMA JANE AUSTEN", confidence: 0.9)).decision == .strong)
        let m = match(SpineReading(text: "DUNE FRANK HERBERT", confidence: 0.9, alternatives: ["EMMA JANE AUSTEN"]))
        #expect(m.decision == .medium)
        #expect(m.ambiguous)
        #expect(m.reason == "readings of the spine name different books")
        // Either order: the alternative naming another book blocks the main text as well.
        let reversed = match(SpineReading(text: "EMMA JANE AUSTEN", confidence: 0.9, alternatives: ["DUNE FRANK HERBERT"]))
        #expect(reversed.decision != .strong)
        #expect(reversed.ambiguous)
    }

    @Test func oneGoodReadingAmongJunkMatches() {
        let junk = SpineReading(text: "plomanem sHEE", confidence: 0.7)
        #expect(match(junk).decision == .none)
        var spine = junk
        spine.alternatives = ["iii rnrn wvw", "THE GREAT GATSBY FITZGERALD", "scrbnr"]
        let m = match(spine)
        #expect(m.decision == .strong)
        #expect(m.best?.workKey == "gatsby")
        #expect(m.matchedText == "THE GREAT GATSBY FITZGERALD")
        // The match is reported against the spine's own reading.
        #expect(m.reading.text == "plomanem sHEE")
    }

    @Test func readingsAgreeingOnABookAreMoreEvidenceThanOne() {
        // A letter lost: one pass alone leaves it for review, two passes agreeing add it. (A letter
        // misread in place, "Merey", is added from one pass: `readWholeMisread`.)
        #expect(match(SpineReading(text: "Long Road to Mery", confidence: 0.9)).decision == .medium)
        #expect(match(SpineReading(text: "Road to Mery", confidence: 0.9)).decision == .medium)
        let m = match(SpineReading(text: "Long Road to Mery", confidence: 0.9, alternatives: ["Road to Mery"]))
        #expect(m.decision == .strong)
        #expect(m.agreeing == 2)
        // A title too short to stand without its author stays for review however many passes agree.
        let twin = match(SpineReading(text: "The Third LWin", confidence: 0.9, alternatives: ["Third LWin"]))
        #expect(twin.best?.workKey == "twin")
        #expect(twin.decision == .medium)
        // However often a lone word is read, without its author it stays for review...
        let lone = match(SpineReading(text: "EMMA", confidence: 0.9, alternatives: ["Emma", "EMMA."]))
        #expect(lone.best?.workKey == "emma")
        #expect(lone.decision == .medium)
        // ...unless it is a sole title: a long word no dictionary holds, in no other book's title.
        let sole = match(SpineReading(text: "FURYBORN", confidence: 0.9, alternatives: ["Furyborn", "FURY BORN"]))
        #expect(sole.best?.workKey == "furyborn")
        #expect(sole.decision == .strong)
    }

    @Test func fragmentsReadByDifferentPassesAreJoined() {
        // Title split over two lines, each read by another pass: neither is enough alone.
        #expect(match(SpineReading(text: "Graph Colouring", confidence: 0.9)).decision == .medium)
        #expect(match(SpineReading(text: "and the Probabilistic Method", confidence: 0.9)).decision == .medium)
        let m = match(SpineReading(text: "Graph Colouring", confidence: 0.9, alternatives: ["and the Probabilistic Method"]))
        #expect(m.decision == .strong)
        #expect(m.best?.workKey == "colouring")
        // Title by one pass, author by another.
        #expect(match(SpineReading(text: "The Third LWin", confidence: 0.9, alternatives: ["Ken Follett"])).decision == .strong)
        let alone = SpineMatcher(joinsFragments: false).match(
            SpineReading(text: "Graph Colouring", confidence: 0.9, alternatives: ["and the Probabilistic Method"]), index: Self.catalogue)
        #expect(alone.decision == .medium)
    }

    @Test func aFragmentOfALongerReadingBacksWhatTheLongerOneMatched() {
        // "ROAD" alone is closest to The Road; the spine's fuller reading says Long Road to Mercy.
        #expect(match(SpineReading(text: "ROAD", confidence: 0.9)).best?.workKey == "road")
        let m = match(SpineReading(text: "FANG ROAD MERCY", confidence: 0.9, alternatives: ["ROAD"]))
        #expect(m.best?.workKey == "mercy")
        #expect(m.agreeing == 2)
    }

    @Test func anAuthorsNameReadAloneIsNoLooseTitleMatch() {
        let index = WorkIndex([
            MatchCandidate(workKey: "reacher", title: "Killing Floor (Jack Reacher, #1)", authors: ["Lee Child"], isbn13: "9780515153651", source: "test"),
            MatchCandidate(workKey: "philomena", title: "The Lost Child of Philomena Lee", authors: ["Martin Sixsmith"], isbn13: "9780143124726", source: "test"),
        ])
        let m = SpineMatcher().match(SpineReading(text: "Lee Child", confidence: 0.9), index: index)
        #expect(m.decision == .none)
        #expect(m.reason == "an author's name, not a title")
        // With the title read too it is a match again.
        #expect(SpineMatcher().match(SpineReading(text: "KILLING FLOOR Lee Child", confidence: 0.9), index: index).best?.workKey == "reacher")
    }

    @Test func aRefusedMainTextLeavesTheAlternatives() {
        let callNumber = SpineReading(text: "PS3552 .R685", confidence: 0.9)
        #expect(match(callNumber).reason == "a call number, not a title")
        var spine = callNumber
        spine.alternatives = ["PENGUIN CLASSICS", "Weaveworld Clive Barker"]
        #expect(match(spine).best?.workKey == "weave")
        spine.alternatives = ["PENGUIN CLASSICS"]
        #expect(match(spine).decision == .none)
        #expect(match(spine).reason == "a call number, not a title")
    }

    @Test func alternativesAskTheSourcesToo() async {
        // A source that knows only what it is asked for: the alternative's query finds Emma.
        actor Asked { var texts: [String] = []; func add(_ text: String) { texts.append(text) } }
        struct Exact: CandidateSource {
            let asked = Asked()
            func candidates(for query: CandidateQuery, limit: Int) async throws -> [PreparedCandidate] {
                await asked.add(query.text)
                return AlternativeReadingsTests.catalogue.candidates(for: query, limit: 1)
            }
        }
        let source = Exact()
        let m = await SpineMatcher().match(SpineReading(text: "xq zzvv", confidence: 0.9, alternatives: ["EMMA JANE AUSTEN"]),
                                           sources: [source])
        #expect(m.decision == .strong)
        #expect(m.best?.workKey == "emma")
        // A strong answer asks a source on this machine once more, for titles holding it (`longerTitle`).
        #expect(await source.asked.texts == ["xq zzvv", "EMMA JANE AUSTEN", "Emma"])
        // A strong first reading asks no other reading; a spine asks at most `queriesPerSource` times.
        let sure = Exact()
        _ = await SpineMatcher().match(SpineReading(text: "DUNE FRANK HERBERT", confidence: 0.9, alternatives: ["DUNE", "HERBERT DUNE"]),
                                       sources: [sure])
        #expect(await sure.asked.texts == ["DUNE FRANK HERBERT", "Dune (Dune Chronicles #1)"])
        let junk = Exact()
        _ = await SpineMatcher().match(SpineReading(text: "aa bb", confidence: 0.9, alternatives: ["cc dd", "ee ff", "gg hh", "ii jj", "kk ll"]),
                                       sources: [junk])
        #expect(await junk.asked.texts.count == SpineMatcher().queriesPerSource)
    }

    @Test func oldRepliesWithoutAlternativesStillDecode() throws {
        let old = #"[{"text":"Dune","title":"Dune","position":0,"unreadable":false},{"text":"Emma","unreadable":false}]"#
        let readings = try JSONDecoder().decode([SpineReading].self, from: Data(old.utf8))
        #expect(readings.map(\.alternatives) == [[], []])
        #expect(readings[0].title == "Dune")
        // Without alternatives nothing new is written; with them they survive a round trip.
        let encoded = String(decoding: try JSONEncoder().encode(readings[1]), as: UTF8.self)
        #expect(!encoded.contains("alternatives"))
        let spine = SpineReading(text: "DUNE", position: 3, confidence: 0.8, alternatives: ["DUNE HERBERT", "DUNF"])
        #expect(try JSONDecoder().decode(SpineReading.self, from: JSONEncoder().encode(spine)) == spine)
    }
}
