import Foundation
import Imaging
import Synchronization

/// One line of text the scene-text reader found: what it says, how sure the recogniser was
/// (0–100), and its axis-aligned box in the image read.
public struct SceneTextLine: Sendable, Hashable, Codable {
    public var text: String
    public var confidence: Double
    public var box: Box
    /// Read in the photo turned 90° clockwise, where a spine printed bottom-to-top stands upright
    /// (`SceneTextReader.readsUnreadTurned`); its box is still the photo's.
    public var readTurned: Bool
    /// Read from a spine strip where a line but no sure one lay, cut out and read on its own, printed this way
    /// (`SceneTextReader.unreadStripLimit`); its box is the strip's.
    public var stripTurn: SpineRotation?
    /// A tall line of the photo's own pass the angle classifier turned 180° to read it: printed
    /// bottom-to-top. Lines printed the other way are not one spine's (`passes(from:)`).
    public var readsUp: Bool
    public init(text: String, confidence: Double, box: Box, readTurned: Bool = false, stripTurn: SpineRotation? = nil,
                readsUp: Bool = false) {
        self.text = text
        self.confidence = confidence
        self.box = box
        self.readTurned = readTurned
        self.stripTurn = stripTurn
        self.readsUp = readsUp
    }
}

/// PP-OCRv4 — PaddleOCR's text detector (a segmentation network: text at any place, size and
/// orientation, vertical spine titles included) and its recogniser (a CRNN trained on scene
/// text: display lettering Tesseract reads nothing from) — as RapidOCR's ONNX build, in a
/// Python worker process started once per reader. `scripts/setup` installs it pinned into
/// `.ppocr-venv`. The worker is a seam, not a dependency: without it spines are read by
/// Tesseract alone, as before.
///
/// On the real shelf photos one pass of it over the working image found 109 of 199 spines
/// with the same grouping and matcher (Tesseract's three turns, strips and 1 MP turns: 120);
/// with Tesseract's spine strips and its 270° turn 128–130.
public final class SceneTextReader: @unchecked Sendable {
    public let python: String
    public let detectionLongSide: Int
    public let timeoutSeconds: Double
    /// Tall lines recognised under this score (0–1) are recognised again turned 180° and the
    /// surer reading kept (0: never, the default). RapidOCR turns a tall crop one way and its
    /// angle classifier flips it only when sure. PP-OCR alone, titles among its lines: rendered
    /// hard shelves' tuning half (hard-01/02, 204 spines) 186 -> 190 at 0.75 once lines are read
    /// at the working size (checking half 127 -> 132), for 17–25% more of the worker's CPU; real
    /// checking photos 69 -> 69 (+2.6 s CPU on the two dense ones). Off: the CPU is the strips' budget.
    public let turnsUnsureTallLinesBelow: Double
    /// The photo is also read turned 90° clockwise, where a spine printed bottom-to-top stands
    /// upright, and only where no sure line was read (a line scored 0.9 or more, 5+ letters or
    /// digits): the turned copy's lines are detected, those lying in a sure line dropped, and the
    /// rest recognised when the angle classifier keeps them as they stand (a line it turns 180°
    /// is a top-to-bottom spine the first pass reads the right way up). Rendered hard shelves,
    /// titles no line held: bottom-to-top 15 of 154 -> 0 with the whole turned photo read; the
    /// worker's CPU +45–120% on the real photos (detecting the turned copy); under load 19 the longer
    /// read passed the 120 s timeout. `spines` turns it on unless `[vision] ppocrTurned = false`
    /// (`VisionConfig.ppocrTurnedByDefault`: measured end to end, stop 37).
    public let readsUnreadTurned: Bool
    /// Spine strips found in the pixels (`SpineStrips`) where the passes above read a line but no
    /// sure one are each cut out, turned as a top-to-bottom spine reads, scaled to 64 px across and
    /// read on their own (detector, angle classifier, recogniser; lines at 0.5 or more): at most
    /// this many strips a photo, in shelf order (0: none). A strip where nothing was outlined is
    /// left: reading every strip with no sure line cost ~4 s more CPU a photo for 3 more titles of
    /// 47 on the real shelves (stop 40). The spines no pass read were mostly
    /// never outlined by the detector in the whole photo (stop 39); in a strip alone, at a larger
    /// scale, it outlines some (docs/PERFORMANCE.md, stop 40). The recogniser alone on a whole
    /// strip (no detector) read 2 of 40 such titles. Then, in the slots left, strips whose sure
    /// lines cover under a third of their length (stop 45: `CLOWN INA` `CO` and the rest of its
    /// title never outlined in the whole photo): real checking 65 -> 68 of 99, tuning 64 -> 65.
    /// `spines` sets it from `[vision] ppocrStrips`.
    public let unreadStripLimit: Int
    /// One request at a time: the worker answers in order, and uses every core itself. nil
    /// after it stopped: the next request starts a new one.
    private let worker: Mutex<Worker?>

    /// A running worker process and the unread bytes of its answers.
    struct Worker {
        var process: Process
        var requests: FileHandle
        var replies: FileHandle
        var buffer = Data()

        /// Stops the worker and waits until it is gone, so its CPU is this process's and it
        /// outlives nothing: with its requests closed an idle worker leaves by itself; one still
        /// reading is terminated after `patience` seconds, killed after as many more.
        func stop(patience: Double = 1) {
            try? requests.close()
            SceneTextReader.running.withLock { _ = $0.removeValue(forKey: process.processIdentifier) }
            for signal in [SIGTERM, SIGKILL] {
                let deadline = Date().addingTimeInterval(patience)
                while process.isRunning, Date() < deadline { usleep(5_000) }
                guard process.isRunning else { return }
                kill(process.processIdentifier, signal)
            }
            process.waitUntilExit()
        }
    }

    /// Every worker this process started and has not stopped. `exit()` runs no deinit: the
    /// workers left are stopped and waited for at exit (registered with the first worker).
    static let running = Mutex<[Int32: Worker]>([:])
    private static let stopsWorkersAtExit: Void = { atexit { SceneTextReader.stopRunningWorkers() } }()

    /// Stops every worker still running and waits for each (what runs at exit).
    static func stopRunningWorkers() {
        for worker in running.withLock({ Array($0.values) }) { worker.stop() }
    }

    /// Starts the worker and waits until its models are loaded (~0.3 s); a Python without
    /// RapidOCR, or one that cannot start, is an error naming the interpreter and the cause.
    /// `detectionLongSide`: the detector sees the image scaled so its long side is at most this
    /// (recognition still reads the lines from the full image). 2000 is what RapidOCR 1.4.4 used
    /// whatever it was asked (stops 33–36 compared one size); honoured, 1600 read 26 of the dense
    /// minhan_img1538's 47 titles where 2000 read 32, and the whole working image (2581 px) took
    /// clara's photo from 10.1 to 16.0 s of the worker's CPU (stop 38, docs/PERFORMANCE.md).
    /// `timeoutSeconds`: how much CPU the worker may use to load its models or to read one image
    /// (a real photo: 3–13 s), or how long it may use none, before it is stopped and that image
    /// left to Tesseract.
    public init(python: String, detectionLongSide: Int = 2000, timeoutSeconds: Double = 120,
                turnsUnsureTallLinesBelow: Double = 0, readsUnreadTurned: Bool = false, unreadStripLimit: Int = 0) throws(TesseractError) {
        self.python = python
        self.detectionLongSide = detectionLongSide
        self.timeoutSeconds = timeoutSeconds
        self.turnsUnsureTallLinesBelow = turnsUnsureTallLinesBelow
        self.readsUnreadTurned = readsUnreadTurned
        self.unreadStripLimit = unreadStripLimit
        worker = Mutex(try Self.start(python: python, detectionLongSide: detectionLongSide, timeoutSeconds: timeoutSeconds,
                                      turnsBelow: turnsUnsureTallLinesBelow, readsTurned: readsUnreadTurned, stripLimit: unreadStripLimit))
    }

    deinit {
        worker.withLock { $0?.stop() }
    }

    /// The worker's process id (tests stop it to see it restarted).
    var processIdentifier: Int32? { worker.withLock { $0?.process.processIdentifier } }

    private static func start(python: String, detectionLongSide: Int, timeoutSeconds: Double,
                              turnsBelow: Double, readsTurned: Bool, stripLimit: Int) throws(TesseractError) -> Worker {
        // A worker that dies must not take rapidscan with it when a request is written to it.
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-u", "-c", Self.workerSource, String(detectionLongSide), String(turnsBelow), readsTurned ? "1" : "0",
                             String(stripLimit)]
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        process.environment = environment
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch {
            throw .sceneTextUnavailable(python: python, reason: error.localizedDescription)
        }
        var worker = Worker(process: process, requests: input.fileHandleForWriting, replies: output.fileHandleForReading)
        _ = Self.stopsWorkersAtExit
        Self.running.withLock { $0[process.processIdentifier] = worker }
        let greeting: [String: Any]
        do { greeting = try nextReply(from: worker.replies, buffer: &worker.buffer, worker: process.processIdentifier, seconds: timeoutSeconds) } catch {
            worker.stop()
            guard case .sceneTextFailed(_, let reason) = error, reason != "the PP-OCR worker stopped" else {
                throw .sceneTextUnavailable(python: python, reason: "the worker stopped before it was ready")
            }
            throw .sceneTextUnavailable(python: python, reason: reason)
        }
        guard greeting["ready"] as? Bool == true else {
            worker.stop()
            throw .sceneTextUnavailable(python: python, reason: greeting["error"] as? String ?? "no greeting")
        }
        return worker
    }

    /// The lines of text in a gray image, and the worker's CPU milliseconds (all its threads);
    /// with `unreadStripLimit`, also the lines of each of `strips` (boxes in the image) where its
    /// passes read a line but no sure one (`stripLines`, asked for at once here). A worker that stopped is
    /// started again first; one that stops on this image is an error for this image only.
    public func lines(in image: GrayImage, name: String, strips: [Box] = []) throws(TesseractError) -> (lines: [SceneTextLine], milliseconds: Int) {
        let read = try lines(in: image, name: name)
        let fromStrips = try stripLines(strips, name: name)
        return (read.lines + fromStrips.lines, read.milliseconds + fromStrips.milliseconds)
    }

    /// The lines of text in a gray image (the photo's passes: no strip), and the worker's CPU milliseconds.
    public func lines(in image: GrayImage, name: String) throws(TesseractError) -> (lines: [SceneTextLine], milliseconds: Int) {
        // The pixels go through a private temporary file: megabytes, not a pipe's JSON.
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("rapidscan-scenetext-\(getpid())-\(UUID().uuidString).gray")
        defer { try? FileManager.default.removeItem(at: file) }
        // Readable by this user only: a photo of someone's home.
        let written = image.pixels.withUnsafeBytes {
            FileManager.default.createFile(atPath: file.path, contents: Data($0), attributes: [.posixPermissions: 0o600])
        }
        guard written else {
            throw .sceneTextFailed(file: name, reason: "could not write a temporary image in \(file.deletingLastPathComponent().path)")
        }
        guard let reply = try ask(["path": file.path, "width": image.width, "height": image.height, "name": name], name: name,
                                  restarting: true) else {
            throw .sceneTextFailed(file: name, reason: "the PP-OCR worker did not start")
        }
        // [text, score, x0, y0, x1, y1] and, for the photo's own lines, 1 when read turned 180° (printed bottom-to-top).
        let parsed = { (row: [Any], turned: Bool) -> SceneTextLine? in
            guard row.count == 6 || row.count == 7, let text = row[0] as? String, let score = row[1] as? Double else { return nil }
            let numbers = row[2..<6].compactMap { ($0 as? Double).map { Int($0.rounded()) } }
            guard numbers.count == 4 else { return nil }
            return SceneTextLine(text: text, confidence: score * 100,
                                 box: Box(x0: numbers[0], y0: numbers[1], x1: numbers[2], y1: numbers[3]), readTurned: turned,
                                 readsUp: row.count == 7 && (row[6] as? NSNumber)?.intValue == 1)
        }
        let lines = (reply["lines"] as? [[Any]] ?? []).compactMap { parsed($0, false) }
            + (reply["turned"] as? [[Any]] ?? []).compactMap { parsed($0, true) }
        return (lines, Int(((reply["cpu"] as? Double) ?? 0) * 1000))
    }

    /// The lines read from `strips` (boxes in the image `name` last read by `lines(in:name:)`) where
    /// its lines hold one but no sure one, at most `unreadStripLimit` strips; each line's box is its
    /// strip's. A separate request, so the caller can run Tesseract meanwhile (the worker reads
    /// strips with one thread). None without `unreadStripLimit`, when the worker stopped since, or
    /// when it has read another photo since (the worker is shared: never another photo's text).
    public func stripLines(_ strips: [Box], name: String) throws(TesseractError) -> (lines: [SceneTextLine], milliseconds: Int) {
        guard unreadStripLimit > 0, !strips.isEmpty else { return ([], 0) }
        guard let reply = try ask(["strips": strips.map { [$0.x0, $0.y0, $0.x1, $0.y1] }, "of": name], name: name,
                                  restarting: false) else { return ([], 0) }
        // A strip's line: [strip index, "down" or "up", text, score], in reading order.
        let lines = (reply["strips"] as? [[Any]] ?? []).compactMap { row -> SceneTextLine? in
            guard row.count == 4, let index = (row[0] as? NSNumber)?.intValue, strips.indices.contains(index),
                  let direction = row[1] as? String, let text = row[2] as? String, let score = row[3] as? Double else { return nil }
            return SceneTextLine(text: text, confidence: score * 100, box: strips[index],
                                 stripTurn: direction == "up" ? .clockwise90 : .clockwise270)
        }
        return (lines, Int(((reply["cpu"] as? Double) ?? 0) * 1000))
    }

    /// One request to the worker and its answer (an answer that is an error is thrown). A worker
    /// that stopped is started again when `restarting`, else nothing is asked (nil): a new worker
    /// has no photo to read strips of.
    private func ask(_ request: [String: Any], name: String, restarting: Bool) throws(TesseractError) -> [String: Any]? {
        var line: Data
        do { line = try JSONSerialization.data(withJSONObject: request) } catch {
            throw .sceneTextFailed(file: name, reason: "could not encode the request")
        }
        line.append(UInt8(ascii: "\n"))
        let (python, longSide, timeout, turnsBelow, readsTurned, stripLimit) = (self.python, self.detectionLongSide, self.timeoutSeconds,
                                                                                 self.turnsUnsureTallLinesBelow, self.readsUnreadTurned,
                                                                                 self.unreadStripLimit)
        let reply: [String: Any]?
        do throws(TesseractError) {
            reply = try worker.withLock { worker throws(TesseractError) -> [String: Any]? in
                if worker == nil || worker?.process.isRunning != true {
                    guard restarting else { return nil }
                    worker?.stop()
                    worker = try Self.start(python: python, detectionLongSide: longSide, timeoutSeconds: timeout, turnsBelow: turnsBelow,
                                            readsTurned: readsTurned, stripLimit: stripLimit)
                }
                guard var running = worker else { throw .sceneTextFailed(file: name, reason: "the PP-OCR worker did not start") }
                // A worker that failed is stopped and forgotten: the next image starts a new one.
                var failed = false
                defer {
                    if failed { running.stop() }
                    worker = failed ? nil : running
                }
                do { try running.requests.write(contentsOf: line) } catch {
                    failed = true
                    throw .sceneTextFailed(file: name, reason: "the PP-OCR worker took no request")
                }
                do throws(TesseractError) {
                    return try Self.nextReply(from: running.replies, buffer: &running.buffer, worker: running.process.processIdentifier,
                                                  seconds: timeout)
                } catch {
                    failed = true
                    throw error
                }
            }
        } catch {
            switch error {
            case .sceneTextFailed(let file, let reason) where file.isEmpty: throw .sceneTextFailed(file: name, reason: reason)
            case .sceneTextUnavailable(_, let reason): throw .sceneTextFailed(file: name, reason: "the PP-OCR worker did not start again: \(reason)")
            default: throw error
            }
        }
        if let message = reply?["error"] as? String { throw .sceneTextFailed(file: name, reason: message) }
        return reply
    }

    /// One JSON object per line from the worker; the bytes after it stay in `buffer`. The worker
    /// may use `seconds` of CPU on it, and may go `seconds` without using any: its CPU time, not
    /// the clock, so a loaded machine that slows the worker down does not lose the photo (at load
    /// 12–23 a 120 s clock dropped whole photos' PP-OCR lines: stop 38), and one that hangs is
    /// still stopped. Where /proc cannot be read, the clock decides.
    private static func nextReply(from handle: FileHandle, buffer: inout Data, worker: Int32,
                                  seconds: Double) throws(TesseractError) -> [String: Any] {
        let start = cpuSeconds(of: worker)
        var lastCPU = start, lastProgress = Date()
        while true {
            if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<end]
                buffer = Data(buffer[buffer.index(after: end)...])
                guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any] else {
                    throw .sceneTextFailed(file: "", reason: "the PP-OCR worker answered something that is not JSON")
                }
                return object
            }
            // A worker that hangs must not hang the batch: its bytes are waited for a second at a time.
            var ready = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let slice = Int32(max(1, min(1000, seconds * 1000)))
            if poll(&ready, 1, slice) > 0 {
                let more = handle.availableData
                guard !more.isEmpty else { throw .sceneTextFailed(file: "", reason: "the PP-OCR worker stopped") }
                buffer.append(more)
                if buffer.contains(UInt8(ascii: "\n")) { continue }
            }
            let now = cpuSeconds(of: worker)
            if let now, now != lastCPU {
                lastCPU = now
                lastProgress = Date()
            }
            if let start, let now, now - start > seconds {
                throw .sceneTextFailed(file: "", reason: "the PP-OCR worker used \(Int(seconds)) s of CPU and answered nothing")
            }
            if Date().timeIntervalSince(lastProgress) >= seconds {
                throw .sceneTextFailed(file: "", reason: "the PP-OCR worker answered nothing in \(Int(seconds)) s")
            }
        }
    }

    /// The CPU seconds a process has used, all its threads (/proc/PID/stat's utime + stime);
    /// nil where it cannot be read. Then `nextReply` counts the clock from the start instead.
    static func cpuSeconds(of process: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8),
              let name = stat.lastIndex(of: ")") else { return nil }
        // After the name: state, ppid, pgrp, session, tty, tpgid, flags, 4 fault counts, utime, stime.
        let fields = stat[stat.index(after: name)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Lines → the passes the grouping reads. PP-OCR reads vertical text itself (a tall box is
    /// turned before recognition), so one pass over the upright photo reads every spine: its
    /// tall lines are placed in the 270° turn's frame (x running down the photo), as if read
    /// turned, and the rest stay at 0° (books lying flat, words across a wide spine). Lines read
    /// in the photo turned clockwise (bottom-to-top spines) are placed in the 90° turn's frame,
    /// a pass of their own: merged with the first pass's reading of the same place, not grouped
    /// into it. Tall lines printed bottom-to-top (`readsUp`) are a 270° pass of their own as well:
    /// one spine's lines run one way, and two neighbours printed opposite ways whose common side
    /// shows no break in gray (blue beside purple) had been joined into one reading (rendered hard
    /// shelves: `Lisa Kleypas Again the Magic Faking It Jennifer Crusie`). A line read from a spine
    /// strip alone is a strip's pass, as Tesseract's strip readings are (its noise rules, its
    /// place). A line's words share its box in proportion to their letters.
    public static func passes(from lines: [SceneTextLine], imageWidth: Int, imageHeight: Int, milliseconds: Int,
                              isDictionaryWord: (String) -> Bool) -> [OCRPass] {
        var turned: [OCRWord] = [], turnedUp: [OCRWord] = [], upright: [OCRWord] = [], turnedBack: [OCRWord] = []
        // A strip's lines read one way: one pass, as Tesseract's strip readings are.
        var strips: [OCRPass] = []
        for (index, line) in lines.enumerated() {
            let box = line.box
            if let turn = line.stripTurn {
                let words = Self.words(of: line.text, confidence: line.confidence, line: index, box: box, isDictionaryWord: isDictionaryWord)
                if let pass = strips.firstIndex(where: { $0.strip == box && $0.rotation == turn }) {
                    strips[pass].words += words
                } else {
                    strips.append(OCRPass(rotation: turn, words: words, strip: box, milliseconds: 0))
                }
                continue
            }
            let vertical = 2 * box.height >= 3 * box.width
            let along = line.readTurned ? Box(x0: imageHeight - box.y1, y0: box.x0, x1: imageHeight - box.y0, y1: box.x1)
                : vertical ? Box(x0: box.y0, y0: imageWidth - box.x1, x1: box.y1, y1: imageWidth - box.x0) : box
            let words = Self.words(of: line.text, confidence: line.confidence, line: index, box: along,
                                   isDictionaryWord: isDictionaryWord)
            switch (line.readTurned, vertical, line.readsUp) {
            case (true, _, _): turnedBack += words
            case (false, true, true): turnedUp += words
            case (false, true, false): turned += words
            case (false, false, _): upright += words
            }
        }
        // The worker's CPU is split between the passes it made.
        var passes = [OCRPass(rotation: .clockwise270, words: turned, milliseconds: milliseconds / 2),
                      OCRPass(rotation: .none, words: upright, milliseconds: milliseconds - milliseconds / 2)]
        if !turnedUp.isEmpty { passes.append(OCRPass(rotation: .clockwise270, words: turnedUp, milliseconds: 0)) }
        if !turnedBack.isEmpty { passes.append(OCRPass(rotation: .clockwise90, words: turnedBack, milliseconds: 0)) }
        return passes + strips
    }

    static func words(of text: String, confidence: Double, line: Int, box: Box,
                      isDictionaryWord: (String) -> Bool) -> [OCRWord] {
        let characters = Array(text)
        let count = max(1, characters.count)
        var words: [OCRWord] = []
        var start: Int?
        for index in 0...characters.count {
            let isSpace = index == characters.count || characters[index].isWhitespace
            if !isSpace, start == nil { start = index }
            guard isSpace, let first = start else { continue }
            start = nil
            let word = String(characters[first..<index])
            let x0 = box.x0 + box.width * first / count, x1 = box.x0 + box.width * index / count
            words.append(OCRWord(text: word, confidence: confidence, box: Box(x0: x0, y0: box.y0, x1: max(x0 + 1, x1), y1: box.y1),
                                 isDictionaryWord: isDictionaryWord(word), line: line))
        }
        return words
    }

    public static let pythonVariable = "RAPIDSCAN_PPOCR_PYTHON"

    /// What the user named: `RAPIDSCAN_PPOCR_PYTHON`, else `[vision] ppocr` (the environment
    /// wins); nil when neither names anything but "auto".
    public static func namedPython(environment: [String: String], configured: String?) -> String? {
        environment[pythonVariable] ?? configured.flatMap { $0.lowercased() == "auto" ? nil : $0 }
    }

    /// The interpreter to run: the one named ("" or "off": none), else the first of
    /// `candidatePythons` that exists; nil when none does.
    public static func locatePython(environment: [String: String] = ProcessInfo.processInfo.environment,
                                    configured: String? = nil,
                                    executable: String? = runningExecutable) -> String? {
        if let named = namedPython(environment: environment, configured: configured) {
            return named.isEmpty || named.lowercased() == "off" ? nil : named
        }
        return candidatePythons(executable: executable).first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Where `scripts/install` puts PP-OCR's venv, from the install prefix
    /// (PREFIX/bin/rapidscan finds PREFIX/lib/rapidscan/ppocr-venv).
    public static let installedVenv = "lib/rapidscan/ppocr-venv"

    /// The interpreters looked for when none is named, in order: the venv installed beside
    /// the binary (`scripts/install`), then `.ppocr-venv` (`scripts/setup`) in the current
    /// folder and in the project the binary was built in (`<project>/.build/release/rapidscan`,
    /// or `.build/<triple>/<configuration>/rapidscan`).
    public static func candidatePythons(executable: String? = runningExecutable) -> [String] {
        var candidates: [String] = []
        var roots = [FileManager.default.currentDirectoryPath]
        if let executable {
            var folder = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
            candidates.append(folder.deletingLastPathComponent().appendingPathComponent(installedVenv + "/bin/python").path)
            for _ in 0..<3 {
                folder = folder.deletingLastPathComponent()
                roots.append(folder.path)
            }
        }
        for root in roots where !candidates.contains(root + "/.ppocr-venv/bin/python") {
            candidates.append(root + "/.ppocr-venv/bin/python")
        }
        return candidates
    }

    /// This process's executable file: `/proc/self/exe` (a binary run through PATH has no
    /// folder in argv[0]), else argv[0].
    public static var runningExecutable: String? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first
    }

    /// The worker: reads `{"path", "width", "height", "name"}` lines, answers `{"lines": [[text,
    /// score, x0, y0, x1, y1]...], "turned": [...], "cpu": seconds}` or `{"error": message}`; then
    /// `{"strips": [[x0, y0, x1, y1]...], "of": name}` (that photo's strips) answers `{"strips":
    /// [[strip, "down" or "up", text, score]...], "cpu": seconds}`, none if another photo came between.
    static let workerSource = #"""
import json, os, sys, threading, time
# A worker whose rapidscan is gone (killed, say) stops within a second, even in the middle of
# a photo: it never outlives the process it reads for.
def watch_parent(parent=os.getppid()):
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)
threading.Thread(target=watch_parent, daemon=True).start()
try:
    import numpy, onnxruntime
    # ONNX Runtime's threads spin while they wait for work: 15-18% of the worker's CPU on the
    # real shelves, for the same lines. Every session RapidOCR makes is told not to.
    class QuietOptions(onnxruntime.SessionOptions):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.add_session_config_entry("session.intra_op.allow_spinning", "0")
    onnxruntime.SessionOptions = QuietOptions
    import cv2
    from rapidocr_onnxruntime import RapidOCR
    from rapidocr_onnxruntime.ch_ppocr_det.utils import DetPreProcess
    engine = RapidOCR(det_limit_type="max", det_limit_side_len=int(sys.argv[1]))
    # The angle classifier's verdicts on the last crops it was given: a tall line it turned 180
    # degrees is printed bottom-to-top, which rapidscan keeps apart from lines printed the other way.
    class RememberingClassifier:
        def __init__(self, inner):
            self.inner, self.last = inner, []
        def __getattr__(self, name):
            return getattr(self.inner, name)
        def __call__(self, crops):
            read = self.inner(crops)
            self.last = read[1]
            return read
    engine.text_cls = RememberingClassifier(engine.text_cls)
    # RapidOCR 1.4.4 picks the detector's size itself (2000 px for any image of 1500 px or
    # more) whatever det_limit_side_len says: the image is detected at the size asked for.
    detector = engine.text_det
    detector.get_preprocess = lambda long_side: DetPreProcess(detector.limit_side_len, "max", detector.mean, detector.std)
    # Lines recognised one at a time, not six to a batch padded to the widest: 26% less of the
    # worker's CPU on the real checking photos (41.8 -> 30.9 s for four), the same titles read.
    engine.text_rec.rec_batch_num = 1
    flip_below = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    reads_turned = len(sys.argv) > 3 and sys.argv[3] == "1"
    def extent(box):
        xs = [float(point[0]) for point in box]
        ys = [float(point[1]) for point in box]
        return min(xs), min(ys), max(xs), max(ys)
    def tall(box):
        x0, y0, x1, y1 = extent(box)
        return 2 * (y1 - y0) >= 3 * (x1 - x0)
    def unread_turned(image, found):
        # The photo turned 90 degrees clockwise: a bottom-to-top spine stands upright. Its lines
        # are detected; those whose centre lies in a line read surely already are not recognised,
        # nor those the angle classifier turns 180 (top-to-bottom spines, read the right way up
        # by the first pass). Boxes are given back in the photo's frame.
        height = image.shape[0]
        sure = [extent(box) for box, text, score, *_ in found
                if float(score) >= 0.9 and sum(1 for c in text if c.isalnum()) >= 5]
        turned = numpy.ascontiguousarray(numpy.rot90(image, -1))
        boxes, _ = engine.auto_text_det(turned)
        unread = []
        for box in [] if boxes is None else boxes:
            x0, y0, x1, y1 = extent(box)
            if y1 - y0 > x1 - x0:
                continue
            # Turned (x, y) is the photo's (y, height - 1 - x).
            px, py = (y0 + y1) / 2, height - 1 - (x0 + x1) / 2
            if not any(a <= px <= c and b <= py <= d for a, b, c, d in sure):
                unread.append(box)
        if not unread:
            return []
        crops = engine.get_crop_img_list(turned, unread)
        crops, turns, _ = engine.text_cls(crops)
        kept = [i for i, (label, score) in enumerate(turns) if not ("180" in label and score > engine.text_cls.cls_thresh)]
        if not kept:
            return []
        read, _ = engine.text_rec([crops[i] for i in kept])
        lines = []
        for i, (text, score) in zip(kept, [(r[0], float(r[1])) for r in read]):
            if score < 0.5:
                continue
            x0, y0, x1, y1 = extent(unread[i])
            lines.append([text, score, y0, height - 1 - x1, y1, height - 1 - x0])
        return lines
    strip_limit = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    # The strip pass is asked for after the photo's lines, while rapidscan's Tesseract passes run on
    # the cores: its own sessions of one thread each, so it takes one core and does not stall its
    # work on waking a second thread held by Tesseract (the photo's passes keep theirs).
    strip_engine = None
    if strip_limit > 0:
        strip_engine = RapidOCR(det_limit_type="max", det_limit_side_len=int(sys.argv[1]), intra_op_num_threads=1)
        strip_detector = strip_engine.text_det
        strip_detector.get_preprocess = lambda long_side: DetPreProcess(strip_detector.limit_side_len, "max", strip_detector.mean,
                                                                        strip_detector.std)
        strip_engine.text_rec.rec_batch_num = 1
    def unread_strips(gray, found, strips):
        # Spine strips found in the pixels (x0, y0, x1, y1) where the passes read a line but no
        # sure one, the first strip_limit of them in shelf order: each cut out a twentieth in from its sides, turned
        # as a top-to-bottom spine reads, scaled to 64 px across and detected on its own with a
        # black margin (without it the detector outlined 2 titles of 40 where it outlined 8; at
        # 48 px across 3); then every strip's lines are
        # classified and recognised together. The angle classifier turns a bottom-to-top spine's
        # lines. Each line: [strip, "down" or "up", text, score].
        # Strips where nothing was outlined at all cost as much and read 3 more of 47 unread titles:
        # blank spines, stacked Chinese columns, call-number labels (a third of the CPU).
        def holds(s, boxes):
            return any(s[0] <= (a + c) / 2 < s[2] and s[1] <= (b + d) / 2 < s[3] for a, b, c, d in boxes)
        sure = [(x0, y0, x1, y1) for text, score, x0, y0, x1, y1, *_ in found
                if float(score) >= 0.9 and sum(1 for c in text if c.isalnum()) >= 5]
        some = [(x0, y0, x1, y1) for text, score, x0, y0, x1, y1, *_ in found]
        unread = [(i, s) for i, s in enumerate(strips) if holds(s, some) and not holds(s, sure)]
        # Then, in the slots left, strips whose sure lines cover under a third of their length:
        # a sure line ending well before its spine's text does (`CLOWN INA` `CO`, the rest never
        # outlined in the whole photo) is read again with the strip's rest.
        def sure_share(s):
            inside = [(b, d) for a, b, c, d in sure if s[0] <= (a + c) / 2 < s[2] and s[1] <= (b + d) / 2 < s[3]]
            return sum(min(d, s[3]) - max(b, s[1]) for b, d in inside) / max(1, s[3] - s[1])
        unread += [(i, s) for i, s in enumerate(strips) if holds(s, sure) and sure_share(s) < 1 / 3]
        crops, owners = [], []
        read = 0
        for i, (x0, y0, x1, y1) in unread:
            if read >= strip_limit:
                break
            inset = max(1, (x1 - x0) // 20)
            crop = gray[max(0, y0):y1, x0 + inset:max(x0 + inset + 1, x1 - inset)]
            if crop.shape[0] < 2 * crop.shape[1]:
                continue
            read += 1
            down = numpy.ascontiguousarray(numpy.rot90(crop, 1))
            scale = 64.0 / down.shape[0]
            size = (max(1, int(down.shape[1] * scale)), 64)
            strip = cv2.resize(down, size, interpolation=cv2.INTER_LINEAR)
            # Black above and below, as RapidOCR letterboxes a long thin image (to a quarter of its
            # length), but at most 256 px tall: the detector's CPU is in the black of a long strip
            # (stop 41: 35% less of it, the same titles; 192 px lost one).
            margin = max(0, (min(256, max(size[0] // 4, 64)) - 64) // 2)
            padded = cv2.copyMakeBorder(numpy.repeat(strip[:, :, None], 3, axis=2), margin, margin, 0, 0, cv2.BORDER_CONSTANT,
                                        value=(0, 0, 0))
            boxes, _ = strip_engine.auto_text_det(padded)
            if boxes is None or len(boxes) == 0:
                continue
            crops += strip_engine.get_crop_img_list(padded, boxes)
            owners += [i] * len(boxes)
        if not crops:
            return []
        crops, turns, _ = strip_engine.text_cls(crops)
        read_lines, _ = strip_engine.text_rec(crops)
        lines = []
        for i, (label, turn_score), (text, score) in zip(owners, turns, [(r[0], float(r[1])) for r in read_lines]):
            if score >= 0.5:
                # A line the classifier turned 180 degrees is printed bottom-to-top.
                turned = "180" in label and turn_score > strip_engine.text_cls.cls_thresh
                lines.append([i, "up" if turned else "down", text, score])
        return lines
except Exception as error:
    print(json.dumps({"error": "%s: %s" % (type(error).__name__, error)}), flush=True)
    sys.exit(1)
print(json.dumps({"ready": True}), flush=True)
# The last photo read, its lines and its name: what a request for that photo's strips reads.
last = None
for request in sys.stdin:
    try:
        request = json.loads(request)
        start = time.process_time()
        if "path" not in request:
            strips = request.get("strips") or []
            # Another photo read since (a second caller between this one's two requests): none.
            of_last = last is not None and last[2] == request.get("of")
            read_strips = unread_strips(last[0], last[1], strips) if of_last and strip_engine is not None and strips else []
            print(json.dumps({"strips": read_strips, "cpu": time.process_time() - start}), flush=True)
            continue
        last = None
        width, height = int(request["width"]), int(request["height"])
        gray = numpy.fromfile(request["path"], dtype=numpy.uint8, count=width * height)
        if gray.size != width * height:
            raise ValueError("expected %d pixels, read %d" % (width * height, gray.size))
        gray = gray.reshape(height, width)
        image = numpy.repeat(gray[:, :, None], 3, axis=2)
        # RapidOCR scales an image over 2000 px down before it cuts the lines out for recognition:
        # a 36 px spine of a 4000 px shelf then read 18 px wide. The working image is bounded
        # already, so its lines are read at its own size (the detector keeps its own limit).
        engine.max_side_len = max(width, height)
        # Every line the recogniser read (score 0 and up), so each lines up with the classifier's verdict on its crop;
        # those under 0.5 are dropped below, as RapidOCR drops them itself by default.
        found = list(engine(image, text_score=0.0)[0] or [])
        turns = engine.text_cls.last if len(engine.text_cls.last) == len(found) else [["0", 0.0]] * len(found)
        found = [(box, text, score, "180" in turn[0] and turn[1] > engine.text_cls.cls_thresh) for (box, text, score), turn in zip(found, turns)]
        if flip_below > 0:
            # A tall line read unsurely may be a spine printed bottom-to-top that the angle
            # classifier left upside down: its crop is read turned 180 degrees too, the surer kept.
            unsure = [i for i, (box, text, score, up) in enumerate(found) if score < flip_below and tall(box)]
            if unsure:
                crops = engine.get_crop_img_list(image, [numpy.array(found[i][0], dtype=numpy.float32) for i in unsure])
                turned, _ = engine.text_rec([numpy.rot90(crop, 2) for crop in crops])
                for i, read in zip(unsure, turned):
                    if float(read[1]) > float(found[i][2]):
                        found[i] = (found[i][0], read[0], read[1], not found[i][3])
        found = [line for line in found if float(line[2]) >= 0.5]
        lines = []
        for box, text, score, up in found:
            lines.append([text, float(score), *extent(box), 1 if up and tall(box) else 0])
        turned = unread_turned(image, found) if reads_turned else []
        last = (gray, lines + turned, request.get("name")) if strip_engine is not None else None
        print(json.dumps({"lines": lines, "turned": turned, "cpu": time.process_time() - start}), flush=True)
    except Exception as error:
        print(json.dumps({"error": "%s: %s" % (type(error).__name__, error)}), flush=True)
"""#
}
