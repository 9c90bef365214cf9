import Foundation
import ImageTestSupport
import Imaging
import Testing
import TestSupport
import SpineMatching
import Vision
@testable import SpineOCR

/// Words → spines by geometry, in the frame Tesseract read (lines horizontal).
@Suite struct GroupingTests {
    func word(_ text: String, x: Int, y: Int, width: Int = 120, height: Int = 30, line: Int = 0) -> OCRWord {
        OCRWord(text: text, confidence: 95, box: Box(x0: x, y0: y, x1: x + width, y1: y + height),
                isDictionaryWord: true, line: line)
    }

    @Test func adjacentSpinesNeverMerge() {
        // Two spines touching: lines 2 px apart, an edge between them.
        let words = [word("Silver", x: 100, y: 0), word("Girl", x: 230, y: 0),
                     word("Stories", x: 100, y: 32), word("Others", x: 230, y: 32)]
        let withEdge = SpineGrouping.spines(words) { _, _ in true }
        #expect(withEdge.map { $0.map(\.text) } == [["Silver", "Girl"], ["Stories", "Others"]])
        // Without pixels to look at, geometry alone never merges two lines.
        #expect(SpineGrouping.spines(words).count == 2)
    }

    @Test func titleOverAuthorOnOneSpineJoinsWithoutAnEdge() {
        let words = [word("Gathering", x: 300, y: 0), word("The", x: 200, y: 0), word("Kelley", x: 200, y: 36, height: 24)]
        let spines = SpineGrouping.spines(words) { _, _ in false }
        #expect(spines.map { $0.map(\.text) } == [["The", "Gathering", "Kelley"]])
    }

    /// PP-OCR's boxes of two leaning neighbours overlap across (the box around a slanted quad is
    /// wider than its spine): no edge test can see between them, and they are not one spine's lines.
    @Test func slantedNeighboursOverlappingAcrossNeverJoin() {
        // dianaaaa_img16's boxes, turned frame: 84 and 83 px tall, overlapping by 22 px (26%).
        let fractional = word("Fractional", x: 450, y: 57, width: 544, height: 84, line: 31)
        let factor = word("Faetor", x: 495, y: 119, width: 432, height: 83, line: 12)
        #expect(SpineGrouping.spines([fractional, factor]) { _, _ in false }.count == 2)
        // A title over its author that touch or overlap a little are still one spine's.
        let title = word("Gathering", x: 200, y: 0, height: 40), author = word("Kelley", x: 200, y: 36, height: 30)
        #expect(SpineGrouping.spines([title, author]) { _, _ in false }.count == 1)
        // In one strip (its side between them missed), they stay two readings; lines of one strip
        // that lie apart along the spine or across it are still joined.
        let inOneStrip = { (_: Box) -> Int? in 0 }
        #expect(SpineGrouping.joined([[fractional], [factor]], by: inOneStrip).count == 2)
        let foot = word("Yu", x: 1200, y: 60, width: 80, height: 80, line: 40)
        #expect(SpineGrouping.joined([[fractional], [foot]], by: inOneStrip).map { $0.map(\.text) } == [["Fractional", "Yu"]])
        let beside = word("Liu", x: 450, y: 150, width: 200, height: 60, line: 41)
        #expect(SpineGrouping.joined([[fractional], [beside]], by: inOneStrip).count == 1)
    }

    @Test func farApartLinesAreTwoSpinesEvenWithoutAnEdge() {
        let words = [word("Dune", x: 0, y: 0), word("Emma", x: 0, y: 200)]
        #expect(SpineGrouping.spines(words) { _, _ in false }.count == 2)
    }

    @Test func shelfRowsSplitAtAGapNoWordCrosses() {
        // Same line position, two shelf rows apart along the spine axis.
        let words = [word("Dune", x: 0, y: 0), word("Herbert", x: 130, y: 0), word("Emma", x: 900, y: 0)]
        #expect(SpineGrouping.rows(words).map { $0.map(\.text) } == [["Dune", "Herbert"], ["Emma"]])
        #expect(SpineGrouping.spines(words).count == 2)
    }

    @Test func oneSpineReadInTwoRotationsCountsOnce() {
        let good = OCRSpine(words: [word("Weaveworld", x: 0, y: 0)], box: Box(x0: 100, y0: 40, x1: 140, y1: 400),
                            rotation: .clockwise270, confidence: 95)
        var upsideDown = good
        upsideDown.words = [OCRWord(text: "plomanem", confidence: 61, box: good.box, isDictionaryWord: false, line: 0)]
        upsideDown.rotation = .clockwise90
        upsideDown.confidence = 61
        upsideDown.box = Box(x0: 98, y0: 60, x1: 141, y1: 390)
        let neighbour = OCRSpine(words: [word("Emma", x: 0, y: 0)], box: Box(x0: 150, y0: 40, x1: 190, y1: 300),
                                 rotation: .clockwise90, confidence: 90)
        let merged = ShelfOCR.merged([upsideDown, neighbour, good])
        #expect(merged.map(\.text) == ["Weaveworld", "Emma"])
        // The other reading of the place stays with the spine, for the matcher to weigh.
        #expect(merged.map(\.alternatives) == [["plomanem"], []])
    }

    @Test func aPlaceReadTheSameWayTwiceKeepsOneAlternative() {
        func spine(_ texts: [String], confidence: Double, box: Box) -> OCRSpine {
            OCRSpine(words: texts.map { OCRWord(text: $0, confidence: confidence, box: box, isDictionaryWord: true, line: 0) },
                     box: box, rotation: .clockwise270, confidence: confidence)
        }
        let box = Box(x0: 100, y0: 40, x1: 140, y1: 400)
        let readings = [spine(["THE", "ROAD"], confidence: 95, box: box),
                        spine(["The", "Road"], confidence: 90, box: box),
                        spine(["THE", "ROAD", "McCARTHY"], confidence: 70, box: Box(x0: 102, y0: 30, x1: 139, y1: 420)),
                        spine(["ROAD"], confidence: 60, box: box)]
        let merged = ShelfOCR.merged(readings)
        #expect(merged.count == 1)
        // Ranked by confident letters: the longest reading leads; case and spacing make no new reading.
        #expect(merged[0].text == "THE ROAD McCARTHY")
        #expect(merged[0].alternatives == ["THE ROAD", "ROAD"])
        #expect(ShelfOCR.merged(readings, maximumAlternatives: 1)[0].alternatives == ["THE ROAD"])
    }

    /// A reading of `text` at `box`, every word at `confidence`, in the 270° turn.
    func reading(_ text: String, _ box: Box, confidence: Double = 93) -> OCRSpine {
        OCRSpine(words: text.split(separator: " ").map { OCRWord(text: String($0), confidence: confidence, box: box, isDictionaryWord: true, line: 0) },
                 box: box, rotation: .clockwise270, confidence: confidence)
    }

    @Test func twoSpinesReadApartInsideAWideReadingAreNotItsAlternatives() {
        // hard-02: a reading 151 px across (a strip over three spines) outscored the two spines
        // read apart inside it, which were kept as its alternatives only (both books lost).
        let wide = reading("Harry the Dirty Dog Gene Zion The", Box(x0: 44, y0: 73, x1: 195, y1: 534), confidence: 96)
        let poems = reading("Complete Poems Anne Sexton", Box(x0: 95, y0: 80, x1: 135, y1: 500))
        let changes = reading("Changes Jim Butcher", Box(x0: 142, y0: 90, x1: 182, y1: 420))
        let merged = ShelfOCR.merged([poems, wide, changes])
        // Its own words (another spine's) are no one else's: it stays, beside them.
        #expect(merged.map(\.text) == [wide.text, poems.text, changes.text])
        #expect(merged.allSatisfy { $0.alternatives.isEmpty })
        // One place read inside a wide reading may be a line of the same spine: its alternative, as before.
        let one = ShelfOCR.merged([poems, wide])
        #expect(one.map(\.text) == [wide.text] && one[0].alternatives == [poems.text])
    }

    @Test func aReadingThatRanTwoSpinesTogetherYieldsToThemReadApart() {
        let together = reading("The Forsyte Saga John Galsworthy The Prize Julie Garwo", Box(x0: 0, y0: 0, x1: 100, y1: 600), confidence: 96)
        let saga = reading("The Forsyte Saga John Galsworthy", Box(x0: 5, y0: 10, x1: 45, y1: 590))
        let prize = reading("The Prize Julie Garwood", Box(x0: 55, y0: 10, x1: 95, y1: 400))
        // Their words hold most of its letters (all but `Garwo`): it is dropped, no one's alternative.
        let merged = ShelfOCR.merged([together, saga, prize])
        #expect(merged.map(\.text) == [saga.text, prize.text])
        #expect(merged.allSatisfy { $0.alternatives.isEmpty })
        // A title and its author along one spine (one place across it) still go with the wide reading.
        let title = reading("The Forsyte Saga", Box(x0: 5, y0: 10, x1: 45, y1: 300))
        let author = reading("John Galsworthy", Box(x0: 5, y0: 320, x1: 45, y1: 590))
        let alongOne = ShelfOCR.merged([together, title, author])
        #expect(alongOne.map(\.text) == [together.text] && Set(alongOne[0].alternatives) == [title.text, author.text])
    }

    @Test func rotatedBoxesMapBackToThePhoto() {
        // A 100×50 photo: turned 270° it is 50×100; its top-left pixel is the photo's top-right.
        let box = Box(x0: 0, y0: 0, x1: 10, y1: 5)
        #expect(SpineRotation.clockwise270.boxInPhoto(box, photoWidth: 100, photoHeight: 50) == Box(x0: 95, y0: 0, x1: 100, y1: 10))
        #expect(SpineRotation.clockwise90.boxInPhoto(box, photoWidth: 100, photoHeight: 50) == Box(x0: 0, y0: 40, x1: 5, y1: 50))
        #expect(SpineRotation.none.boxInPhoto(box, photoWidth: 100, photoHeight: 50) == box)
    }

    @Test func noiseWordsAreDropped() {
        func keeps(_ text: String, _ confidence: Double = 95, dictionary: Bool = false) -> Bool {
            SpineNoise.keeps(OCRWord(text: text, confidence: confidence, box: Box(x0: 0, y0: 0, x1: 1, y1: 1),
                                     isDictionaryWord: dictionary, line: 0), minimumConfidence: 55)
        }
        for callNumber in ["TU5", ".C90", "QA76.9", "004.6", "PS3545"] { #expect(!keeps(callNumber), "\(callNumber)") }
        for single in ["x", "|", "—", "7"] { #expect(!keeps(single), "\(single)") }
        #expect(!keeps("Wkrthz", 96))
        #expect(!keeps("plomanem", 40))
        for word in ["1984", "Weaveworld", "A", "Hilderbrand", "2nd"] { #expect(keeps(word), "\(word)") }
        // Chinese has no vowels to look for: PP-OCR's stacked titles at 97-100 had been dropped as texture.
        for title in ["大数据处理平台能耗优化方法的研究", "HADOOP生态系统", "検索エンジン"] { #expect(keeps(title), "\(title)") }
        #expect(!keeps("Wkrthz大数据", 96))
        #expect(SpineNoise.isImprint("PENGUIN") && SpineNoise.isImprint("Picador") && !SpineNoise.isImprint("Dune"))
    }

    @Test func anImprintNameInsideATitleStaysAWordOfIt() throws {
        let ocr = try ShelfOCR()
        let box = Box(x0: 0, y0: 0, x1: 500, y1: 40)
        func reading(_ lines: [String]) -> String? {
            let words = lines.enumerated().flatMap { index, line in
                SceneTextReader.words(of: line, confidence: 94, line: index, box: box, isDictionaryWord: { _ in false })
            }
            return ocr.spine(of: words, box: { $0 })?.text
        }
        // PP-OCR's line on a real shelf (dianaaaa_img15): `Random` after `of` is the title's, not Random House's.
        #expect(reading(["The Strange Logic of Random C"]) == "The Strange Logic of Random C")
        // A publisher's name at the foot, on its own line or after the author on one, is still dropped.
        #expect(reading(["The Odyssey", "Penguin Classics"]) == "The Odyssey")
        #expect(reading(["THE ODYSSEY HOMER PENGUIN"]) == "THE ODYSSEY HOMER")
        #expect(reading(["Random House", "Dune"]) == "House Dune")
        // The word before it must be on its own line: `of` ending the line above is no continuation.
        #expect(reading(["Logic of", "Random"]) == "Logic of")
    }

    @Test func lowConfidenceWordsThatLookLikeWordsAreKeptAsideAsUnsure() {
        func verdict(_ text: String, _ confidence: Double) -> SpineNoise.WordVerdict {
            SpineNoise.verdict(OCRWord(text: text, confidence: confidence, box: Box(x0: 0, y0: 0, x1: 1, y1: 1),
                                       isDictionaryWord: false, line: 0), minimumConfidence: 55)
        }
        #expect(verdict("INSURGENT", 7) == .unsure)
        #expect(verdict("REPLICA:", 48) == .unsure)
        #expect(verdict("INSURGENT", 90) == .kept)
        // Texture and upside-down text: no vowel, only vowels, a letter three times, too short, digits.
        for junk in ["Wkrthz", "eeee", "Aeiou", "Goooal", "ee", "v7", "Th1s"] { #expect(verdict(junk, 20) == .dropped, "\(junk)") }
    }

    @Test func anUnsureReadingStandsOnlyWhereNothingSurerWasRead() throws {
        let ocr = try ShelfOCR()
        let box = Box(x0: 0, y0: 0, x1: 300, y1: 40)
        func unsure(_ text: String, _ confidence: Double) -> OCRWord {
            OCRWord(text: text, confidence: confidence, box: box, isDictionaryWord: false, line: 0)
        }
        // Only long words make an unsure reading: chance words are short.
        #expect(ocr.unsureSpine(of: [unsure("THIEF", 20)], box: { $0 }) == nil)
        let insurgent = try #require(ocr.unsureSpine(of: [unsure("INSURGENT", 7), unsure("x", 3)], box: { $0 }))
        #expect(insurgent.isUnsure && insurgent.text == "INSURGENT")
        // Beside a sure reading of the same place it is neither kept nor an alternative (a chance
        // word naming another book would keep the sure match from strong); alone it stands.
        let sure = OCRSpine(words: [word("Divergent", x: 0, y: 0)], box: box, rotation: .clockwise270, confidence: 90)
        let merged = ShelfOCR.merged([insurgent, sure])
        #expect(merged.map(\.text) == ["Divergent"] && merged[0].alternatives.isEmpty)
        #expect(ShelfOCR.merged([insurgent]).map(\.text) == ["INSURGENT"])
        // The matcher is told: its confidence stays under the floor for strong.
        let reading = try #require(TesseractSpineReader.readings(of: [insurgent]).first)
        #expect((reading.confidence ?? 1) < 0.5)
    }

    @Test func aStripsUnsureWordsAmongSureOnesAreReadAsAnAlternative() throws {
        // A real strip (minhan_img1538): "WHSTLE" at 29 between sure words is kept aside as unsure,
        // so the strip's reading lacks the word that names its book.
        let ocr = try ShelfOCR()
        let engine = try TesseractEngine(options: TesseractOptions())
        let read: [(String, Double)] = [("LAN", 63), ("VED", 63), ("WHEN", 89), ("THE", 75), ("SLAYTON", 96),
                                        ("WHSTLE", 29), ("Stews", 44), ("Py", 79), ("fie", 20)]
        let words = read.enumerated().map { index, word in
            OCRWord(text: word.0, confidence: word.1, box: Box(x0: index * 60, y0: 0, x1: index * 60 + 50, y1: 30),
                    isDictionaryWord: engine.isDictionaryWord(word.0), line: 0)
        }
        let strip = Box(x0: 528, y0: 111, x1: 588, y1: 1137)
        let spine = try #require(ocr.stripSpine(OCRPass(rotation: .clockwise270, words: words, strip: strip)))
        #expect(!spine.text.contains("WHSTLE"))
        #expect(spine.alternatives.contains { $0.contains("THE SLAYTON WHSTLE") })
        // Merged into another reading of the same place, the alternative goes with it.
        let page = OCRSpine(words: [word("SLAYTON", x: 0, y: 0)], box: strip, rotation: .clockwise270, confidence: 99)
        let merged = ShelfOCR.merged([page, spine], stripWeight: 0.5)
        #expect(merged.count == 1 && merged[0].alternatives.contains { $0.contains("WHSTLE") })
        // The matcher finds the book through the alternative, and not without it.
        let index = WorkIndex([
            MatchCandidate(workKey: "w1", title: "When the Whistle Blows", authors: ["Fran Cannon Slayton"], isbn13: "9780399251894", source: "test"),
            MatchCandidate(workKey: "w2", title: "When the Wind Blows", authors: ["Raymond Briggs"], isbn13: nil, source: "test"),
        ])
        let matcher = SpineMatcher()
        let reading = try #require(TesseractSpineReader.readings(of: [spine]).first)
        let found = matcher.match(reading, index: index)
        #expect(found.decision != .none && found.best?.title == "When the Whistle Blows")
        var alone = reading
        alone.alternatives = []
        #expect(matcher.match(alone, index: index).decision == .none)
        // Without a word Tesseract was unsure of, no alternative.
        let sure = try #require(ocr.stripSpine(OCRPass(rotation: .clockwise270, words: Array(words.prefix(5)), strip: strip)))
        #expect(sure.alternatives.isEmpty)
    }

    @Test func anUnsureReadingsLongWordsAreAlsoReadWithoutTheShortOnes() throws {
        // A real strip (minhan_img1538): "aati" at 38 beside "UPRISING" at 43. Read whole it is too
        // far from the title for a suggestion; its long word alone is near enough.
        let ocr = try ShelfOCR()
        let words = [("aati", 38.0, 0), ("UPRISING", 43.0, 80)].map { text, confidence, x in
            OCRWord(text: text, confidence: confidence, box: Box(x0: x, y0: 0, x1: x + 70, y1: 30), isDictionaryWord: false, line: 0)
        }
        let spine = try #require(ocr.unsureSpine(of: words, box: { $0 }))
        #expect(spine.text == "aati UPRISING" && spine.alternatives == ["UPRISING"])
        let index = WorkIndex([
            MatchCandidate(workKey: "w1", title: "Uprising", authors: ["Margaret Peterson Haddix"], isbn13: "9781416911753", source: "test"),
            MatchCandidate(workKey: "w2", title: "Rising Strong", authors: ["Brené Brown"], isbn13: nil, source: "test"),
        ])
        let reading = try #require(TesseractSpineReader.readings(of: [spine]).first)
        let match = SpineMatcher().match(reading, index: index)
        // Only ever a suggestion: the reader was unsure.
        #expect(match.decision == .medium && match.best?.title == "Uprising")
        var whole = reading
        whole.alternatives = []
        #expect(SpineMatcher().match(whole, index: index).decision == .none)
        // Nothing short to leave out: no alternative.
        #expect(try #require(ocr.unsureSpine(of: [words[1]], box: { $0 })).alternatives.isEmpty)
    }

    @Test func anUnsureGroupOfTwoLongDictionaryWordsIsKept() throws {
        let ocr = try ShelfOCR()
        func read(_ text: String, _ confidence: Double, dictionary: Bool) -> OCRWord {
            OCRWord(text: text, confidence: confidence, box: Box(x0: 0, y0: 0, x1: 100, y1: 30), isDictionaryWord: dictionary, line: 0)
        }
        // A real strip: "HUNGER" at 65, "GAMES" at 33; the mean (49) is under the floor.
        let kept = try #require(ocr.spine(of: [read("HUNGER", 65, dictionary: true), read("GAMES", 33, dictionary: true)], box: { $0 }))
        #expect(kept.text == "HUNGER GAMES" && kept.confidence < 50)
        // Chance words Tesseract's dictionary takes are short ("hell thin"), or come alone.
        #expect(ocr.spine(of: [read("hell", 17, dictionary: true), read("thin", 17, dictionary: true)], box: { $0 }) == nil)
        #expect(ocr.spine(of: [read("Graph", 40, dictionary: true), read("Ulicny", 20, dictionary: false)], box: { $0 }) == nil)
    }

    @Test func dictionaryWordsAreRealWordsOfFourLettersOrMore() throws {
        // The LSTM's own flag marks junk too; short strings pass Tesseract's dictionary test.
        let engine = try TesseractEngine(options: TesseractOptions())
        for word in ["Brother", "THEORY", "Graphs,", "Materials"] { #expect(engine.isDictionaryWord(word), "\(word)") }
        for junk in ["ai", "sl", "eal", "Wkrthz", "ASHLORDS", "zxqv"] { #expect(!engine.isDictionaryWord(junk), "\(junk)") }
    }

    @Test func aSmallerScalesWordsLandInTheWorkingImage() throws {
        // The working image is 2000×1000; a pass read it at half size (500,000 pixels).
        let ocr = try ShelfOCR()
        let image = GrayImage(width: 2000, height: 1000, pixels: [UInt8](repeating: 200, count: 2_000_000))
        let pass = OCRPass(rotation: .none, pixels: 500_000, words: [
            OCRWord(text: "Weaveworld", confidence: 95, box: Box(x0: 100, y0: 100, x1: 300, y1: 140), isDictionaryWord: false, line: 0),
        ])
        let shelf = ocr.assemble([pass], image: image)
        #expect(shelf.spines.map(\.text) == ["Weaveworld"])
        #expect(shelf.spines.first?.box == Box(x0: 200, y0: 200, x1: 600, y1: 280))
        // Read again as a negative at full size: the same place, counted once.
        let inverted = OCRPass(rotation: .none, pixels: 0, inverted: true, words: [
            OCRWord(text: "Weaveworld", confidence: 90, box: Box(x0: 202, y0: 198, x1: 598, y1: 282), isDictionaryWord: false, line: 0),
        ])
        #expect(ocr.assemble([pass, inverted], image: image).spines.count == 1)
    }
}

/// Bad input: every case an error naming the photo or the package, or simply no readings.
@Suite struct BadInputTests {
    @Test func photoWithoutTextGivesNoReadings() throws {
        // Smooth gradients and noise, no letters.
        var state: UInt32 = 12345
        let pixels = (0..<(1200 * 800)).map { index -> UInt8 in
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: (index % 1200) / 6 + Int(state >> 28))
        }
        let jpeg = try ImageEncoder.jpegData(GrayImage(width: 1200, height: 800, pixels: pixels), quality: 85)
        let shelf = try ShelfOCR().read(data: jpeg, name: "wall.jpg")
        #expect(shelf.spines.isEmpty, "\(shelf.spines.map(\.text))")
    }

    @Test func tinyPhotoIsRefusedByName() throws {
        let png = try ImageEncoder.pngData(GrayImage(width: 20, height: 12, pixels: [UInt8](repeating: 200, count: 240)))
        #expect(throws: TesseractError.imageTooSmall(file: "tiny.png", width: 20, height: 12, minimumSide: 64)) {
            try ShelfOCR().read(data: png, name: "tiny.png")
        }
        #expect(TesseractError.imageTooSmall(file: "tiny.png", width: 20, height: 12, minimumSide: 64)
            .description.hasPrefix("tiny.png: 20×12 pixels is too small"))
    }

    @Test func hundredMegapixelPhotoIsRefusedBeforeOCR() async throws {
        // A PGM header announcing 10 000 × 10 001 pixels: the pixel limit refuses it from the
        // header alone, before any pixel is decoded or read.
        let data = Data("P5\n10000 10001\n255\n".utf8) + Data(repeating: 0, count: 64)
        let reader = try TesseractSpineReader()
        await #expect(throws: TesseractError.image(.tooLarge(file: "wall.pgm", width: 10000, height: 10001, maxPixels: 100_000_000))) {
            try await reader.readSpines(in: ShelfPhoto(path: "wall.pgm", data: data))
        }
    }

    @Test func missingTraineddataNamesThePackageToInstall() throws {
        try withTemporaryDirectory { folder in
            var options = TesseractOptions(languages: ["eng"])
            options.dataPath = folder.path
            do {
                _ = try TesseractSpineReader(options: options)
                Issue.record("started without eng.traineddata")
            } catch let error as TesseractError {
                #expect(error == .missingLanguageData(language: "eng", searched: [folder.path]))
                #expect(error.description.contains("eng.traineddata"))
                #expect(error.description.contains("apt-get install tesseract-ocr-eng"))
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
        #expect(TesseractError.debianPackage(for: "chi_sim") == "tesseract-ocr-chi-sim")
        #expect(throws: TesseractError.invalidLanguage("../eng")) { try ShelfOCR(options: TesseractOptions(languages: ["../eng"])) }
    }

    @Test func factoryReadsTheVisionSettings() throws {
        #expect(TesseractProvider.isSelected(provider: nil, baseURL: nil))
        #expect(TesseractProvider.isSelected(provider: "tesseract", baseURL: "http://127.0.0.1:11434"))
        #expect(!TesseractProvider.isSelected(provider: nil, baseURL: "http://127.0.0.1:11434"))
        #expect(!TesseractProvider.isSelected(provider: "ollama", baseURL: nil))
        let reader = try TesseractProvider.makeReader(TesseractProviderSettings(pageSegmentationMode: 12, rotations: [270, -90],
                                                                                environment: ["RAPIDSCAN_PPOCR_PYTHON": "off"]))
        #expect(reader.ocr.options.rotations == [.clockwise270, .clockwise270])
        #expect(reader.identity == "tesseract:eng:psm12:270,270+yield")
        #expect(throws: TesseractProviderError.invalidRotation(45)) {
            try TesseractProvider.makeReader(TesseractProviderSettings(rotations: [45]))
        }
        #expect(throws: TesseractProviderError.invalidPageSegmentationMode(14)) {
            try TesseractProvider.makeReader(TesseractProviderSettings(pageSegmentationMode: 14))
        }
    }
}

/// `scaled(toPixels:)`'s bilinear step, its columns' coordinates worked out once for every row
/// (stop 45): the same bytes as the per-pixel definition, up and down, on a real photo.
@Suite struct ResamplingTests {
    @Test func bilinearScalingIsTheDefinitionPixelByPixel() throws {
        let photo = try ImageLoader.load(contentsOf: SharedFiles.requireImage("barcodes/zxing-ean13-3/10.png")).image
        let crop = photo.cropped(x: 10, y: 20, width: min(photo.width - 10, 173), height: min(photo.height - 20, 91))
        for (source, factor) in [(crop, 2.37), (crop, 1.6), (crop, 0.71), (photo, 0.45)] {
            let pixels = Int(Double(source.width * source.height) * factor * factor)
            let (scaled, used) = source.scaled(toPixels: pixels, maxLongSide: 4000, maxUpscale: 8)
            #expect(abs(used - factor) < 0.01)
            // The definition: a whole-factor box reduction first when shrinking by 2× or more, then
            // each output pixel from its four neighbours, its coordinates worked out on its own.
            let whole = Int(1 / used)
            let from = whole >= 2 ? source.downscaled(by: whole) : source
            let (w, h) = (from.width, from.height)
            let scaleX = Double(w) / Double(scaled.width), scaleY = Double(h) / Double(scaled.height)
            var expected: [UInt8] = []
            for y in 0..<scaled.height {
                for x in 0..<scaled.width {
                    let sx = max(0, min(Double(w - 1), (Double(x) + 0.5) * scaleX - 0.5))
                    let sy = max(0, min(Double(h - 1), (Double(y) + 0.5) * scaleY - 0.5))
                    let x0 = Int(sx), x1 = min(w - 1, x0 + 1), y0 = Int(sy), y1 = min(h - 1, y0 + 1)
                    let fx = sx - Double(x0), fy = sy - Double(y0)
                    let top = Double(from[x0, y0]) * (1 - fx) + Double(from[x1, y0]) * fx
                    let bottom = Double(from[x0, y1]) * (1 - fx) + Double(from[x1, y1]) * fx
                    expected.append(UInt8(max(0, min(255, (top * (1 - fy) + bottom * fy).rounded()))))
                }
            }
            #expect(scaled.pixels == expected, "\(source.width)×\(source.height) → \(scaled.width)×\(scaled.height)")
        }
    }
}
