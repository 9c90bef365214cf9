import Foundation
import Testing
import TestSupport

/// `rapidscan spines` on a fresh machine: no model configured, so Tesseract reads the spines
/// locally and nothing is sent anywhere.
@Suite struct SpinesTesseractTests {
    @Test func readsSpinesLocallyWhenNoModelIsConfigured() async throws {
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        harness.extraEnvironment = ["RAPIDSCAN_SOURCES": "googleBooks"]
        let photo = harness.directory.appendingPathComponent("shelf.jpg")
        try FileManager.default.copyItem(
            at: SharedFiles.sampleImages.appendingPathComponent("shelves/shelf-03.jpg"), to: photo)

        // --offline: only the (empty) local cache is searched, so every reading ends unmatched.
        let result = try await harness.run("spines", "--json", "--offline", photo.path)
        #expect(result.status == 2, "\(result.stderr)")
        let events = result.jsonLines
        let readings = events.compactMap { $0["reading"] as? String }
        #expect(readings.count >= 8, "\(readings)")
        #expect(readings.contains { $0.contains("Succubus Shadows") }, "\(readings)")
        #expect(readings.contains { $0.contains("Tenth of December") }, "\(readings)")
        #expect(events.filter { $0["event"] as? String == "added" }.isEmpty)
        #expect(events.last?["event"] as? String == "summary")
        #expect(harness.server.requests.isEmpty, "sent \(harness.server.requests.map(\.path))")

        let human = try await harness.run("spines", "--offline", "--dry-run", photo.path)
        #expect(human.stderr.contains("reading spines with tesseract:eng:psm11:270,90,0"), "\(human.stderr)")
        // scripts/setup's PP-OCR reads the whole photo by default (installed under CI), and the photo
        // turned where no sure line was read (`[vision] ppocrTurned`, on by default), and the spine strips
        // it read a line but no sure one in, each on its own (`[vision] ppocrStrips`, on by default).
        if SharedFiles.available || FileManager.default.isExecutableFile(atPath: ".ppocr-venv/bin/python") {
            #expect(human.stderr.contains("270,90,0+yield+apart+ppocr3+strips\n"), "\(human.stderr)")
        }
        // Nothing left the machine and no model was paid: the summary says so, and a reading
        // that found no book carries no distance to a book it does not name.
        // (the second run finds the photo's readings cached)
        #expect(human.stderr.contains("1 photo (0 read here, 1 from cache)"), "\(human.stderr)")
        #expect(!human.stderr.contains("tokens"), "\(human.stderr)")
        #expect(!human.stdout.contains("[none"), "\(human.stdout)")
        #expect(human.stdout.contains("→ - No Match"), "\(human.stdout)")
    }

    /// The PP-OCR interpreter `spines` runs: RAPIDSCAN_PPOCR_PYTHON, else scripts/setup's venv.
    static var ppocrPython: String? {
        let python = ProcessInfo.processInfo.environment["RAPIDSCAN_PPOCR_PYTHON"] ?? ".ppocr-venv/bin/python"
        return FileManager.default.isExecutableFile(atPath: python) ? URL(fileURLWithPath: python).standardizedFileURL.path : nil
    }

    /// `spines` waits for its PP-OCR worker before it exits: the worker's CPU is the command's
    /// (`/usr/bin/time rapidscan spines` counts it) and it never outlives the command. This test
    /// process adopts what its children leave behind (a subreaper), so a worker left running or
    /// not reaped by rapidscan would still be there, as a process or a zombie, after it exits.
    @Test(.enabled(if: ppocrPython != nil, "PP-OCR is not installed (run scripts/setup)"))
    func theCommandWaitsForItsWorkerBeforeItExits() async throws {
        let python = try #require(Self.ppocrPython)
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        // The interpreter through a script that notes its process id (exec keeps it).
        let pidFile = harness.directory.appendingPathComponent("worker.pid")
        let wrapper = harness.directory.appendingPathComponent("python.sh")
        try "#!/bin/sh\necho $$ > '\(pidFile.path)'\nexec '\(python)' \"$@\"\n".write(to: wrapper, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper.path)
        harness.extraEnvironment = ["RAPIDSCAN_PPOCR_PYTHON": wrapper.path]
        let photo = harness.directory.appendingPathComponent("shelf.jpg")
        try FileManager.default.copyItem(at: SharedFiles.sampleImages.appendingPathComponent("shelves/shelf-03.jpg"), to: photo)

        // prctl is variadic in C: called through its address. PR_SET_CHILD_SUBREAPER = 36.
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        let prctl = unsafeBitCast(try #require(dlsym(nil, "prctl")), to: Prctl.self)
        #expect(prctl(36, 1, 0, 0, 0) == 0)
        defer { _ = prctl(36, 0, 0, 0, 0) }
        let result = try await harness.run("spines", "--offline", "--dry-run", photo.path)
        #expect(result.stderr.contains("+ppocr"), "\(result.stderr)")
        let text = try String(contentsOf: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let worker = try #require(Int32(text))
        // kill(pid, 0) answers for a zombie too: ESRCH means rapidscan reaped it before it exited.
        let alive = kill(worker, 0) == 0, reaped = !alive && errno == ESRCH
        #expect(reaped, "the worker \(worker) outlived rapidscan")
        if alive {
            kill(worker, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(worker, &status, 0)
        }
    }

    @Test func tesseractSettingsComeFromTheVisionSection() async throws {
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        let config = harness.directory.appendingPathComponent("config/rapidscan")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        // The config file: a `[vision]` section with these lines.
        func configure(_ vision: String) throws {
            try Data("[vision]\n\(vision)\n".utf8).write(to: config.appendingPathComponent("config.toml"))
        }
        try configure("provider = \"tesseract\"\nlanguages = [\"xyz\"]")
        let photo = harness.directory.appendingPathComponent("shelf.jpg")
        try FileManager.default.copyItem(
            at: SharedFiles.sampleImages.appendingPathComponent("shelves/shelf-03.jpg"), to: photo)
        // A language whose traineddata is not installed: the error names the package.
        let result = try await harness.run("spines", "--offline", photo.path)
        #expect(result.status != 0)
        #expect(result.stderr.contains("apt-get install tesseract-ocr-xyz"), "\(result.stderr)")

        try configure("rotations = [45]")
        let bad = try await harness.run("spines", "--offline", photo.path)
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("rotations"), "\(bad.stderr)")

        // [vision] ppocr: a Python that is not there stops the run naming it; "off" reads with Tesseract alone.
        try configure("ppocr = \"/nonexistent/ppocr/python\"")
        let missing = try await harness.run("spines", "--offline", photo.path)
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("PP-OCR could not start with /nonexistent/ppocr/python"), "\(missing.stderr)")
        try configure("ppocr = \"off\"")
        let off = try await harness.run("spines", "--offline", "--dry-run", photo.path)
        #expect(off.stderr.contains("reading spines with tesseract:eng:psm11:270,90,0"), "\(off.stderr)")
        #expect(!off.stderr.contains("+ppocr"), "\(off.stderr)")
        try configure("ppocr = 3")
        let wrongType = try await harness.run("spines", "--offline", photo.path)
        #expect(wrongType.status != 0)
        #expect(wrongType.stderr.contains("ppocr"), "\(wrongType.stderr)")
    }
}
