@testable import BarcodeReading
import BookCodes
import Foundation
import ImageTestSupport
import Imaging
import Testing
import TestSupport

@Suite struct FileScannerTests {
    /// Coarse-to-fine: the region of bars found on the grid, read from the full pixels.
    @Test func aLargePhotoIsReadThroughItsRegionWithBoundsInFullSizePixels() throws {
        let barcode = try BarcodeReaderTests.sample("isbn-9780306406157.png")
        // 4000×3000 like a phone photo; the barcode pasted 4× enlarged at (1200, 900).
        let photo = canvas(width: 4000, height: 3000, pasting: barcode, at: 1200, 900, zoom: 4)
        try withTemporaryDirectory { folder in
            let file = folder.appendingPathComponent("photo.jpg")
            try ImageEncoder.jpegData(photo, quality: 85).write(to: file)
            let result = try FileScanner().scan(fileAt: file)
            #expect(result.codes.map(\.text) == ["9780306406157"])
            #expect(result.attempt == "regions")
            #expect(result.imageWidth == 4000 && result.imageHeight == 3000)
            let bounds = try #require(result.codes.first?.bounds)
            #expect(bounds.x >= 1200 && bounds.maxX <= 1200 + barcode.width * 4 + 8, "\(bounds)")
            #expect(bounds.y >= 900 && bounds.maxY <= 900 + barcode.height * 4 + 8, "\(bounds)")
        }
    }

    @Test func aBarcodeTooSmallForTheReducedPassIsFoundInTheFullPixels() throws {
        // 1.5 px per module: unreadable at half size; its region is cropped from full size.
        let barcode = try BarcodeReaderTests.sample("isbn-9780316030571-small.png")
        let photo = canvas(width: 2400, height: 1800, pasting: barcode, at: 100, 1400)
        try withTemporaryDirectory { folder in
            let file = folder.appendingPathComponent("wide.png")
            try ImageEncoder.pngData(photo).write(to: file)
            let result = try FileScanner(options: ScanOptions(thorough: false)).scan(fileAt: file)
            #expect(result.manifestCodes == ["EAN-13:9780316030571"])
            #expect(result.attempt == "regions")
        }
    }

    @Test func aWebPPhotoIsReadAndABrokenHEICIsReportedByName() throws {
        let barcode = try BarcodeReaderTests.sample("isbn-9780306406157.png")
        let photo = canvas(width: 1600, height: 1200, pasting: barcode, at: 300, 400, zoom: 2)
        try withTemporaryDirectory { folder in
            let webp = folder.appendingPathComponent("IMG_0002.webp")
            try ImageEncoder.webpData(photo, quality: 85).write(to: webp)
            let result = try FileScanner().scan(fileAt: webp)
            #expect(result.manifestCodes == ["EAN-13:9780306406157"])
            // The HEIC brand and nothing else: libheif's refusal comes back as an error naming it.
            let heic = folder.appendingPathComponent("IMG_0001.HEIC")
            try Data([0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)).write(to: heic)
            #expect(ImageLoader.isSupportedImage(heic))
            #expect {
                try FileScanner().scan(fileAt: heic)
            } throws: { error in
                (error as? ImageError)?.file == heic.path && "\(error)".contains("HEIF")
            }
        }
    }

    /// What a phone's photo folder holds: HEIC (one turned by irot), WebP and JPEG are all
    /// read; a GIF and a camera raw file are reported by name, not skipped.
    @Test func aPhoneFolderIsReadWhateverTheFormatAndTheRestNamed() async throws {
        try await withTemporaryDirectory { folder in
            let copies = [("IMG_0001.HEIC", "isbn-9780306406157-irot.heic"), ("IMG_0002.heic", "scene-9781250313188.heic"),
                          ("IMG_0003.webp", "isbn-9780306406157-exif6.webp"), ("IMG_0004.JPG", "scene-upca.jpg"),
                          ("IMG_0005.avif", "scene-upca.avif")]
            for (name, sample) in copies {
                try FileManager.default.copyItem(at: SharedFiles.sampleImages.appendingPathComponent(sample),
                                                 to: folder.appendingPathComponent(name))
            }
            try Data("GIF89a\u{1}\u{0}\u{1}\u{0}\u{0}\u{0}\u{0};".utf8).write(to: folder.appendingPathComponent("anim.gif"))
            try Data([0x49, 0x49, 0x55, 0, 0x18, 0, 0, 0]).write(to: folder.appendingPathComponent("P1000.RW2"))
            try Data("shopping list".utf8).write(to: folder.appendingPathComponent("notes.txt"))

            let entries = FileWalker.imageFiles(in: [folder])
            #expect(entries.map(\.url.lastPathComponent) == ["IMG_0001.HEIC", "IMG_0002.heic", "IMG_0003.webp",
                                                              "IMG_0004.JPG", "IMG_0005.avif", "P1000.RW2", "anim.gif"])
            let results = try await scanAll(entries.prefix(5).map(\.url))
            let codes = entries.prefix(5).map { results[$0.url]?.codes.map(\.text) ?? [] }
            #expect(codes == [["9780306406157"], ["9781250313188"], ["9780306406157"], ["036000291452"], ["036000291452"]])
            for entry in entries.suffix(2) {
                #expect {
                    try FileScanner().scan(fileAt: entry.url)
                } throws: { error in
                    guard case .unsupportedFormat(let file, let format) = error as? ImageError else { return false }
                    return file == entry.url.path && ["RW2", "GIF"].contains(format)
                }
            }
        }
    }

    @Test func thePixelLimitRefusesLargeImagesBeforeDecoding() throws {
        let url = SharedFiles.sampleImages.appendingPathComponent("isbn-9780306406157.png")
        #expect(throws: ImageError.tooLarge(file: url.relativePath, width: 339, height: 255, maxPixels: 10_000)) {
            try FileScanner(options: ScanOptions(maxPixels: 10_000)).scan(fileAt: url)
        }
    }

    @Test func firstPassScaleKeepsTheLongSideNearAThousandPixels() {
        #expect(FileScanner.firstPassScale(longSide: 4000) == 4)
        #expect(FileScanner.firstPassScale(longSide: 3000) == 2)
        #expect(FileScanner.firstPassScale(longSide: 1999) == 1)
        #expect(FileScanner.firstPassScale(longSide: 240) == 1)
    }
}

@Suite struct ParallelFileScannerTests {
    @Test func resultsComeBackInInputOrderWithErrorsInPlace() async throws {
        let samples = ["isbn-9780306406157.png", "none-blank.png", "upca-036000291452.png", "missing.png"]
        let urls = (0..<24).map { SharedFiles.sampleImages.appendingPathComponent(samples[$0 % samples.count]) }
        var indices: [Int] = []
        for await (index, url, result) in ParallelFileScanner(workers: 2, lookAhead: 3).scan(urls) {
            indices.append(index)
            #expect(url == urls[index])
            switch index % samples.count {
            case 0: #expect((try? result.get())?.codes.map(\.text) == ["9780306406157"])
            case 1: #expect((try? result.get())?.codes.isEmpty == true)
            case 2: #expect((try? result.get())?.codes.map(\.text) == ["036000291452"])
            default:
                guard case .failure(.cannotOpen(let file, _)) = result else {
                    Issue.record("expected cannotOpen, got \(result)")
                    continue
                }
                #expect(file.hasSuffix("missing.png"))
            }
        }
        #expect(indices == Array(0..<24))
    }

    @Test func stoppingEarlyEndsTheWorkers() async {
        let urls = Array(repeating: SharedFiles.sampleImages.appendingPathComponent("isbn-9780306406157.png"), count: 200)
        var seen = 0
        for await _ in ParallelFileScanner(workers: 2).scan(urls) {
            seen += 1
            if seen == 3 { break }
        }
        #expect(seen == 3)
        var none = 0
        for await _ in ParallelFileScanner().scan([URL]()) { none += 1 }
        #expect(none == 0)
    }
}

@Suite struct FileWalkerTests {
    @Test func foldersAreWalkedSortedSkippingHiddenAndNonImages() throws {
        try withTemporaryDirectory { root in
            let manager = FileManager.default
            for folder in ["photos/b", "photos/a", "photos/.cache"] {
                try manager.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
            }
            for file in ["photos/z.JPG", "photos/a/2.png", "photos/a/10.png", "photos/b/x.pgm", "photos/.hidden.png",
                         "photos/.cache/c.png", "photos/notes.txt", "single.txt"] {
                try Data([1]).write(to: root.appendingPathComponent(file))
            }
            try manager.createSymbolicLink(atPath: root.appendingPathComponent("photos/b/dead.jpg").path,
                                           withDestinationPath: "nowhere.jpg")
            try manager.createSymbolicLink(atPath: root.appendingPathComponent("photos/b/loop").path,
                                           withDestinationPath: "..")
            try manager.createDirectory(at: root.appendingPathComponent("empty"), withIntermediateDirectories: true)

            let given = ["photos", "single.txt", "missing.png", "empty"].map {
                URL(fileURLWithPath: $0, relativeTo: root)
            }
            let entries = FileWalker.imageFiles(in: given)
            #expect(entries.map(\.path) == ["photos/a/10.png", "photos/a/2.png", "photos/b/dead.jpg", "photos/b/x.pgm",
                                            "photos/z.JPG", "single.txt", "missing.png", "empty"])
            #expect(entries.map(\.error) == [nil, nil, .danglingLink(path: "photos/b/dead.jpg", target: "nowhere.jpg"),
                                             nil, nil, nil, .notFound(path: "missing.png"), .noImages(path: "empty")])
            #expect(entries[6].error?.description == "missing.png: no such file or directory")
        }
    }
}

@Suite struct FileWalkerOddNameTests {
    /// A name that is not UTF-8 is reported (escaped), never silently dropped: in a walk,
    /// and alone in a folder (not "no image files").
    @Test func nonUTF8NamesAreReportedEscaped() throws {
        try withTemporaryDirectory { root in
            let folder = root.appendingPathComponent("d")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data([1]).write(to: folder.appendingPathComponent("good.png"))
            let raw = Array(folder.path.utf8) + Array("/caf".utf8) + [0xE9] + Array(".png".utf8)
            var cPath = (raw + [0]).map { CChar(bitPattern: $0) }
            let created = creat(&cPath, 0o644)
            try #require(created >= 0)
            close(created)
            defer { unlink(&cPath) }

            let entries = FileWalker.imageFiles(in: [URL(fileURLWithPath: "d", relativeTo: root)])
            #expect(entries.map(\.path) == ["d/caf\\xE9.png", "d/good.png"])
            #expect(entries[0].error == .notUTF8(path: "d/caf\\xE9.png"))
            #expect(entries[0].error?.description.contains("not valid UTF-8") == true)
            #expect(entries[1].error == nil)
        }
    }

    @Test func aSymlinkLoopIsReportedAsALoop() throws {
        try withTemporaryDirectory { root in
            let link = root.appendingPathComponent("self.jpg")
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "self.jpg")
            let given = URL(fileURLWithPath: "self.jpg", relativeTo: root)
            let entries = FileWalker.imageFiles(in: [given, root])
            #expect(entries.map(\.error) == [.symlinkLoop(path: "self.jpg"), .symlinkLoop(path: link.relativePath)])
            #expect(entries[0].error?.description == "self.jpg: symbolic link loop (the link leads back to itself)")
        }
    }

    @Test func aPathOverTheSystemLimitIsReported() throws {
        try withTemporaryDirectory { root in
            let long = String(repeating: "a/", count: 2100) + "x.png"
            let entries = FileWalker.imageFiles(in: [URL(fileURLWithPath: long, relativeTo: root)])
            guard case .pathTooLong? = entries.first?.error else { Issue.record("expected pathTooLong, got \(entries)"); return }
        }
    }
}

/// Small photos that read nothing at once get the hard passes only where something looks like bars.
@Suite struct HardPassGateTests {
    @Test func aSmallPhotoWithoutBarLikeStructureSkipsTheHardPasses() throws {
        let result = try FileScanner().scan(fileAt: SharedFiles.sampleImages.appendingPathComponent("none-blank.png"))
        #expect(result.codes.isEmpty)
        #expect(result.hardPassesSkipped)
        #expect(result.scans == 1, "only the first whole-image scan: \(result.scans)")
    }

    @Test func stripesThatLookLikeBarsStillGetTheHardPasses() throws {
        let result = try FileScanner().scan(fileAt: SharedFiles.sampleImages.appendingPathComponent("none-fake-bars.png"))
        #expect(result.codes.isEmpty)
        #expect(!result.hardPassesSkipped)
        #expect(result.scans > 5, "\(result.scans)")
    }

    /// A patch shaped like bars that zbar read nothing in is not turned ±6° nor smoothed
    /// along its bars (those copies read nothing on the small photos' sets unless zbar had
    /// read something). (Its bars show only on the 1/2 copy: at normal effort it gets the noise
    /// passes alone, `stripesShownOnlyWhenReducedGetOnlyTheNoisePasses`.)
    @Test func stripesZbarReadNothingInAreNeitherTurnedNorSmoothed() throws {
        let url = SharedFiles.sampleImages.appendingPathComponent("none-fake-bars.png")
        let normal = try FileScanner().scan(fileAt: url)
        #expect(normal.scans <= 9, "turned or smoothed copies were scanned: \(normal.scans) scans")
        let thorough = try FileScanner(options: ScanOptions(effort: .thorough)).scan(fileAt: url)
        #expect(thorough.scans >= normal.scans + 5, "thorough effort still turns and smooths: \(thorough.scans) scans")
    }

    /// The hard passes look around what looked like bars, not at the whole photo: a soft code
    /// only they read (`zxing-ean13-3/39.png`), pasted off-centre into a larger blank photo, is
    /// read, its box where it was pasted (a pass over a crop maps back to the photo's pixels),
    /// and the area they looked at holds it and is under half the photo.
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped))
    func theHardPassesLookAroundTheBarsAndPlaceWhatTheyReadInThePhoto() throws {
        let url = try SharedFiles.requireImage("barcodes/zxing-ean13-3/39.png")
        let code = try ImageLoader.load(contentsOf: url, options: ImageLoadOptions()).image
        let (width, height, x0, y0) = (480, 400, 220, 140)
        var pixels = [UInt8](repeating: 210, count: width * height)
        for y in 0..<code.height { for x in 0..<code.width { pixels[(y + y0) * width + x + x0] = code[x, y] } }
        let photo = GrayImage(width: width, height: height, pixels: pixels)
        let directory = try makeTemporaryDirectory(prefix: "rapidscan-hard-pass-area")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("pasted.pgm")
        try EAN13Rendering.pgm(photo).write(to: file)

        // Its patch looks like bars only on the 1/2 copy, but it is shaped like a code at full size
        // (noise did not hide it): every pass, not the noise passes alone.
        let levels = PatchLevels(photo, patches: FileScanner.patches(in: photo, limit: .max))
        #expect(FileScanner.patchEvidence(levels) == .codeShapedPatch)
        #expect(FileScanner.barsReduction(levels) == 2)
        let result = try FileScanner().scan(fileAt: file)
        #expect(result.codes.map(\.text) == ["9781585730575"])
        #expect(result.attempt?.hasPrefix("doubled") == true, "\(result.attempt ?? "none")")
        let pasted = BoundingBox(x: x0, y: y0, width: code.width, height: code.height)
        for box in result.codes.map(\.bounds) {
            #expect(pasted.union(box) == pasted, "read at \(box), pasted at \(pasted)")
        }
        let patches = FileScanner.patches(in: photo, limit: .max).filter { FileScanner.looksLikeCode($0, in: photo) }
        let area = try #require(FileScanner.hardPassArea(in: photo, zbarReads: [], patches: patches))
        for box in result.codes.map(\.bounds) { #expect(area.union(box) == area, "looked at \(area), code at \(box)") }
        #expect(area.width * area.height * 2 < width * height, "\(area)")
    }

    /// A code whose patch is merged with the print above it (unbalanced, not `looksLikeCode`)
    /// on a photo whose one code-shaped patch is elsewhere (a bag's mesh): the hard passes
    /// still look at the code (the photo's strongest patch), and the read zbar makes there
    /// once, unconfirmed, is kept: the photo is one to take again, not one without a barcode.
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped))
    func theHardPassesLookAtACodeWhosePatchIsMergedWithPrint() throws {
        let url = try SharedFiles.requireImage("barcodes/zxing-upca-2/04.png")
        let photo = try ImageLoader.load(contentsOf: url, options: ImageLoadOptions()).image
        let patches = FileScanner.patches(in: photo, limit: .max)
        let codeShaped = patches.filter { FileScanner.looksLikeCode($0, in: photo) }
        // The UPC-A's bars: x 55–185, y 65–160 of the 240×240 photo.
        let bars = BoundingBox(x: 55, y: 65, width: 130, height: 95)
        #expect(!codeShaped.isEmpty && !codeShaped.contains { $0.holds(x: 120, y: 110) }, "\(codeShaped)")
        let chosen = FileScanner.patchesThatMayHoldACode(patches, in: photo)
        #expect(chosen.count == codeShaped.count + 1 && chosen.contains(patches[0]), "\(chosen)")
        let area = FileScanner.hardPassArea(in: photo, zbarReads: [], patches: chosen)
            ?? BoundingBox(x: 0, y: 0, width: photo.width, height: photo.height)
        #expect(area.union(bars) == area, "looked at \(area)")

        let result = try FileScanner().scan(fileAt: url)
        #expect(result.codes.isEmpty && result.unconfirmed == 1 && result.sawUnreadCode, "\(result.codes) \(result.unconfirmed)")
    }

    /// A patch shaped like a code whose edged cells leave most of its box empty (a false-positive
    /// photo of zxing-cpp's: clutter, no code) is not worth the hard passes when zbar read nothing:
    /// the first two scans and its turned patches' crops only. A soft code only the hard passes read has
    /// a patch its cells fill (`patchLooksLikeBars`).
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped))
    func aCodeShapedPatchWhoseCellsDoNotFillItGetsNoHardPasses() throws {
        let url = try SharedFiles.requireImage("barcodes/zxingcpp-falsepositives-1/15.png")
        let photo = try ImageLoader.load(contentsOf: url, options: ImageLoadOptions()).image
        let patches = FileScanner.patches(in: photo, limit: .max)
        #expect(patches.contains { FileScanner.looksLikeCode($0, in: photo) }, "\(patches)")
        #expect(!FileScanner.barsInPatches(photo, patches: patches))
        let result = try FileScanner().scan(fileAt: url)
        #expect(result.codes.isEmpty && result.hardPassesSkipped, "\(result.scans) scans")
        // Thorough effort spends them on a code-shaped patch, as it did before the bars rule.
        let thorough = try FileScanner(options: ScanOptions(effort: .thorough)).scan(fileAt: url)
        #expect(thorough.codes.isEmpty && !thorough.hardPassesSkipped, "\(thorough.scans) scans")

        let soft = try ImageLoader.load(contentsOf: try SharedFiles.requireImage("barcodes/zxing-ean13-3/39.png"),
                                        options: ImageLoadOptions()).image
        #expect(FileScanner.barsInPatches(soft, patches: FileScanner.patches(in: soft, limit: .max)))
    }

    /// A code-shaped patch that does not look like bars (a false-positive photo of zxing-cpp's:
    /// its one such patch, on the 1/2 copy, fills 0.13 of its box) and no turned patch: the
    /// every-other-line scan read nothing there, so the every-line scan is not taken either, only
    /// the first scan. Thorough effort still takes it and the hard passes.
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped))
    func aPhotoWhosePatchesDoNotLookLikeBarsIsScannedOnce() throws {
        let url = try SharedFiles.requireImage("barcodes/zxingcpp-falsepositives-1/11.png")
        let photo = try ImageLoader.load(contentsOf: url, options: ImageLoadOptions()).image
        let patches = FileScanner.patches(in: photo, limit: .max)
        #expect(FileScanner.patchEvidence(PatchLevels(photo, patches: patches)) != nil, "\(patches)")
        #expect(!FileScanner.barsInPatches(photo, patches: patches))
        #expect(!patches.prefix(3).contains { $0.isTurnedOffAxes }, "\(patches)")
        let result = try FileScanner().scan(fileAt: url)
        #expect(result.codes.isEmpty && result.hardPassesSkipped && result.scans == 1, "\(result.scans) scans")
        let thorough = try FileScanner(options: ScanOptions(effort: .thorough)).scan(fileAt: url)
        #expect(thorough.codes.isEmpty && !thorough.hardPassesSkipped && thorough.scans > 2, "\(thorough.scans) scans")
    }

    /// Heavy noise hides the code's patch at full size; the reduced copies show it. Only the
    /// passes that average noise away run on such a photo, and they read it.
    @Test func aNoisyCodeIsStillReadByTheHardPasses() throws {
        let url = SharedFiles.sampleImages.appendingPathComponent("hard-noisy.jpg")
        let photo = try ImageLoader.load(contentsOf: url, options: ImageLoadOptions()).image
        let levels = PatchLevels(photo, patches: FileScanner.patches(in: photo, limit: .max))
        #expect(FileScanner.patchEvidence(levels) == .codeShapedPatchWhenReduced)
        let result = try FileScanner().scan(fileAt: url)
        #expect(result.manifestCodes == ["EAN-13:9780316030571"])
        #expect(!result.hardPassesSkipped)
        #expect(result.attempt?.hasPrefix("smoothed") == true, "\(result.attempt ?? "none")")
    }

    /// Stripes with no patch shaped like a code at full size, whose patch looks like bars only on
    /// the photo's 1/2 copy, zbar reading nothing: at normal effort the sharpened, doubled,
    /// equalised and model passes are not spent on them (on the small halves, ../shared, their
    /// turned copies and the degradation set they read none of the codes such photos held), only
    /// the first scans and the passes that average noise away. Thorough effort runs them all.
    @Test func stripesShownOnlyWhenReducedGetOnlyTheNoisePasses() throws {
        let url = SharedFiles.sampleImages.appendingPathComponent("none-fake-bars.png")
        let photo = try ImageLoader.load(contentsOf: url, options: ImageLoadOptions()).image
        let levels = PatchLevels(photo, patches: FileScanner.patches(in: photo, limit: .max))
        #expect(FileScanner.patchEvidence(levels) == .codeShapedPatchWhenReduced)
        #expect(FileScanner.barsReduction(levels) == 2)
        let normal = try FileScanner().scan(fileAt: url)
        #expect(normal.codes.isEmpty && !normal.hardPassesSkipped)
        #expect(normal.scans <= 6, "sharpened, doubled or equalised copies were scanned: \(normal.scans) scans")
        let thorough = try FileScanner(options: ScanOptions(effort: .thorough)).scan(fileAt: url)
        #expect(thorough.scans >= normal.scans + 8, "\(thorough.scans) scans")
    }

    /// A code the every-other-line scan confirmed, its bars upright, is read again every line only
    /// along the rows across it (`FileScanner.bands(around:patches:)`), and those rows read what
    /// every line of the photo reads: the code, its EAN-5 (the price), the same lines, the same box.
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped))
    func aConfirmedCodeIsReadAgainOnlyAlongTheRowsAcrossIt() throws {
        let url = try SharedFiles.requireImage("barcodes/zxing-upcean-extension-1/2.png")
        let photo = try ImageLoader.load(contentsOf: url, options: ImageLoadOptions()).image
        let reader = try BarcodeReader(density: 2)
        var refused = 0
        let sparse = reader.scan(photo, refusingShadows: &refused)
        let bands = try #require(FileScanner.bands(around: sparse.map(\.bounds),
                                                   patches: FileScanner.patches(in: photo, limit: .max)))
        #expect(bands.columns.isEmpty && bands.rows.count * 3 < photo.height * 2, "\(bands)")
        try reader.setDensity(1)
        let whole = reader.scan(photo, refusingShadows: &refused)
        let banded = reader.scan(photo, rows: bands.rows, columns: bands.columns, refusingShadows: &refused)
        #expect(whole.map(\.description) == ["EAN-13 9780884271789 + EAN-5 52495 (ISBN 978-0-88427-178-9)"])
        #expect(banded == whole, "\(banded.map { "\($0) q\($0.quality) \($0.bounds)" })")

        let result = try FileScanner().scan(fileAt: url)
        #expect(result.codes.map { "\($0.text) + \($0.addOn?.text ?? "-")" } == ["9780884271789 + 52495"])
        #expect(result.attempt == "full size" && result.scans == 2, "\(result.attempt ?? "none"), \(result.scans) scans")
    }

    /// Across bars turned 45° zbar's rows and columns each read halves of the code that the
    /// other's lines complete: no bands, the every-line scan reads the whole photo.
    @Test func aCodeTurnedOffTheAxesIsReadAgainOverTheWholePhoto() throws {
        let url = SharedFiles.sampleImages.appendingPathComponent("isbn-9780306406157-tilt45.png")
        let photo = try ImageLoader.load(contentsOf: url, options: ImageLoadOptions()).image
        let reader = try BarcodeReader(density: 2)
        var refused = 0
        let sparse = reader.scan(photo, refusingShadows: &refused)
        #expect(!sparse.isEmpty)
        #expect(FileScanner.bands(around: sparse.map(\.bounds), patches: FileScanner.patches(in: photo, limit: .max)) == nil)
        let result = try FileScanner().scan(fileAt: url)
        #expect(result.manifestCodes == ["EAN-13:9780306406157"])
    }
}
