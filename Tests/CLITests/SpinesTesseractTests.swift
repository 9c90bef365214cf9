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
        // turned where no sure line was read (`[vision] ppocrTurned`, on by default).
        if SharedFiles.available || FileManager.default.isExecutableFile(atPath: ".ppocr-venv/bin/python") {
            #expect(human.stderr.contains("270,90,0+ppocr3"), "\(human.stderr)")
        }
        // Nothing left the machine and no model was paid: the summary says so, and a reading
        // that found no book carries no distance to a book it does not name.
        // (the second run finds the photo's readings cached)
        #expect(human.stderr.contains("1 photo (0 read here, 1 from cache)"), "\(human.stderr)")
        #expect(!human.stderr.contains("tokens"), "\(human.stderr)")
        #expect(!human.stdout.contains("[none"), "\(human.stdout)")
        #expect(human.stdout.contains("→ - No Match"), "\(human.stdout)")
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
