import Foundation
import Imaging
import Testing
import TestSupport
@testable import SpineOCR

/// A photo's OCR work is bounded in CPU time (not wall time, which a busy machine stretches):
/// a whole-photo pass is cut at its CPU deadline keeping the words read by then, and once the
/// photo's passes have used the budget, strips and extra scales are skipped.
@Suite struct WorkBudgetTests {
    /// A rendered shelf (real JPEG bytes from scripts/generate-shelf-images) at a small working size.
    func shelf(_ ocr: ShelfOCR) throws -> GrayImage {
        let name = "shelf-01.jpg"
        let data = try Data(contentsOf: RenderedShelfTests.folder.appendingPathComponent(name))
        return try ocr.workingImage(ocr.decode(data: data, name: name), name: name)
    }

    /// Tesseract's OpenMP threads are kept from running (and spinning) beside a pass even
    /// though libtesseract and libgomp are opened with dlopen, out of the global symbol scope.
    @Test func openMPIsSerialisedWithTheLibraryOpenedLazily() throws {
        let engine = try TesseractEngine(options: TesseractOptions())
        let blank = GrayImage(width: 64, height: 32, pixels: [UInt8](repeating: 255, count: 64 * 32))
        #expect(engine.words(in: blank) != nil)
        #expect(OpenMP.canSerialize)
    }

    @Test func aCPUDeadlineCutsAPassAndKeepsTheWordsReadByThen() throws {
        let options = TesseractOptions(workingPixels: 1_500_000)
        let ocr = try ShelfOCR(options: options)
        let turned = try shelf(ocr).rotated(SpineRotation.clockwise270.imagingRotation)
        let engine = try TesseractEngine(options: options)
        let whole = try #require(engine.words(in: turned))
        // One millisecond of CPU is spent before the first word is finished: the pass stops
        // there, which is not a failure.
        let cut = try #require(engine.words(in: turned, cpuMilliseconds: 1))
        #expect(whole.count >= 10, "\(whole.map(\.text))")
        #expect(cut.count < whole.count / 2, "cut pass read \(cut.count) of \(whole.count) words")
    }

    @Test func overBudgetAPhotoGetsItsWholePhotoPassesOnly() throws {
        var options = TesseractOptions(workingPixels: 1_500_000, workers: 2, deadlineMilliseconds: 0)
        // Spent as soon as the first pass ends; the whole-photo turns still all run (two
        // workers: a strip is only taken after one of them has finished).
        options.budgetMilliseconds = 1
        let ocr = try ShelfOCR(options: options)
        let image = try shelf(ocr)
        #expect(!SpineStrips.strips(in: image).isEmpty, "the shelf has strips to skip")
        let passes = try ocr.recognize(image, name: "shelf-01.jpg")
        #expect(passes.allSatisfy { $0.strip == nil && $0.pixels == 0 }, "\(passes.map { ($0.rotation, $0.pixels, $0.strip) })")
        #expect(Set(passes.map(\.rotation)) == Set(options.rotations))
    }

    @Test func everyStripsFirstVariantIsReadBeforeAnyStripsOthers() throws {
        // Over budget, what is left unread is then the retries of strips not read surely, not
        // the last strips of a dense shelf (at a 6 s budget the rendered shelves found 116 of
        // 130 strip by strip, 122 this way).
        let options = TesseractOptions(workingPixels: 1_500_000, workers: 1, deadlineMilliseconds: 0)
        let ocr = try ShelfOCR(options: options)
        let image = try shelf(ocr)
        let strips = SpineStrips.spineStrips(in: image)
        #expect(strips.count >= 5)
        let order = ocr.stripWork(strips).map { work -> (Int, Bool) in
            guard case .strip(_, let number, let firstRound) = work else { return (-1, false) }
            return (number, firstRound)
        }
        #expect(order.map(\.0) == Array(strips.indices) + Array(strips.indices))
        #expect(order.prefix(strips.count).allSatisfy(\.1) && !order.dropFirst(strips.count).contains { $0.1 })
        // Two rounds read a strip as one did: the second picks up where the first stopped,
        // and reads nothing after a sure first variant.
        let engine = try TesseractEngine(options: options)
        let rotations: [SpineRotation] = [.clockwise270, .clockwise90]
        var sureFirst = 0
        for strip in strips.prefix(6) {
            let whole = ocr.readStrip(strip, in: image, rotations: rotations, engine: engine, overBudget: { false })
            let first = ocr.readStrip(strip, in: image, rotations: rotations, engine: engine, overBudget: { false },
                                      variants: 0..<1, readsUpright: false)
            let second = ocr.readStrip(strip, in: image, rotations: rotations, engine: engine, overBudget: { false },
                                       variants: 1..<options.stripVariants.count, after: first)
            #expect((first + second).map { $0.words.map(\.text) } == whole.map { $0.words.map(\.text) })
            if first.count < whole.count { #expect(first.allSatisfy { $0.pixels == options.stripVariants[0].across.upperBound }) }
            if second.isEmpty { sureFirst += 1 }
        }
        #expect(sureFirst >= 1, "a clear rendered spine is read surely by its first variant")
    }
}
