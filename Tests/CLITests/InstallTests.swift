import Foundation
import TestSupport
import Testing

/// scripts/install and scripts/uninstall into a temporary PREFIX, and `rapidscan doctor`, on
/// the built binary: the installed binary runs from another folder with a clean environment
/// and finds its PP-OCR worker beside itself, the man page renders, completions complete values.
@Suite struct InstallTests {
    static let script = SharedFiles.projectRoot.appendingPathComponent("scripts/install")
    static let uninstallScript = SharedFiles.projectRoot.appendingPathComponent("scripts/uninstall")

    /// A clean environment: no RAPIDSCAN_*, no key, a fresh HOME and XDG folders, a short PATH.
    static func cleanEnvironment(home: URL) -> [String: String] {
        ["PATH": "/usr/bin:/bin", "HOME": home.path, "LANG": "C.UTF-8",
         "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
         "XDG_DATA_HOME": home.appendingPathComponent("data").path]
    }

    /// Every path under `folder`, relative, sorted (what "as it was" means).
    static func tree(_ folder: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        var paths: [String] = []
        while let path = enumerator?.nextObject() as? String { paths.append(path) }
        return paths.sorted()
    }

    @Test func installPutsEverythingUnderThePrefixAndUninstallLeavesItAsItWas() async throws {
        let binary = try RapidScanBinary.url
        // A test cannot build (swift test holds .build's lock): scripts/test builds it first.
        let manual = binary.deletingLastPathComponent().appendingPathComponent("generate-manual")
        try #require(FileManager.default.isExecutableFile(atPath: manual.path),
                     "generate-manual is not built beside rapidscan: run scripts/test, or `swift build --product generate-manual` first")
        let root = try makeTemporaryDirectory(prefix: "rapidscan-install")
        defer { try? FileManager.default.removeItem(at: root) }
        // A prefix already in use: what it holds must be there, unchanged, after uninstall.
        let prefix = root.appendingPathComponent("prefix")
        let manFolder = prefix.appendingPathComponent("share/man/man1")
        try FileManager.default.createDirectory(at: manFolder, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: prefix.appendingPathComponent("bin"), withIntermediateDirectories: true)
        try "other\n".write(to: manFolder.appendingPathComponent("other.1"), atomically: true, encoding: .utf8)
        let before = Self.tree(prefix)

        let install = try await runProcess(Self.script, ["--binary", binary.path, prefix.path])
        #expect(install.status == 0, "\(install.stdout)\n\(install.stderr)")

        // From another folder, with nothing of the developer's environment.
        let home = root.appendingPathComponent("home"), elsewhere = root.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let installed = prefix.appendingPathComponent("bin/rapidscan")
        let doctor = try await runProcess(installed, ["doctor"], environment: Self.cleanEnvironment(home: home), currentDirectory: elsewhere)
        #expect(doctor.status == 0, "\(doctor.stdout)\n\(doctor.stderr)")
        let venvPython = prefix.appendingPathComponent("lib/rapidscan/ppocr-venv/bin/python").path
        #expect(doctor.stdout.contains("ok       PP-OCR worker: \(venvPython) (found; its models load)"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("rapidscan 0.1.0 at \(installed.path)"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("not created yet"), "the doctor must not create the library: \(doctor.stdout)")
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("data/rapidscan").path))

        // The man page renders, with the one exit table and the new command.
        let page = manFolder.appendingPathComponent("rapidscan.1")
        var manEnvironment = Self.cleanEnvironment(home: home)
        manEnvironment["MANWIDTH"] = "100"
        let man = try await runProcess(URL(fileURLWithPath: "/usr/bin/man"), ["-l", "-P", "cat", page.path],
                                       environment: manEnvironment, currentDirectory: elsewhere)
        #expect(man.status == 0, "\(man.stderr)")
        #expect(man.stdout.contains("EXIT STATUS") && man.stdout.contains("the database or the configuration could not be used"), "\(man.stdout.prefix(3000))")
        #expect(man.stdout.contains("doctor"), "\(man.stdout.prefix(3000))")
        #expect(FileManager.default.fileExists(atPath: manFolder.appendingPathComponent("rapidscan.scan.1").path), "\(Self.tree(manFolder))")

        // Completions where each shell looks under a prefix, completing values too.
        for (path, words) in [("share/bash-completion/completions/rapidscan", ["doctor", "goodreads", "notInterested", "tesseract"]),
                              ("share/zsh/site-functions/_rapidscan", ["doctor", "goodreads", "notInterested", "tesseract"]),
                              ("share/fish/vendor_completions.d/rapidscan.fish", ["doctor", "goodreads", "notInterested", "tesseract"])] {
            let text = try String(contentsOf: prefix.appendingPathComponent(path), encoding: .utf8)
            for word in words { #expect(text.contains(word), "\(path) lacks \(word)") }
        }

        let uninstall = try await runProcess(Self.uninstallScript, [prefix.path])
        #expect(uninstall.status == 0, "\(uninstall.stdout)\n\(uninstall.stderr)")
        #expect(Self.tree(prefix) == before)
        #expect(try String(contentsOf: manFolder.appendingPathComponent("other.1"), encoding: .utf8) == "other\n")
    }

    @Test func withoutItsWorkerTheBinarySaysWhyAndTheCommandThatFixesIt() async throws {
        // The built binary copied alone into PREFIX/bin: no ppocr-venv beside it, no checkout.
        let root = try makeTemporaryDirectory(prefix: "rapidscan-bare")
        defer { try? FileManager.default.removeItem(at: root) }
        let bin = root.appendingPathComponent("prefix/bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let copy = bin.appendingPathComponent("rapidscan")
        try FileManager.default.copyItem(at: try RapidScanBinary.url, to: copy)
        let home = root.appendingPathComponent("home")
        let prefix = root.appendingPathComponent("prefix").path

        let doctor = try await runProcess(copy, ["doctor"], environment: Self.cleanEnvironment(home: home), currentDirectory: root)
        #expect(doctor.status == 0, "PP-OCR is optional: \(doctor.stdout)")
        #expect(doctor.stdout.contains("optional PP-OCR worker: not installed"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("fix: scripts/install \(prefix) "), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("ok       zbar "), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("ok       Tesseract "), "\(doctor.stdout)")

        let spines = try await runProcess(copy, ["spines", "-v", "--dry-run", "--offline", root.appendingPathComponent("none.jpg").path],
                                          environment: Self.cleanEnvironment(home: home), currentDirectory: root)
        #expect(spines.stderr.contains("OCR engines: Tesseract "), "\(spines.stderr)")
        #expect(spines.stderr.contains("alone: PP-OCR is not installed (looked for \(prefix)/lib/rapidscan/ppocr-venv/bin/python"), "\(spines.stderr)")
        #expect(spines.stderr.contains("to add it: scripts/install \(prefix)"), "\(spines.stderr)")
    }

    @Test func doctorFailsOnWhatIsRequiredAndNeverPrintsTheKey() async throws {
        let harness = try CLIHarness()
        let canary = "AIzaCanary-doctor-\(UUID().uuidString)"
        harness.extraEnvironment = ["GOOGLE_BOOKS_API_KEY": canary, "RAPIDSCAN_CONTACT": "me@example.org"]
        let healthy = try await harness.run("doctor")
        #expect(healthy.status == 0, "\(healthy.stdout)\n\(healthy.stderr)")
        #expect(healthy.stdout.contains("API key set (from GOOGLE_BOOKS_API_KEY; not shown)"), "\(healthy.stdout)")
        #expect(healthy.stdout.contains("contact me@example.org (3 requests/s)"), "\(healthy.stdout)")
        #expect(!(healthy.stdout + healthy.stderr).contains(canary))
        #expect(!(healthy.stdout + healthy.stderr).contains(String(canary.reversed())))

        // A library that exists: its size, schema and owned count.
        _ = try await harness.run("account")
        let withLibrary = try await harness.run("doctor")
        #expect(withLibrary.stdout.contains("\(harness.database.path), "), "\(withLibrary.stdout)")
        #expect(withLibrary.stdout.contains("schema v4-spine-boxes, 0 owned books"), "\(withLibrary.stdout)")

        // A named PP-OCR interpreter that does not exist: spines would stop, so doctor fails.
        harness.extraEnvironment["RAPIDSCAN_PPOCR_PYTHON"] = "/nonexistent/python"
        let named = try await harness.run("doctor")
        #expect(named.status == 70, "\(named.stdout)")
        #expect(named.stdout.contains("missing  PP-OCR worker: /nonexistent/python (named by RAPIDSCAN_PPOCR_PYTHON) does not start"), "\(named.stdout)")
        harness.extraEnvironment["RAPIDSCAN_PPOCR_PYTHON"] = "off"

        // A config that does not parse: its path and the error, exit 70.
        let config = harness.directory.appendingPathComponent("config/rapidscan/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "[http]\ntimeoutSecond = 3\n".write(to: config, atomically: true, encoding: .utf8)
        let broken = try await harness.run("doctor")
        #expect(broken.status == 70, "\(broken.stdout)")
        #expect(broken.stdout.contains("error    ") && broken.stdout.contains(config.path) && broken.stdout.contains("timeoutSecond"), "\(broken.stdout)")
        #expect(broken.stdout.contains("optional PP-OCR worker: switched off by RAPIDSCAN_PPOCR_PYTHON"), "\(broken.stdout)")
        #expect(!(broken.stdout + broken.stderr).contains(canary))

        // Language data the local spine reader needs but lacks: required, with the package.
        try "[vision]\nlanguages = [\"zzz\"]\n".write(to: config, atomically: true, encoding: .utf8)
        let noData = try await harness.run("doctor")
        #expect(noData.status == 70, "\(noData.stdout)")
        #expect(noData.stdout.contains("missing  Tesseract ") && noData.stdout.contains("fix: apt-get install tesseract-ocr-zzz"), "\(noData.stdout)")
        // With a vision model configured the local reader is not needed: optional.
        try "[vision]\nprovider = \"openai\"\nbaseURL = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\nlanguages = [\"zzz\"]\n"
            .write(to: config, atomically: true, encoding: .utf8)
        let remote = try await harness.run("doctor")
        #expect(remote.status == 0, "\(remote.stdout)")
        #expect(remote.stdout.contains("optional Tesseract "), "\(remote.stdout)")
    }
}
