import CLazyLibraries
import CTesseract
import Foundation

/// What the local spine reader has to work with — Tesseract's library and language data, and
/// whether PP-OCR's worker is found — told without reading a photo (`rapidscan doctor`,
/// `spines --verbose`).
public enum OCREngines {
    /// The libtesseract's version ("5.3.0"), or why it could not be loaded (it is opened on first use).
    public static var tesseractVersion: String {
        if let reason = rs_tesseract_load() { return "(not loaded: \(String(cString: reason)))" }
        return String(cString: TessVersion())
    }

    /// The folder holding every `<language>.traineddata`, or the error that names the package
    /// to install (the check `spines` makes before reading).
    public static func languageData(for languages: [String], dataPath: String? = nil,
                                    environment: [String: String] = ProcessInfo.processInfo.environment)
        -> Result<String, TesseractError> {
        do { return .success(try LanguageData.folder(for: languages, explicit: dataPath, environment: environment)) } catch {
            return .failure(error)
        }
    }

    /// The languages a tessdata folder holds (`eng`, `osd`, ...), sorted.
    public static func installedLanguages(in folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".traineddata") }.map { String($0.dropLast(".traineddata".count)) }.sorted()
    }

    /// Where PP-OCR's interpreter comes from, or why there is none.
    public enum SceneTextSource: Sendable, Hashable {
        /// Named by `RAPIDSCAN_PPOCR_PYTHON` or `[vision] ppocr` (`setting` says which).
        case named(python: String, setting: String)
        /// Switched off by that setting (`off` or empty).
        case switchedOff(setting: String)
        /// Found at one of the places looked in (installed beside the binary, or a checkout's `.ppocr-venv`).
        case found(python: String)
        /// Not named and in none of `searched`.
        case notFound(searched: [String])

        /// The interpreter to start, if any.
        public var python: String? {
            switch self {
            case .named(let python, _), .found(let python): python
            case .switchedOff, .notFound: nil
            }
        }
    }

    /// The same choice `TesseractProvider.makeReader` makes (`SceneTextReader.locatePython`), with its reason.
    public static func sceneTextSource(environment: [String: String] = ProcessInfo.processInfo.environment,
                                       configured: String? = nil,
                                       executable: String? = SceneTextReader.runningExecutable) -> SceneTextSource {
        if let named = SceneTextReader.namedPython(environment: environment, configured: configured) {
            let setting = environment[SceneTextReader.pythonVariable] != nil ? SceneTextReader.pythonVariable : "[vision] ppocr"
            return named.isEmpty || named.lowercased() == "off"
                ? .switchedOff(setting: setting) : .named(python: named, setting: setting)
        }
        let searched = SceneTextReader.candidatePythons(executable: executable)
        if let python = searched.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) { return .found(python: python) }
        return .notFound(searched: searched)
    }

    /// The command that installs PP-OCR where this binary looks first: in a checkout's build
    /// folder `scripts/setup` (`.ppocr-venv`), else `scripts/install` with the binary's own
    /// prefix (PREFIX/bin/rapidscan), run from a rapidscan checkout.
    public static func sceneTextInstallCommand(executable: String? = SceneTextReader.runningExecutable) -> String {
        guard let executable else { return "scripts/install (from a rapidscan checkout)" }
        let binary = URL(fileURLWithPath: executable).resolvingSymlinksInPath().path
        if let build = binary.range(of: "/.build/") {
            return "scripts/setup (in \(binary[..<build.lowerBound]): installs .ppocr-venv)"
        }
        let prefix = URL(fileURLWithPath: binary).deletingLastPathComponent().deletingLastPathComponent().path
        return "scripts/install \(prefix) (from a rapidscan checkout: installs \(prefix)/\(SceneTextReader.installedVenv))"
    }
}
