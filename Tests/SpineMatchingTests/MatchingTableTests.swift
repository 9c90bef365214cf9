import Foundation
@testable import SpineMatching
import TestSupport
import Testing
import Vision

/// The matching table (scripts/generate-spine-matching-table) against the goodbooks catalogue.
@Suite struct MatchingTableTests {
    static let tableURL = SharedFiles.projectRoot.appendingPathComponent("Tests/SpineMatchingTests/Resources/matching-table.csv")

    static func load() throws -> (MatchingTable, WorkIndex)? {
        guard let goodbooks = SharedFiles.fixture("catalogue/goodbooks-10k-books.csv") else { return nil }
        let table = try MatchingTable.load(table: tableURL, goodbooks: goodbooks)
        return (table, WorkIndex(table.catalogue))
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func tableHoldsEnoughDamagedReadings() throws {
        try SharedFiles.requireShared()
        let (table, index) = try #require(try Self.load())
        #expect(table.rows.count >= 300)
        #expect(index.count == 10_000)
        let kinds = Set(table.rows.map(\.kind))
        for kind in ["ocr", "droppedWord", "mergedWords", "authorOnly", "firstNameOnly", "subtitleMissing", "subtitleAdded",
                     "seriesNumber", "publisher", "callNumber", "invented", "wrongVolume", "publisherNoise", "swappedFields", "cutOff", "shelfLabel"] {
            #expect(kinds.contains(kind), "table lacks \(kind) rows")
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func precisionAndRecallFloors() throws {
        try SharedFiles.requireShared()
        let (table, index) = try #require(try Self.load())
        let report = table.evaluate(SpineMatcher(), index: index)
        print(report.summary)
        #expect(report.strongPrecision >= 0.995, "wrong strong matches: \(report.wrongStrong)")
        #expect(report.cataloguedRecall >= 0.90)
        #expect(report.inventedStrong == 0)
        #expect(report.wrongVolumeStrong == 0)
        #expect(report.authorOnlyMatched == 0)
        #expect(Double(report.agreeing) / Double(report.readings) >= 0.85)
    }
}

@Suite struct SpineMatcherRulesTests {
    static let catalogue = WorkIndex([
        MatchCandidate(workKey: "fa17", title: "Fullmetal Alchemist, Vol. 17 (Fullmetal Alchemist, #17)", authors: ["Hiromu Arakawa"], isbn13: "9781421525594", source: "test"),
        MatchCandidate(workKey: "fa1", title: "Fullmetal Alchemist, Vol. 1 (Fullmetal Alchemist, #1)", authors: ["Hiromu Arakawa"], isbn13: "9781591169208", source: "test"),
        MatchCandidate(workKey: "dune", title: "Dune (Dune Chronicles #1)", authors: ["Frank Herbert"], isbn13: "9780441172719", source: "test"),
        MatchCandidate(workKey: "hat", title: "I Want My Hat Back", authors: ["Jon Klassen"], isbn13: "9780763655983", source: "test"),
        MatchCandidate(workKey: "it", title: "It", authors: ["Stephen King"], isbn13: "9781501142970", source: "test"),
        MatchCandidate(workKey: "shining", title: "The Shining (The Shining #1)", authors: ["Stephen King"], isbn13: "9780450040184", source: "test"),
        MatchCandidate(workKey: "gatsby", title: "The Great Gatsby", authors: ["F. Scott Fitzgerald"], isbn13: "9780743273565", source: "test"),
    ])

    func match(_ reading: SpineReading) -> SpineMatch { SpineMatcher().match(reading, index: Self.catalogue) }

    @Test func wrongVolumeIsNeverStrong() {
        let m = match(SpineReading(text: "Fullmetal Alchemist Vol. 7 Arakawa", title: "Fullmetal Alchemist, Vol. 7", author: "Hiromu Arakawa"))
        #expect(m.decision != .strong)
        #expect(m.best?.workKey != "fa17")
        let right = match(SpineReading(text: "Fullmetal Alchemist Vol. 17", title: "Fullmetal Alchemist, Vol. 17", author: "Arakawa"))
        #expect(right.decision == .strong)
        #expect(right.best?.workKey == "fa17")
    }

    @Test func differentAuthorVetoes() {
        let m = match(SpineReading(text: "The Great Gatsby Ernest Hemingway", title: "The Great Gatsby", author: "Ernest Hemingway"))
        #expect(m.decision == .none)
        #expect(m.best == nil)
    }

    @Test func authorNameAloneIsNoTitle() {
        let m = match(SpineReading(text: "STEPHEN KING"))
        #expect(m.decision == .none)
        #expect(m.reason == "an author's name, not a title")
    }

    @Test func inventedNearMissIsNotAdded() {
        let m = match(SpineReading(text: "I Want My Hat Last Jon Klassen", title: "I Want My Hat Last", author: "Jon Klassen"))
        #expect(m.decision != .strong)
    }

    @Test func ocrConfusionsAndRunTogetherTextStillMatch() {
        let m = match(SpineReading(text: "THE SHlNlNG  STEPHEN KlNG"))
        #expect(m.decision == .strong)
        #expect(m.best?.workKey == "shining")
        let g = match(SpineReading(text: "The Great Gatsby", title: "The Great Gatsby", author: "Fitzgerald"))
        #expect(g.decision == .strong)
        #expect(g.best?.isbn13 == "9780743273565")
    }

    @Test func callNumbersPublishersAndUnreadableAreRefused() {
        #expect(match(SpineReading(text: "PS3552 .R685")).reason == "a call number, not a title")
        #expect(match(SpineReading(text: "PENGUIN CLASSICS")).reason == "a publisher's name, not a title")
        #expect(match(SpineReading(text: "", unreadable: true)).decision == .none)
    }

    @Test func editionsOfOneWorkAreNoRivalsButVolumesAre() {
        let editions = [
            MatchCandidate(workKey: "d1", title: "Dune", authors: ["Frank Herbert"], isbn13: "9780441172719", source: "test"),
            MatchCandidate(workKey: "d2", title: "Dune: Deluxe Edition", authors: ["Frank Herbert"], isbn13: "9780593099322", source: "test"),
            MatchCandidate(workKey: "n1", title: "Naruto, Vol. 01: The Tests of the Ninja", authors: ["Masashi Kishimoto"], isbn13: "9781569319000", source: "test"),
            MatchCandidate(workKey: "n2", title: "Naruto, Vol. 02: The Worst Client", authors: ["Masashi Kishimoto"], isbn13: "9781591161783", source: "test"),
        ].map(PreparedCandidate.init)
        let dune = SpineMatcher().match(SpineReading(text: "DUNE HERBERT", title: "Dune", author: "Herbert"), candidates: editions)
        let penguin = PreparedCandidate(MatchCandidate(workKey: "d3", title: "Dune (Penguin Galaxy)", authors: ["Frank Herbert"], isbn13: "9780241282397", source: "test"))
        #expect(SpineMatcher().match(SpineReading(text: "DUNE", title: "Dune", author: "Frank Herbert"), candidates: [penguin]).decision == .strong)
        #expect(dune.decision == .strong)
        #expect(dune.best?.workKey == "d1")
        let naruto = SpineMatcher().match(SpineReading(text: "NARUTO KISHIMOTO", title: "Naruto", author: "Kishimoto"), candidates: editions)
        #expect(naruto.decision != .strong)
    }

    @Test func normalisationFoldsCaseAccentsPunctuationAndLostSpaces() {
        #expect(TextNormalizer.fold("TheFaithful Spy") == "the faithful spy")
        #expect(TextNormalizer.fold("SHlNlNG, THE") == "shlnlng the")
        #expect(TextNormalizer.fold("Ender's Game!") == "enders game")
        #expect(TextNormalizer.fold("Les Misérables — Tome I") == "les miserables tome i")
        #expect(TextNormalizer.fold("McDonald") == "mcdonald")
        // An `I` between lower-case letters is an `l` read as `I` when the word so read is a
        // word ("MiserabIe", noisy seed 35), else a lost space ("theIsland"); in accented text too.
        #expect(TextNormalizer.fold("The MiserabIe Mill") == "the miserabie mill")
        #expect(TextNormalizer.fold("TheMiserabIe Mill") == "the miserabie mill")
        #expect(TextNormalizer.fold("theIsland of Dr Moreau") == "the island of dr moreau")
        #expect(TextNormalizer.fold("Le VilIage à Paris") == "le viliage a paris")
        #expect(TextNormalizer.fold("élanIsland") == "elan island")
        #expect(TextNormalizer.camelSpaced("The MiserabIe Mill") == "The MiserabIe Mill")
        #expect(TextNormalizer.titleTokens("The MiserabIe Mill") == TextNormalizer.titleTokens("The Miserable Mill"))
        #expect(TextNormalizer.titleTokens("The Hobbit") == ["hobblt"])
        let parts = TitleParts(title: "Naruto, Vol. 07: The Path You Should Tread (Naruto, #7)")
        #expect(parts.volume == 7)
        #expect(parts.series == ["naruto"])
    }

    /// Function words count little in either spelling ("in" is compared as "ln"), Spanish and
    /// Catalan ones too: "The Skin I'm In" is two short significant words, not three that stand alone.
    @Test func functionWordsCountLittleInTheSpellingCompared() {
        for word in ["in", "with", "del", "els", "los", "y", "amb"] {
            #expect(Similarity.weight(TextNormalizer.tokens(word)[0]) == 0.25, "\(word)")
        }
        #expect(Similarity.weight(TextNormalizer.tokens("sombra")[0]) == 1)
        let skin = PreparedCandidate(MatchCandidate(workKey: "skin", title: "The Skin I'm In", authors: ["Sharon G. Flake"],
                                                    isbn13: "9780786813070", source: "test"))
        #expect(!SpineMatcher.standsAlone(skin))
        #expect(SpineMatcher().match(SpineReading(text: "THE SKIN I'M IN", confidence: 0.9), candidates: [skin]).decision == .medium)
        #expect(SpineMatcher().match(SpineReading(text: "THE SKIN I'M IN FLAKE", confidence: 0.9), candidates: [skin]).decision == .strong)
        let sombra = PreparedCandidate(MatchCandidate(workKey: "sombra", title: "La sombra del viento", authors: ["Carlos Ruiz Zafón"],
                                                      isbn13: "9788408163435", source: "test"))
        #expect(SpineMatcher().match(SpineReading(text: "LA SOMBRA DEL VIENTO RUIZ ZAFON", confidence: 0.9), candidates: [sombra]).decision == .strong)
    }

    @Test func shortTitleWithoutAuthorWaitsForReview() {
        let m = match(SpineReading(text: "IT", title: "It"))
        #expect(m.decision != .strong)
    }

    @Test func twoLetterTitleAmongOCRScrapsNeedsItsAuthor() {
        // OCR text (no title field): "it" is as likely a scrap as a title.
        #expect(match(SpineReading(text: "it it", confidence: 0.8)).decision == .none)
        #expect(match(SpineReading(text: "ove IT", confidence: 0.8)).decision == .none)
        let king = match(SpineReading(text: "IT STEPHEN KING", confidence: 0.8))
        #expect(king.best?.workKey == "it")
        #expect(king.decision != .none)
    }

    /// OCR text as real shelves give it: the title is one run among sticker, art and imprint junk.
    static let ocrCatalogue = WorkIndex([
        MatchCandidate(workKey: "genesis", title: "Genesis", authors: ["Brendan Reichs"], isbn13: "9780399544965", source: "test"),
        MatchCandidate(workKey: "chrysalis", title: "Chrysalis", authors: ["Brendan Reichs"], isbn13: "9780399544996", source: "test"),
        MatchCandidate(workKey: "sing", title: "Sing, Unburied, Sing", authors: ["Jesmyn Ward"], isbn13: "9781501126062", source: "test"),
        MatchCandidate(workKey: "ask", title: "Ask Me No Questions", authors: ["Marina Budhos"], isbn13: "9781416949206", source: "test"),
        MatchCandidate(workKey: "host", title: "The Host", authors: ["Stephenie Meyer"], isbn13: "9780316068048", source: "test"),
        MatchCandidate(workKey: "hat", title: "I Want My Hat Back", authors: ["Jon Klassen"], isbn13: "9780763655983", source: "test"),
    ])

    @Test func titleFoundAmongOCRJunk() {
        let matcher = SpineMatcher()
        // Surname read too: strong, and the other book by the same author is no rival.
        let genesis = matcher.match(SpineReading(text: "BRENDAN ai CHS die sl BRENDAN GENESIS REICHS"), index: Self.ocrCatalogue)
        #expect(genesis.decision == .strong)
        #expect(genesis.best?.workKey == "genesis")
        // No author read: found, but it waits for review.
        let sing = matcher.match(SpineReading(text: "meee he Cris Le Bee SING, UNBURIED, SING"), index: Self.ocrCatalogue)
        #expect(sing.best?.workKey == "sing")
        #expect(sing.decision == .medium)
        let ask = matcher.match(SpineReading(text: "OBIE! shooting moon ee tess ASK ME RO QUESTIONS aie"), index: Self.ocrCatalogue)
        #expect(ask.best?.workKey == "ask")
        #expect(ask.decision == .medium)
    }

    @Test func junkNeverMakesAOneWordTitleOrASwappedWordMatch() {
        let matcher = SpineMatcher()
        // A one-word title inside junk, without its author: not brought in by the run.
        let host = matcher.match(SpineReading(text: "oe sl GENESIS Ble tess"), index: Self.ocrCatalogue)
        #expect(host.decision == .none)
        // The run never turns a near miss into a match: "Hat Last" is not "Hat Back", one junk word or four.
        #expect(matcher.match(SpineReading(text: "xx I WANT MY HAT LAST KLASSEN"), index: Self.ocrCatalogue).decision != .strong)
        let hat = matcher.match(SpineReading(text: "ee sl I WANT MY HAT LAST aie KLASSEN"), index: Self.ocrCatalogue)
        #expect(hat.decision != .strong)
    }
}
