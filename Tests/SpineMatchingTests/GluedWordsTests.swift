@testable import SpineMatching
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

/// Glued runs spaced by word frequency before the search (issue 35: `THEHOUSEOFTHE`,
/// `GUIDETO`), and a reading that holds two spines' titles yielding both.
@Suite struct SpacedWordsTests {
    static func book(_ key: String, _ title: String, _ author: String) -> MatchCandidate {
        MatchCandidate(workKey: key, title: title, authors: [author], isbn13: "97800000000\(key.count % 10)0", source: "test")
    }

    static let catalogue = WorkIndex(
        (0..<30).map { book("house\($0)", "The House on Street \($0)", "Builder \($0)") } + [
            book("spirits", "The House of the Spirits", "Isabel Allende"),
            book("solitude", "One Hundred Years of Solitude", "Gabriel García Márquez"),
            book("reading", "A Guide to Faster Reading", "Ann Swift"),
            book("stars", "A Field Guide to the Stars and Planets", "Jay M. Pasachoff"),
            book("data", "Big Data", "Viktor Mayer-Schonberger"),
        ])

    @Test func gluedRunsSplitIntoTheLikeliestWords() {
        let words = Self.catalogue.words
        #expect(words.split("thehouseofthe") == ["the", "house", "of", "the"])
        #expect(words.split("guideto") == ["guide", "to"])
        // A known word, or a short one, stays whole; letters that are no words stay whole.
        #expect(words.split("spirits") == nil)
        #expect(words.split("ofthe") == nil)
        #expect(words.split("lnwind") == nil)
        #expect(words.split("xqzvbnwrtk") == nil)
        #expect(words.spaced("THEHOUSEOFTHE Spirits") == "the house of the spirits")
        #expect(words.spaced("The House of the Spirits") == nil)
    }

    @Test func theSystemDictionarySpacesWordsNoCatalogueHolds() {
        // wamerican (scripts/setup): what readings searched on the network are spaced with.
        #expect(!WordFrequencies.systemDictionary.isEmpty, "no /usr/share/dict/words: run scripts/setup")
        #expect(WordFrequencies.dictionaryOnly.split("guideto") == ["guide", "to"])
        #expect(WordFrequencies.dictionaryOnly.spaced("toFasterReading GUIDETO") == "to faster reading guide to")
    }

    /// Spanish and Catalan library shelves glue their titles too (`Elcoronelnotienequienleescriba`
    /// on the rendered hard shelves): wspanish and wcatalan space them, all capitals as lower case.
    /// An English run is spaced as before.
    @Test func spanishAndCatalanRunsAreSpacedWithTheirWordLists() {
        #expect(WordList.missing.isEmpty, "missing word lists \(WordList.missing.map(\.debianPackage)): run scripts/setup")
        let words = WordFrequencies.dictionaryOnly
        #expect(words.spaced("ELLABERINTODELASOLEDAD") == "el laberinto de la soledad")
        #expect(words.spaced("ellaberintodelasoledad") == "el laberinto de la soledad")
        #expect(words.spaced("lasombradelviento Zafón") == "la sombra del viento zafon")
        #expect(words.split("thehouseofthe") == ["the", "house", "of", "the"])
        #expect(words.split("guideto") == ["guide", "to"])
        // A name or junk that only Spanish or Catalan pieces would space, with none of their function words, stays whole.
        #expect(words.split("sullivan") == nil)
        #expect(words.split("bruchac") == nil)
        #expect(words.split("presser") == nil)
        // An English word read cut short beside a Spanish article is no Spanish title ("EVERLOS" of Everlost).
        #expect(words.split("everlos") == nil)
        // A Spanish word is known: not spaced with English pieces ("col men a").
        #expect(words.split("colmena") == nil)
        // The sole-title rule's dictionary stays English: a Spanish word is still one no dictionary holds there.
        #expect(!WordFrequencies.systemDictionary.contains("laberinto"))
        // The Spanish and Catalan lists as fingerprints: their words in the compared spelling ("corazón",
        // "cl" -> "d"), English words and their inflections under four letters left out.
        for word in ["laberinto", "corazon", "soledad", "del", "els"] {
            #expect(WordFrequencies.foreign.contains(TextNormalizer.ocrCanonical(word)), "\(word)")
        }
        for word in ["animal", "hotel", "hac", "ser", "zzqvx"] { #expect(!WordFrequencies.foreign.contains(TextNormalizer.ocrCanonical(word)), "\(word)") }
    }

    /// The word lists are read byte by byte: each entry in the spelling the matcher compares
    /// (`TextNormalizer.fold` then `ocrCanonical`), entries no lower-case word left out.
    @Test func aWordListEntryIsReadInTheSpellingCompared() {
        for word in ["año", "corazón", "pingüino", "niñería", "clarinet", "turning", "civil", "vvhat", "élan", "ýa"] {
            #expect(WordFrequencies.canonicalWord(Array(word.utf8), accents: true) == TextNormalizer.ocrCanonical(TextNormalizer.fold(word)), "\(word)")
        }
        for entry in ["Pilar", "l'home", "col·lecció", "e-mail", "a", "ÁFRICA"] {
            #expect(WordFrequencies.canonicalWord(Array(entry.utf8), accents: true) == nil, "\(entry)")
        }
        #expect(WordFrequencies.canonicalWord(Array("año".utf8), accents: false) == nil)
    }

    @Test func aGluedReadingFindsItsBook() {
        let m = SpineMatcher().match(SpineReading(text: "THEHOUSEOFTHE SPIRITS ALLENDE", confidence: 0.9), index: Self.catalogue)
        #expect(m.best?.workKey == "spirits")
        #expect(m.decision == .strong)
        let guide = SpineMatcher().match(SpineReading(text: "AGUIDETO FASTERREADING Swift", confidence: 0.9), index: Self.catalogue)
        #expect(guide.best?.workKey == "reading")
        #expect(guide.decision == .strong)
    }

    @Test func aReadingHoldingTwoTitlesYieldsEach() {
        let m = SpineMatcher().match(SpineReading(text: "THE HOUSE OF THE SPIRITS ALLENDE ONE HUNDRED YEARS OF SOLITUDE MARQUEZ", confidence: 0.9),
                                     index: Self.catalogue)
        let books = Set(([m] + m.alsoHeld).compactMap { $0.best?.workKey })
        #expect(books == ["spirits", "solitude"])
        #expect(([m] + m.alsoHeld).allSatisfy { $0.decision == .strong })
        // The second title too short and common to stand without its author: for review only.
        let short = SpineMatcher().match(SpineReading(text: "THE HOUSE OF THE SPIRITS ALLENDE BIG DATA", confidence: 0.9),
                                         index: Self.catalogue)
        #expect(short.best?.workKey == "spirits")
        #expect(short.decision == .strong)
        #expect(short.alsoHeld.map { $0.best?.workKey } == ["data"])
        #expect(short.alsoHeld.allSatisfy { $0.decision == .medium })
    }

    /// A neighbour's title that shares a word with the book matched ("materials"), or holds its
    /// words ("graph theory"), leaves no run of the reading uncovered by that book: the words
    /// before or after the book's whole title are that other title (noisy model, seed 7).
    @Test func aNeighbourSharingWordsWithTheBookIsStillHeld() {
        func book(_ key: String, _ title: String, _ author: String) -> PreparedCandidate {
            PreparedCandidate(MatchCandidate(workKey: key, title: title, authors: [author], isbn13: "97800000000\(key.count % 10)0", source: "test"))
        }
        let candidates = [book("smart", "Smart Materials and Technologies", "Mohsen Shahinpoor"),
                          book("handbook", "Advanced Building Construction and Materials Handbook", "Ralph Aston"),
                          book("science", "Materials Science", "Anne Other"),
                          book("frontiers", "New Frontiers in Graph Theory", "Yagang Zhang"),
                          book("hybrid", "Hybrid Graph Theory and Network Analysis", "Ljiljana Novak"),
                          book("intro", "Introduction to Graph Theory", "Robin Wilson")]
        for (text, keys) in [("Smart Materials Tcchnologies Advanced Building Constructian and Materiols Handbook", ["smart", "handbook"]),
                             ("New Frontiers in Graph Theory Hybrid Graph Theory and Network Analysis", ["frontiers", "hybrid"])] {
            let m = SpineMatcher().match(SpineReading(text: text, confidence: 0.9), candidates: candidates)
            #expect(Set(([m] + m.alsoHeld).filter { $0.decision != .none }.compactMap { $0.best?.workKey }) == Set(keys), "\(text)")
        }
        // A cut title beside it is no other title: the book alone, for review.
        let cut = SpineMatcher().match(SpineReading(text: "New Frontiers Hybrid Graph Theory and Network", confidence: 0.9), candidates: candidates)
        #expect(([cut] + cut.alsoHeld).allSatisfy { $0.decision != .strong }, "\(cut)")
    }

    /// Two readings of one spine naming different books are an ambiguity, but not when one
    /// reading holds both titles (it ran two spines together, each title matched on its own
    /// words): the other reading is the neighbour read alone (rendered hard shelf hard-01).
    /// Readings joined by the matcher hold both by construction and excuse nothing.
    @Test func aBookHeldBesideTheOtherInOneReadingIsNoRival() {
        func book(_ key: String, _ title: String, _ author: String) -> PreparedCandidate {
            PreparedCandidate(MatchCandidate(workKey: key, title: title, authors: [author], isbn13: "978000000\(key.count)000", source: "test"))
        }
        let candidates = [book("magic", "Again the Magic (Wallflowers, #0)", "Lisa Kleypas"), book("faking", "Faking It (Dempseys, #2)", "Jennifer Crusie")]
        let m = SpineMatcher().match(SpineReading(text: "Lisa Kleypas Again the Magic Faking It Jennifer Crusie", confidence: 0.9,
                                                  alternatives: ["Faking It Jennifer Crusie"]), candidates: candidates)
        let named = ([m] + m.alsoHeld).filter { $0.decision == .strong }.compactMap { $0.best?.workKey }
        #expect(Set(named) == ["magic", "faking"] && named.count == 2, "\(m)")
        // Each title read on its own by a different reading: still two books for one spine.
        let apart = SpineMatcher().match(SpineReading(text: "Lisa Kleypas Again the Magic", confidence: 0.9,
                                                      alternatives: ["Faking It Jennifer Crusie"]), candidates: candidates)
        #expect(apart.decision == .medium && apart.ambiguous, "\(apart)")
    }

    /// The other title of a run-together reading is matched as read, not in the compared spelling
    /// read again: "velocity" is compared as "veloclty", and "veloclty" read again is "velodty"
    /// (`ocrCanonical`'s cl -> d), which held *A Velocity of Being* at 0.21 beside *Twisted Tales*
    /// (real tuning shelf minhan_img1347). The first title's words as read stay with it too.
    @Test func aNeighboursTitleIsMatchedAsRead() {
        let candidates = [PreparedCandidate(MatchCandidate(workKey: "twisted", title: "Twisted Tales: Fictional Fun", authors: [],
                                                           isbn13: "9780000000010", source: "test")),
                          PreparedCandidate(MatchCandidate(workKey: "velocity", title: "A Velocity of Being", authors: [],
                                                           isbn13: "9780000000020", source: "test")),
                          PreparedCandidate(MatchCandidate(workKey: "civil", title: "Civil Engineering Materials", authors: ["Neil Jackson"],
                                                           isbn13: "9780000000030", source: "test")),
                          PreparedCandidate(MatchCandidate(workKey: "principia", title: "Architecture Principia", authors: ["Gail Peter Borden"],
                                                           isbn13: "9780000000040", source: "test"))]
        let run = SpineMatcher().match(SpineReading(text: "TWISTED TALES FICTIONAL FUN A Velocity ofBeing", confidence: 0.9), candidates: candidates)
        let velocity = run.alsoHeld.first { $0.best?.workKey == "velocity" }
        #expect(run.best?.workKey == "twisted" && run.decision == .strong, "\(run)")
        #expect(velocity?.decision == .strong && abs((velocity?.distance ?? 1) - 0.125) < 0.001, "\(run.alsoHeld)")
        let civil = SpineMatcher().match(SpineReading(text: "Architecture Principia Borden Civil Engineering Materials", confidence: 0.9),
                                         candidates: candidates)
        #expect(civil.best?.workKey == "principia" && civil.decision == .strong, "\(civil)")
        #expect(civil.alsoHeld.contains { $0.best?.workKey == "civil" && $0.distance < 0.13 }, "\(civil.alsoHeld)")
    }
}
