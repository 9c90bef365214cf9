import ArgumentParser
import BarcodeReading
import Catalogue
import Foundation
import MetadataSources
import PostgresCatalogue
import RapidScanConfig
import SpineMatching
import SpineOCR

/// `rapidscan doctor`: what this rapidscan works with — engines, sources, library, config —
/// and, for each piece missing, the command that fixes it. Reads; creates and changes nothing.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check what rapidscan works with (engines, sources, library, config) and say how to fix what is missing.",
        discussion: """
        Example:
          rapidscan doctor

        Each line starts with ok, missing (required: the command fails without it), \
        optional (works without it, with less) or error, and a missing piece is followed by \
        the command that fixes it. Required: libzbar, Tesseract's language data for [vision] \
        languages (when no vision model is configured), a config file that parses, a library \
        that opens (a library not created yet is fine: the first scan creates it), and \
        PP-OCR's interpreter when one is named (RAPIDSCAN_PPOCR_PYTHON or [vision] ppocr). Nothing is created or changed; API keys \
        are never printed, only whether they are set.

        Here: 0 every required piece is there; 70 some required piece is missing or broken.
        """)

    @OptionGroup var library: LibraryOptions

    /// One checked piece: its state, what it is, and the command that fixes it.
    struct Finding {
        enum State: String { case ok, optional, missing, error }
        var state: State
        var text: String
        var fix: String? = nil
        var isFailure: Bool { state == .missing || state == .error }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let executable = SceneTextReader.runningExecutable
        print("rapidscan \(RapidScanVersion.current)\(executable.map { " at \($0)" } ?? "")")

        var settings = RapidScanSettings()
        var configFindings: [Finding] = []
        do {
            settings = try library.settings(environment: environment)
            if let file = settings.configFile {
                configFindings.append(Finding(state: .ok, text: "\(file.path) (read without errors)"))
            } else {
                let path = XDGPaths(environment: environment).defaultConfigFile.path
                configFindings.append(Finding(state: .ok, text: "none at \(path): the defaults are used"))
            }
        } catch {
            configFindings.append(Finding(state: .error, text: "\(error)", fix: "correct the config file (its keys: README, Configuration)"))
            if let db = library.db ?? environment["RAPIDSCAN_DB"], !db.isEmpty { settings.database = db }
        }

        var failed = false
        func section(_ title: String, _ findings: [Finding]) {
            print("\n\(title)")
            for finding in findings {
                print("  " + finding.state.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0) + finding.text)
                if let fix = finding.fix { print("           fix: \(fix)") }
                failed = failed || finding.isFailure
            }
        }
        section("Engines", engineFindings(settings: settings, environment: environment, executable: executable))
        section("Sources (in lookup order)", sourceFindings(settings: settings))
        section("Library", [libraryFinding(settings: settings, environment: environment)])
        section("Config", configFindings)
        if failed { throw ExitStatus.failure }
    }

    func engineFindings(settings: RapidScanSettings, environment: [String: String], executable: String?) -> [Finding] {
        var findings: [Finding]
        do { findings = [Finding(state: .ok, text: "zbar \(try BarcodeReader.zbarVersion) (barcodes)")] } catch {
            findings = [Finding(state: .missing, text: "zbar: \(error)")]
        }
        let languages = settings.vision.languages ?? ["eng"]
        switch OCREngines.languageData(for: languages, environment: environment) {
        case .success(let folder):
            let others = OCREngines.installedLanguages(in: folder).filter { !languages.contains($0) }
            findings.append(Finding(state: .ok, text: "Tesseract \(OCREngines.tesseractVersion), language data "
                + languages.joined(separator: "+") + " in \(folder)" + (others.isEmpty ? "" : " (also: \(others.joined(separator: ", ")))")))
        case .failure(let error):
            // Required only where spines are read locally (no vision model configured).
            let local = TesseractProvider.isSelected(provider: settings.vision.provider, baseURL: settings.vision.baseURL?.absoluteString)
            let packages = languages.map(TesseractError.debianPackage(for:)).joined(separator: " ")
            findings.append(Finding(state: local ? .missing : .optional, text: "Tesseract \(OCREngines.tesseractVersion): \(error)",
                                    fix: "apt-get install \(packages)"))
        }
        findings.append(sceneTextFinding(settings: settings, environment: environment, executable: executable))
        findings.append(Self.wordListFinding(missing: WordList.missing))
        return findings
    }

    /// The word lists glued spine words are spaced with ("ELLABERINTODELASOLEDAD"): each missing one
    /// named, with what is lost and the package that installs it. Optional: a run is then searched as read.
    static func wordListFinding(missing: [WordList]) -> Finding {
        let listed = WordList.all.map { "\($0.rawValue) (\($0.path))" }.joined(separator: ", ")
        guard !missing.isEmpty else { return Finding(state: .ok, text: "word lists for glued spine words: \(listed)") }
        let names = missing.map(\.rawValue).joined(separator: ", ")
        return Finding(state: .optional, text: "word lists for glued spine words: \(names) not installed; words glued together on "
            + "\(names) spines are searched as read, not spaced", fix: "apt-get install " + missing.map(\.debianPackage).joined(separator: " "))
    }

    /// PP-OCR: where its interpreter comes from, and whether it really starts (loads its models).
    func sceneTextFinding(settings: RapidScanSettings, environment: [String: String], executable: String?) -> Finding {
        let install = OCREngines.sceneTextInstallCommand(executable: executable)
        switch OCREngines.sceneTextSource(environment: environment, configured: settings.vision.ppocr, executable: executable) {
        case .switchedOff(let setting):
            return Finding(state: .optional, text: "PP-OCR worker: switched off by \(setting); spines are read with Tesseract alone")
        case .notFound(let searched):
            library.output.detail("PP-OCR looked for " + searched.joined(separator: ", "))
            return Finding(state: .optional, text: "PP-OCR worker: not installed (no ppocr-venv beside the binary at "
                + "\(searched.first ?? "?"), no .ppocr-venv here or in a checkout); spines are read with Tesseract alone",
                           fix: install)
        case .found(let python):
            return startingSceneText(python: python, named: nil, install: install)
        case .named(let python, let setting):
            return startingSceneText(python: python, named: setting, install: install)
        }
    }

    private func startingSceneText(python: String, named setting: String?, install: String) -> Finding {
        let origin = setting.map { "named by \($0)" } ?? "found"
        do {
            _ = try SceneTextReader(python: python)
            return Finding(state: .ok, text: "PP-OCR worker: \(python) (\(origin); its models load)")
        } catch {
            // A named interpreter that cannot start stops `spines`; one found by itself is skipped.
            return Finding(state: setting == nil ? .optional : .missing,
                           text: "PP-OCR worker: \(python) (\(origin)) does not start: \(error)",
                           fix: setting.map { "name a Python with rapidocr-onnxruntime in \($0), or set it to off" } ?? install)
        }
    }

    func sourceFindings(settings: RapidScanSettings) -> [Finding] {
        var findings: [Finding] = []
        for source in settings.enabledSources {
            switch SourceName(rawValue: source.name) {
            case .localDump:
                let path = settings.localDumpURL(paths: XDGPaths()).path
                findings.append(FileManager.default.fileExists(atPath: path)
                    ? Finding(state: .ok, text: "local Open Library dump \(path) (asked first, also offline)")
                    : Finding(state: .optional, text: "no local Open Library dump (lookups go to the network; a dump answers offline)",
                              fix: "rapidscan sources load ol_dump_editions_*.txt.gz ol_dump_works_*.txt.gz ol_dump_authors_*.txt.gz"))
            case .googleBooks:
                if settings.googleBooksAPIKey != nil {
                    findings.append(Finding(state: .ok, text: "Google Books \(source.baseURL.absoluteString), API key set "
                        + "(from \(settings.googleBooksAPIKeyOrigin ?? "the config"); not shown)"))
                } else {
                    findings.append(Finding(state: .optional, text: "Google Books \(source.baseURL.absoluteString), no API key "
                        + "(works without one, at Google's shared quota)",
                        fix: "export \(settings.googleBooksAPIKeyVariable)=YOUR_KEY"))
                }
            case .openLibrary:
                if let contact = settings.contact {
                    findings.append(Finding(state: .ok, text: "Open Library \(source.baseURL.absoluteString), contact \(contact) "
                        + "(\(Int(settings.effectiveOpenLibraryRequestsPerSecond)) requests/s)"))
                } else {
                    findings.append(Finding(state: .optional, text: "Open Library \(source.baseURL.absoluteString), no contact "
                        + "(\(Int(settings.effectiveOpenLibraryRequestsPerSecond)) request/s; 3 with one)",
                        fix: "contact = \"you@example.com\" under [sources.openLibrary] in the config, or export RAPIDSCAN_CONTACT"))
                }
            case .libraryOfCongress:
                findings.append(Finding(state: .ok, text: "Library of Congress \(source.baseURL.absoluteString) (1 request/s)"))
            case nil:
                findings.append(Finding(state: .error, text: "\(source.name): not a source rapidscan knows"))
            }
        }
        let disabled = settings.sources.filter { !$0.enabled }.map { SourceDisplayName.of($0.name) }
        if settings.enabledSources.isEmpty {
            findings.append(Finding(state: .optional, text: "no source enabled: books are looked up in the local cache only",
                                    fix: "enabled = true under [sources.googleBooks] or [sources.openLibrary]"))
        } else if !disabled.isEmpty {
            findings.append(Finding(state: .ok, text: "switched off: " + disabled.joined(separator: ", ")))
        }
        return findings
    }

    func libraryFinding(settings: RapidScanSettings, environment: [String: String]) -> Finding {
        do {
            let catalogue: any CatalogueStore
            if let url = settings.database, DatabaseURL.isURL(url) {
                // A shared server: reached as every command reaches it; errors name host and port, never the password.
                catalogue = try PostgresCatalogue(url: url, configPassword: settings.databasePassword?.revealed)
            } else {
                let path = settings.databaseURL(paths: XDGPaths(environment: environment)).path
                guard FileManager.default.fileExists(atPath: path) else {
                    return Finding(state: .ok, text: "\(path): not created yet (the first scan, import or library add creates it)")
                }
                catalogue = try Catalogue(path: path, readOnly: true)
            }
            let stats = try catalogue.stats()
            let applied = try catalogue.schemaVersion()
            let size = ByteCountFormatter.string(fromByteCount: stats.databaseBytes, countStyle: .file)
            return Finding(state: .ok, text: "\(catalogue.location), \(size), schema \(applied.isEmpty ? "none" : applied), \(stats.ownedItems) owned "
                + (stats.ownedItems == 1 ? "book" : "books") + (stats.pendingLookups > 0 ? ", \(stats.pendingLookups) lookups pending" : ""))
        } catch {
            return Finding(state: .error, text: "\(error)",
                           fix: "give another library with --db or RAPIDSCAN_DB (the file is kept as it is)")
        }
    }
}
