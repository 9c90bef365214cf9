import Foundation
import BookMetadata
import Imaging
import SpineMatching
import Testing
import TestSupport
import Vision
@testable import SpineOCR

/// PP-OCR's worker (`SceneTextReader`): lines placed in the frames the grouping reads, the
/// interpreter found or refused with a clear message, and real reading of rendered shelves.
@Suite(.serialized) struct SceneTextTests {
    /// scripts/setup installs the worker; under CI it must be there (a missing one fails).
    static var workerExpected: Bool { SceneTextReader.locatePython() != nil || SharedFiles.available }
    static let notInstalled = Comment(rawValue: "PP-OCR is not installed (run scripts/setup)")

    /// A labelled real shelf photo (../shared/fixtures/shelves) read by the real PP-OCR worker
    /// without Tesseract's strips and with no time budget, as `spines` reads it.
    static func readRealShelf(_ name: String) async throws -> [SpineReading] {
        let python = try #require(SceneTextReader.locatePython(), "PP-OCR is not installed: run scripts/setup")
        let labels = try #require(SharedFiles.fixture("shelves/labels.json"))
        var options = TesseractOptions(deadlineMilliseconds: 0)
        options.budgetMilliseconds = 0
        options.sceneTextPython = python
        options.readsStrips = false
        let reader = try TesseractSpineReader(options: options)
        let data = try Data(contentsOf: labels.deletingLastPathComponent().appendingPathComponent(name))
        return try await reader.readSpines(in: ShelfPhoto(path: name, data: data)).readings
    }

    @Test func tallLinesArePlacedInTheTurnedFrameAndWideOnesStayUpright() {
        let lines = [
            // A vertical title, 40 px across and 300 px down a 1000 px wide photo.
            SceneTextLine(text: "THE HOBBIT Tolkien", confidence: 91, box: Box(x0: 600, y0: 100, x1: 640, y1: 400)),
            // A book lying flat: its title runs across the photo.
            SceneTextLine(text: "Dune", confidence: 88, box: Box(x0: 100, y0: 700, x1: 300, y1: 740)),
        ]
        let passes = SceneTextReader.passes(from: lines, imageWidth: 1000, imageHeight: 800, milliseconds: 901,
                                            isDictionaryWord: { $0 == "Dune" })
        #expect(passes.map(\.rotation) == [.clockwise270, .none])
        #expect(passes.map { $0.milliseconds ?? 0 }.reduce(0, +) == 901)
        let turned = passes[0].words
        #expect(turned.map(\.text) == ["THE", "HOBBIT", "Tolkien"])
        // Turned 270° (counterclockwise), x runs down the photo and y from its right edge.
        #expect(turned.first?.box.x0 == 100 && turned.last?.box.x1 == 400)
        #expect(turned.allSatisfy { $0.box.y0 == 360 && $0.box.y1 == 400 && $0.line == 0 && $0.confidence == 91 })
        // Words share the line in proportion to their letters, in reading order, not overlapping.
        #expect(zip(turned, turned.dropFirst()).allSatisfy { $0.box.x1 <= $1.box.x0 })
        // Placed back in the photo, the turned box is where the line was.
        let back = SpineRotation.clockwise270.boxInPhoto(turned[0].box.union(turned[2].box), photoWidth: 1000, photoHeight: 800)
        #expect(abs(back.x0 - 600) <= 1 && abs(back.x1 - 640) <= 1 && back.y0 == 100 && back.y1 == 400)
        #expect(passes[1].words.map(\.text) == ["Dune"] && passes[1].words[0].isDictionaryWord)
        #expect(passes[1].words[0].box == Box(x0: 100, y0: 700, x1: 300, y1: 740))
    }

    /// Two neighbours printed opposite ways, their common side showing no break in gray (blue
    /// beside purple on the rendered hard shelves): each line says which way it reads, and the
    /// two are two readings, where one pass had joined them (`Lisa Kleypas Again the Magic Faking It Jennifer Crusie`).
    @Test func tallLinesPrintedOppositeWaysAreNeverOneReading() throws {
        let image = GrayImage(width: 1000, height: 800, pixels: [UInt8](repeating: 128, count: 1000 * 800))
        func lines(upAs readsUp: Bool) -> [SceneTextLine] {
            [SceneTextLine(text: "Faking It Jennifer Crusie", confidence: 95, box: Box(x0: 100, y0: 100, x1: 140, y1: 500)),
             SceneTextLine(text: "Lisa Kleypas Again the Magic", confidence: 95, box: Box(x0: 142, y0: 100, x1: 182, y1: 500), readsUp: readsUp)]
        }
        let ocr = try ShelfOCR()
        func readings(_ lines: [SceneTextLine]) -> [String] {
            let passes = SceneTextReader.passes(from: lines, imageWidth: image.width, imageHeight: image.height, milliseconds: 0,
                                                isDictionaryWord: { _ in true })
            return ocr.assemble(passes, image: image).spines.map(\.text)
        }
        // Printed the same way, no edge between them: one spine's two lines, as before.
        #expect(readings(lines(upAs: false)).count == 1)
        let apart = readings(lines(upAs: true))
        #expect(apart.sorted() == ["Faking It Jennifer Crusie", "Lisa Kleypas Again the Magic"], "\(apart)")
        let passes = SceneTextReader.passes(from: lines(upAs: true), imageWidth: 1000, imageHeight: 800, milliseconds: 0, isDictionaryWord: { _ in true })
        #expect(passes.map(\.rotation) == [.clockwise270, .none, .clockwise270])
    }

    /// A line read in the photo turned clockwise (a bottom-to-top spine) is placed in the 90°
    /// turn's frame, a pass of its own: merged with the first pass's reading of that place, not
    /// grouped with it into one reading.
    @Test func linesReadTurnedClockwiseArePlacedInThe90DegreeFrameInAPassOfTheirOwn() {
        let lines = [
            SceneTextLine(text: "eht gnikooL", confidence: 41, box: Box(x0: 600, y0: 100, x1: 640, y1: 400)),
            SceneTextLine(text: "The Sugar Queen", confidence: 96, box: Box(x0: 600, y0: 100, x1: 640, y1: 400), readTurned: true),
        ]
        let passes = SceneTextReader.passes(from: lines, imageWidth: 1000, imageHeight: 800, milliseconds: 900,
                                            isDictionaryWord: { _ in false })
        #expect(passes.map(\.rotation) == [.clockwise270, .none, .clockwise90])
        #expect(passes[0].words.map(\.text) == ["eht", "gnikooL"])
        let turned = passes[2].words
        #expect(turned.map(\.text) == ["The", "Sugar", "Queen"])
        // Turned clockwise, x runs up the photo from its bottom edge and y across it from the left.
        #expect(turned.first?.box.x0 == 400 && turned.last?.box.x1 == 700)
        #expect(turned.allSatisfy { $0.box.y0 == 600 && $0.box.y1 == 640 && $0.confidence == 96 })
        #expect(zip(turned, turned.dropFirst()).allSatisfy { $0.box.x1 <= $1.box.x0 })
        let back = SpineRotation.clockwise90.boxInPhoto(turned[0].box.union(turned[2].box), photoWidth: 1000, photoHeight: 800)
        #expect(back == Box(x0: 600, y0: 100, x1: 640, y1: 400))
        // Nothing read turned: no third pass.
        #expect(SceneTextReader.passes(from: [lines[0]], imageWidth: 1000, imageHeight: 800, milliseconds: 1,
                                       isDictionaryWord: { _ in false }).count == 2)
    }

    @Test func theInterpreterIsTheOneNamedOrNoneWhenSwitchedOff() {
        #expect(SceneTextReader.locatePython(environment: ["RAPIDSCAN_PPOCR_PYTHON": "/opt/py/bin/python"]) == "/opt/py/bin/python")
        #expect(SceneTextReader.locatePython(environment: ["RAPIDSCAN_PPOCR_PYTHON": "off"]) == nil)
        #expect(SceneTextReader.locatePython(environment: ["RAPIDSCAN_PPOCR_PYTHON": ""]) == nil)
        // Not named: a venv in a folder the binary is not in is not found.
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("no-venv-\(UUID().uuidString)/bin/tool").path
        let previous = FileManager.default.currentDirectoryPath
        FileManager.default.changeCurrentDirectoryPath("/")
        defer { FileManager.default.changeCurrentDirectoryPath(previous) }
        #expect(SceneTextReader.locatePython(environment: [:], executable: elsewhere) == nil)
    }

    @Test func aPythonWithoutRapidOCRIsRefusedNamingItAndWhatToDo() throws {
        let python = try #require(["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) })
        #expect {
            _ = try SceneTextReader(python: python)
        } throws: { error in
            guard case TesseractError.sceneTextUnavailable(let named, let reason) = error else { return false }
            let message = (error as! TesseractError).description
            return named == python && reason.contains("No module named") && message.contains(python) && message.contains("scripts/setup")
        }
        // Named by the user, a broken interpreter is an error, not silently Tesseract alone.
        #expect(throws: TesseractProviderError.self) {
            _ = try TesseractProvider.makeReader(TesseractProviderSettings(environment: ["RAPIDSCAN_PPOCR_PYTHON": python]))
        }
        // Switched off: Tesseract alone.
        let reader = try TesseractProvider.makeReader(TesseractProviderSettings(environment: ["RAPIDSCAN_PPOCR_PYTHON": "off"]))
        #expect(reader.ocr.sceneText == nil && !reader.identity.contains("ppocr"))
        let missing = "/nonexistent/python-\(UUID().uuidString)"
        #expect(throws: TesseractError.self) { _ = try SceneTextReader(python: missing) }
    }

    @Test(.enabled(if: workerExpected, notInstalled)) func theWorkerReadsRenderedSpinesAndSurvivesAFeatureless() throws {
        let python = try #require(SceneTextReader.locatePython(), "PP-OCR is not installed: run scripts/setup")
        // Installed, it is what the provider reads with by default.
        #expect(try TesseractProvider.makeReader(TesseractProviderSettings()).identity.hasSuffix("+ppocr2"))
        // `[vision] ppocrTurned = true` reaches the worker, and cached readings made without it are not reused.
        let turned = try TesseractProvider.makeReader(TesseractProviderSettings(ppocrTurned: true))
        #expect(turned.ocr.sceneText?.readsUnreadTurned == true && turned.identity.hasSuffix("+ppocr3"))
        // `[vision] ppocrStrips = true` reaches the worker (the readings change: so does the identity).
        let strips = try TesseractProvider.makeReader(TesseractProviderSettings(ppocrTurned: true, ppocrStrips: true))
        #expect(strips.ocr.sceneText?.unreadStripLimit == TesseractOptions.unreadStripLimitByDefault && strips.identity.hasSuffix("+ppocr3+strips"))
        let reader = try SceneTextReader(python: python)
        // A blank image has no text, and the worker goes on answering after it.
        let blank = try reader.lines(in: GrayImage(width: 320, height: 240, pixels: [UInt8](repeating: 200, count: 320 * 240)), name: "blank")
        #expect(blank.lines.isEmpty)
        let folder = RenderedShelfTests.folder
        let manifest = try RenderedShelfTests.manifest()
        let name = try #require(manifest.keys.sorted().first)
        let data = try Data(contentsOf: folder.appendingPathComponent(name))
        let image = try ImageLoader.load(data: data, name: name).image
        let (lines, milliseconds) = try reader.lines(in: image, name: name)
        #expect(milliseconds > 0)
        #expect(lines.allSatisfy { $0.confidence > 0 && $0.confidence <= 100 && $0.box.x1 <= image.width + 2 && $0.box.y1 <= image.height + 2 })
        // Most of the shelf's titles are among the lines read (letters only, glued words allowed).
        let read = lines.map { RenderedShelfTests.key($0.text) }
        let titles = manifest[name]!.books.map { RenderedShelfTests.key($0.title) }
        let seen = titles.filter { title in read.contains { $0.contains(title) || (title.count >= 8 && title.contains($0) && $0.count >= 6) } }
        #expect(seen.count * 2 > titles.count, "read \(read) for \(titles)")
    }

    /// A 4000 px shelf's lines are recognised at its own size: RapidOCR's 2000 px scale-down had
    /// left its 36–62 px spines half as wide, and bottom-to-top titles among them unread.
    @Test(.enabled(if: workerExpected, notInstalled)) func aWideShelfsLinesAreReadAtItsOwnSize() throws {
        let python = try #require(SceneTextReader.locatePython(), "PP-OCR is not installed: run scripts/setup")
        let reader = try SceneTextReader(python: python, readsUnreadTurned: true)
        let name = "hard-01.jpg"
        let shelf = try #require(try HardShelfSegmentationTests.labels()[name])
        let image = try ImageLoader.load(data: Data(contentsOf: HardShelfSegmentationTests.folder.appendingPathComponent(name)), name: name).image
        #expect(image.width == 4000)
        let lines = try reader.lines(in: image, name: name).lines
        let read = lines.map { RenderedShelfTests.key($0.text) }
        let seen = shelf.books.filter { book in read.contains { $0.contains(RenderedShelfTests.key(book.title)) } }.map(\.title)
        // Scaled down to 2000 px: 55 of 63, these four bottom-to-top titles among the missed (58 at
        // the working size six lines to a batch, 57 one line at a time for 26% less CPU).
        for title in ["The Sugar Queen", "Vampire Kisses", "The High Window", "Dreamless"] {
            #expect(seen.contains(title), "\(title) not among \(read)")
        }
        #expect(seen.count >= 57, "\(seen.count) of \(shelf.books.count)")
        // The photo turned clockwise, read where no sure line was: bottom-to-top titles the first
        // pass read unsurely or not at all, and every sure line of it on a bottom-to-top spine
        // (a top-to-bottom one, upside down there, is left to the first pass).
        let turned = lines.filter(\.readTurned)
        for title in ["Gone", "Bloody Bones", "On the Jellicoe Road"] {
            #expect(turned.contains { RenderedShelfTests.key($0.text) == RenderedShelfTests.key(title) }, "\(title) not among \(turned.map(\.text))")
        }
        for line in turned where line.confidence >= 90 {
            let spine = shelf.books.first { HardShelfSegmentationTests.span($0.quad, atY: line.box.centerY)?.contains(line.box.centerX) ?? false }
            #expect(spine?.orientation == "up", "\(line.text) at \(line.box) on \(spine?.title ?? "no spine")")
        }
        // Each sure tall line of the photo's own pass says which way it is printed (the angle
        // classifier turned it 180° to read it, or not): the way its labelled spine is printed (105 lines).
        let tall = lines.filter { !$0.readTurned && $0.confidence >= 90 && 2 * $0.box.height >= 3 * $0.box.width }
        #expect(tall.count >= 90 && tall.contains(where: \.readsUp) && tall.contains { !$0.readsUp })
        for line in tall {
            let spine = shelf.books.first { HardShelfSegmentationTests.span($0.quad, atY: line.box.centerY)?.contains(line.box.centerX) ?? false }
            #expect(spine == nil || (spine?.orientation == "up") == line.readsUp, "\(line.text) at \(line.box) on \(spine?.title ?? "no spine")")
        }
    }

    /// A real library shelf of Chinese spines printed in stacked upright characters: PP-OCR reads
    /// the columns, and its readings reach the matcher (they had been dropped as vowel-less texture).
    @Test(.enabled(if: workerExpected && SharedFiles.available, notInstalled))
    func stackedChineseTitlesOfARealShelfReachTheMatcher() async throws {
        let labels = try #require(SharedFiles.fixture("shelves/labels.json"))
        let name = "dianaaaa_img09_library_bigdata_zh.jpg"
        struct Shelf: Decodable { struct Book: Decodable { var title: String }; var books: [Book] }
        let shelf = try #require(try JSONDecoder().decode([String: Shelf].self, from: Data(contentsOf: labels))[name])
        let readings = try await Self.readRealShelf(name)
        let read = readings.flatMap { [$0.text] + $0.alternatives }.map { $0.filter(\.isHanOrKana) }
        let titles = shelf.books.map { $0.title.filter(\.isHanOrKana) }.filter { $0.count >= 4 }
        let seen = titles.filter { title in read.contains { $0.contains(title) } }
        // Before, only titles with Latin letters beside them (HADOOP生态系统) reached it.
        for title in ["大数据处理平台能耗优化方法的研究", "大数据背后的核心技术", "基于模糊信息的应用技术研究", "菜鸟侦探挑战数据分析"] {
            #expect(seen.contains(title), "\(title) not among \(read)")
        }
        #expect(seen.count >= 14, "\(seen.count) of \(titles.count): \(read)")
    }

    @Test(.enabled(if: workerExpected, notInstalled)) func aWorkerThatStoppedIsStartedAgain() throws {
        let python = try #require(SceneTextReader.locatePython(), "PP-OCR is not installed: run scripts/setup")
        let reader = try SceneTextReader(python: python)
        let first = try #require(reader.processIdentifier)
        kill(first, SIGKILL)
        // Wait until the process is gone (at most 5 s).
        for _ in 0..<50 where kill(first, 0) == 0 { usleep(100_000) }
        let image = GrayImage(width: 200, height: 100, pixels: [UInt8](repeating: 255, count: 200 * 100))
        #expect(try reader.lines(in: image, name: "after.png").lines.isEmpty)
        #expect(reader.processIdentifier != first)
    }

    /// The timeout counts the worker's CPU, not the clock: a worker slowed down (here it works a
    /// little, then sleeps, for about 3 s) is waited for past a 1.5 s timeout while it keeps using
    /// CPU (on a loaded machine a clock timeout dropped whole photos' PP-OCR lines).
    @Test func aSlowWorkerThatKeepsWorkingIsWaitedFor() throws {
        let slow = FileManager.default.temporaryDirectory.appendingPathComponent("slow-worker-\(UUID().uuidString).sh")
        let work = "i=0; while [ $i -lt 10000 ]; do i=$((i+1)); done; sleep 0.25"
        try "#!/bin/sh\necho '{\"ready\": true}'\nread request\nfor n in 1 2 3 4 5 6 7 8 9 10 11 12; do \(work); done\necho '{\"lines\": [[\"SLOW\", 0.9, 1, 2, 30, 12]], \"cpu\": 0.2}'\nread request\n"
            .write(to: slow, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: slow) }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: slow.path)
        let reader = try SceneTextReader(python: slow.path, timeoutSeconds: 1.5)
        let image = GrayImage(width: 200, height: 100, pixels: [UInt8](repeating: 255, count: 200 * 100))
        let start = Date()
        let read = try reader.lines(in: image, name: "slow.jpg")
        #expect(read.lines.map(\.text) == ["SLOW"])
        #expect(Date().timeIntervalSince(start) > 1.5)
    }

    /// What runs at exit stops every worker and waits for it: gone, not a zombie (its CPU is this
    /// process's), and forgotten.
    @Test(.enabled(if: workerExpected, notInstalled)) func workersAreStoppedAndWaitedForAtExit() throws {
        let python = try #require(SceneTextReader.locatePython(), "PP-OCR is not installed: run scripts/setup")
        let reader = try SceneTextReader(python: python)
        let pid = try #require(reader.processIdentifier)
        #expect(SceneTextReader.running.withLock { $0[pid] != nil })
        SceneTextReader.stopRunningWorkers()
        // kill(pid, 0) answers for a zombie too: ESRCH means it was reaped.
        let reaped = kill(pid, 0) == -1 && errno == ESRCH
        #expect(reaped)
        #expect(SceneTextReader.running.withLock { $0[pid] == nil })
        // The reader starts a new worker for its next image.
        let image = GrayImage(width: 200, height: 100, pixels: [UInt8](repeating: 255, count: 200 * 100))
        #expect(try reader.lines(in: image, name: "after.png").lines.isEmpty)
        #expect(reader.processIdentifier != pid)
    }

    /// The detector sees the photo at the long side asked for (RapidOCR 1.4.4 chose 2000 px itself
    /// for any image of 1500 px or more): a real 2774 px shelf detected at 400 px holds few of the
    /// lines it holds at 2000.
    @Test(.enabled(if: workerExpected && SharedFiles.available, notInstalled))
    func theDetectorReadsAtTheSizeAskedFor() throws {
        let python = try #require(SceneTextReader.locatePython(), "PP-OCR is not installed: run scripts/setup")
        let name = "minhan_img1539_bottom_shelf.jpg"
        let photo = try Self.realShelf(name)
        #expect(photo.width >= 2000)
        let whole = try SceneTextReader(python: python, detectionLongSide: 2000).lines(in: photo, name: name).lines
        let small = try SceneTextReader(python: python, detectionLongSide: 400).lines(in: photo, name: name).lines
        #expect(whole.count >= 20, "\(whole.map(\.text))")
        #expect(small.count * 2 < whole.count, "\(small.count) lines at 400 px, \(whole.count) at 2000")
    }

    /// A spine strip in which the whole photo's passes read a line but no sure one (or sure lines
    /// covering under a third of it) is read on its own (cut out, turned down, 64 px across, detector
    /// and recogniser): on a real tuning shelf a title no line of the photo holds is read from its
    /// strip, each strip line lies in a strip some line lies in and sure lines cover under a third
    /// of, and the photo's own lines are the same with it or without.
    @Test(.enabled(if: workerExpected && SharedFiles.available, notInstalled))
    func aStripNoSureLineLiesInIsReadOnItsOwn() throws {
        let python = try #require(SceneTextReader.locatePython(), "PP-OCR is not installed: run scripts/setup")
        let name = "minhan_img1346_top_shelf.jpg"
        let photo = try Self.realShelf(name)
        let strips = SpineStrips.strips(in: photo)
        let plain = try SceneTextReader(python: python, readsUnreadTurned: true).lines(in: photo, name: name, strips: strips).lines
        let reader = try SceneTextReader(python: python, readsUnreadTurned: true, unreadStripLimit: 16)
        let read = try reader.lines(in: photo, name: name).lines
        // Asked for on their own after the photo's lines, as `ShelfOCR` does while Tesseract reads.
        let fromStrips = try reader.stripLines(strips, name: name).lines
        #expect(read == plain)
        #expect(plain.allSatisfy { $0.stripTurn == nil })
        #expect(fromStrips.allSatisfy { $0.stripTurn != nil })
        let sure = plain.filter { line in line.confidence >= 90 && line.text.filter { $0.isLetter || $0.isNumber }.count >= 5 }
        for line in fromStrips {
            #expect(strips.contains(line.box), "\(line.box)")
            let strip = SpineStrip(line.box)
            // A strip a sure line lies in is read only when its sure lines cover under a third of its length.
            let sureInside = sure.filter { strip.contains(x: $0.box.centerX, y: $0.box.centerY) }
            let covered = sureInside.reduce(0) { $0 + min($1.box.y1, line.box.y1) - max($1.box.y0, line.box.y0) }
            #expect(3 * covered < line.box.height, "\(line.text) in a strip sure lines cover \(covered) of \(line.box.height)")
            #expect(plain.contains { strip.contains(x: $0.box.centerX, y: $0.box.centerY) }, "\(line.text) in a strip no line lies in")
        }
        // *Pilar Ramirez and the Escape from Zafa*: the photo's lines hold `PILARRAMIREZ ROHESCRPE`, its strip `FROM ZAFA`.
        let title = "ZAFA"
        #expect(!plain.contains { $0.text.uppercased().contains(title) }, "\(plain.map(\.text))")
        #expect(fromStrips.contains { $0.text.uppercased().contains(title) }, "\(fromStrips.map(\.text))")
        // *Clown in a Cornfield*: the photo's lines hold `CLOWN INA` (sure) and `CO`; its strip, read though a sure
        // line lies in it (the line covers little of it), the rest of the title.
        #expect(!plain.contains { $0.text.uppercased().contains("FIELD") }, "\(plain.map(\.text))")
        #expect(fromStrips.contains { $0.text.uppercased().contains("FIELD") }, "\(fromStrips.map(\.text))")
        // The worker is shared: once another photo is read, this one's strips are not read from
        // that photo's pixels (another photo's text would be this shelf's), and the other's are.
        let blank = GrayImage(width: photo.width, height: photo.height, pixels: [UInt8](repeating: 200, count: photo.width * photo.height))
        _ = try reader.lines(in: blank, name: "another.jpg")
        #expect(try reader.stripLines(strips, name: name).lines.isEmpty)
        _ = try reader.lines(in: photo, name: name)
        #expect(try reader.stripLines(strips, name: name).lines.contains { $0.text.uppercased().contains(title) })
    }

    /// A real shelf photo of ../shared/fixtures/shelves at the reader's working size.
    static func realShelf(_ name: String) throws -> GrayImage {
        let labels = try #require(SharedFiles.fixture("shelves/labels.json"))
        let ocr = try ShelfOCR(options: TesseractOptions())
        let data = try Data(contentsOf: labels.deletingLastPathComponent().appendingPathComponent(name))
        return try ocr.workingImage(ocr.decode(data: data, name: name), name: name)
    }

    /// An interpreter that says it is ready and then stops on every request.
    /// Each start appends a line to `log`.
    static func stoppingWorker(log: String = "/dev/null") throws -> String {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("stopping-worker-\(UUID().uuidString).sh")
        try "#!/bin/sh\necho started >> '\(log)'\necho '{\"ready\": true}'\nread request\nexit 0\n"
            .write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        return script.path
    }

    @Test func aWorkerThatHangsIsStoppedAfterItsTimeout() throws {
        let folder = FileManager.default.temporaryDirectory
        let hanging = folder.appendingPathComponent("hanging-worker-\(UUID().uuidString).sh")
        try "#!/bin/sh\necho '{\"ready\": true}'\nread request\nexec sleep 60\n".write(to: hanging, atomically: true, encoding: .utf8)
        let silent = folder.appendingPathComponent("silent-worker-\(UUID().uuidString).sh")
        try "#!/bin/sh\nexec sleep 60\n".write(to: silent, atomically: true, encoding: .utf8)
        defer { for file in [hanging, silent] { try? FileManager.default.removeItem(at: file) } }
        for file in [hanging, silent] { try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path) }

        let reader = try SceneTextReader(python: hanging.path, timeoutSeconds: 1)
        let image = GrayImage(width: 200, height: 100, pixels: [UInt8](repeating: 255, count: 200 * 100))
        let start = Date()
        #expect(throws: TesseractError.sceneTextFailed(file: "hung.jpg", reason: "the PP-OCR worker answered nothing in 1 s")) {
            _ = try reader.lines(in: image, name: "hung.jpg")
        }
        #expect(Date().timeIntervalSince(start) < 10)
        // The next image gets a new worker (which hangs again here).
        #expect(throws: TesseractError.self) { _ = try reader.lines(in: image, name: "next.jpg") }
        // One that never says it is ready is refused the same way.
        #expect(throws: TesseractError.sceneTextUnavailable(python: silent.path, reason: "the PP-OCR worker answered nothing in 1 s")) {
            _ = try SceneTextReader(python: silent.path, timeoutSeconds: 1)
        }
    }

    @Test func aWorkerThatStopsOnAPhotoLeavesThatPhotoToTesseract() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("worker-starts-\(UUID().uuidString).log").path
        let script = try Self.stoppingWorker(log: log)
        defer { for file in [script, log] { try? FileManager.default.removeItem(atPath: file) } }
        let reader = try SceneTextReader(python: script)
        let image = GrayImage(width: 200, height: 100, pixels: [UInt8](repeating: 255, count: 200 * 100))
        #expect {
            _ = try reader.lines(in: image, name: "shelf-03.jpg")
        } throws: { error in
            guard case TesseractError.sceneTextFailed(let file, _) = error else { return false }
            return file == "shelf-03.jpg" && (error as! TesseractError).description.hasPrefix("shelf-03.jpg: PP-OCR")
        }
        // The photo is still read, by Tesseract's own turns, and its spines found.
        var options = TesseractOptions()
        options.sceneTextPython = script
        options.readsStrips = false
        let ocr = try ShelfOCR(options: options)
        let data = try Data(contentsOf: RenderedShelfTests.folder.appendingPathComponent("shelf-03.jpg"))
        let image3 = try ocr.workingImage(ocr.decode(data: data, name: "shelf-03.jpg"), name: "shelf-03.jpg")
        let passes = try ocr.recognize(image3, name: "shelf-03.jpg")
        #expect(Set(passes.map(\.rotation)) == Set(options.rotations))
        #expect(ocr.assemble(passes, image: image3).spines.count >= 5)
        // After three photos in a row the worker is no longer asked: no new worker is started.
        let small = try ocr.workingImage(GrayImage(width: 300, height: 200, pixels: [UInt8](repeating: 255, count: 300 * 200)), name: "blank")
        func starts() throws -> Int { try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").count }
        let first = try starts()
        for _ in 0..<3 { _ = try ocr.recognize(small, name: "blank.jpg") }
        // One start for each of the next two photos, none for the fourth.
        #expect(try starts() == first + 2)
    }

    /// The worker's start-up (its model load) is paid once per reader, so once per `spines` process
    /// (SpinesCommand makes one reader): a worker that answers every request is started once for
    /// the reader and asked for each photo, never started again.
    @Test func oneWorkerReadsEveryPhotoOfAReader() throws {
        let folder = FileManager.default.temporaryDirectory
        let log = folder.appendingPathComponent("worker-starts-\(UUID().uuidString).log").path
        let script = folder.appendingPathComponent("answering-worker-\(UUID().uuidString).sh")
        try "#!/bin/sh\necho started >> '\(log)'\necho '{\"ready\": true}'\nwhile read request; do echo asked >> '\(log)'; echo '{\"lines\": [], \"cpu\": 0.01}'; done\n"
            .write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        defer { for file in [script.path, log] { try? FileManager.default.removeItem(atPath: file) } }
        var options = TesseractOptions()
        options.sceneTextPython = script.path
        options.readsStrips = false
        options.rotations = [.clockwise270]
        let ocr = try ShelfOCR(options: options)
        let photo = try ocr.workingImage(GrayImage(width: 300, height: 200, pixels: [UInt8](repeating: 255, count: 300 * 200)), name: "blank")
        for number in 0..<3 { _ = try ocr.recognize(photo, name: "photo-\(number).jpg") }
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.filter { $0 == "started" }.count == 1, "\(lines)")
        #expect(lines.filter { $0 == "asked" }.count == 3, "\(lines)")
    }

    @Test(.enabled(if: workerExpected && SharedFiles.available, notInstalled))
    func renderedShelvesReadByPPOCRAloneAddNoWrongBook() async throws {
        let python = try #require(SceneTextReader.locatePython(), "PP-OCR is not installed: run scripts/setup")
        let manifest = try RenderedShelfTests.manifest()
        let index = try RenderedShelfTests.catalogue()
        let matcher = SpineMatcher()
        var options = TesseractOptions(deadlineMilliseconds: 0)
        options.budgetMilliseconds = 0
        options.sceneTextPython = python
        // PP-OCR's own reading: Tesseract's strips (which RenderedShelfTests reads) left out.
        options.readsStrips = false
        let reader = try TesseractSpineReader(options: options)
        #expect(reader.identity.hasSuffix("+ppocr2"))
        var expected = 0, found = 0, wrong: [String] = []
        for name in manifest.keys.sorted() {
            let data = try Data(contentsOf: RenderedShelfTests.folder.appendingPathComponent(name))
            let reading = try await reader.readSpines(in: ShelfPhoto(path: name, data: data))
            var open = manifest[name]!.books
            for spine in reading.readings {
                let result = matcher.match(spine, index: index)
                guard result.decision != .none, let book = result.best else { continue }
                if let position = open.firstIndex(where: { RenderedShelfTests.key($0.title) == RenderedShelfTests.key(book.title) }) {
                    open.remove(at: position)
                    found += 1
                } else if result.decision == .strong {
                    wrong.append("\(name): '\(spine.text)' -> \(book.title)")
                }
            }
            expected += manifest[name]!.books.count
        }
        // 129 of 130 when written (Tesseract with its strips: 122).
        #expect(Double(found) >= 0.9 * Double(expected), "found \(found) of \(expected) spines")
        #expect(wrong.isEmpty, "wrong or doubled: \(wrong)")
    }
}
