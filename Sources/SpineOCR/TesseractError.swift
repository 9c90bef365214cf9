import Imaging

/// Why the Tesseract spine reader could not read a photo. `description` names the photo or
/// the language data and says what to do.
public enum TesseractError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No `<language>.traineddata` in any searched folder.
    case missingLanguageData(language: String, searched: [String])
    /// A language code that cannot name a traineddata file ("", "../x", "eng+spa" given as one).
    case invalidLanguage(String)
    /// libtesseract (opened on first use) could not be loaded; `reason` names the package.
    case libraryUnavailable(reason: String)
    /// `TessBaseAPIInit` refused the data (a damaged or incompatible traineddata file).
    case initializationFailed(language: String, dataPath: String)
    /// The photo could not be decoded (or was over the pixel limit): Imaging's error.
    case image(ImageError)
    /// Too few pixels to hold a readable spine.
    case imageTooSmall(file: String, width: Int, height: Int, minimumSide: Int)
    /// Tesseract's recognition failed (returned an error code) for one rotation.
    case recognitionFailed(file: String, rotation: SpineRotation)
    /// The PP-OCR worker (`SceneTextReader`) could not start with this interpreter.
    case sceneTextUnavailable(python: String, reason: String)
    /// The PP-OCR worker could not read a photo.
    case sceneTextFailed(file: String, reason: String)

    /// Debian's package holding a language's traineddata (`chi_sim` → `tesseract-ocr-chi-sim`).
    public static func debianPackage(for language: String) -> String {
        "tesseract-ocr-" + language.lowercased().replacingOccurrences(of: "_", with: "-")
    }

    public var description: String {
        switch self {
        case .missingLanguageData(let language, let searched):
            "Tesseract language data '\(language).traineddata' not found (looked in "
                + searched.joined(separator: ", ")
                + "): install the Debian package \(Self.debianPackage(for: language)) "
                + "(apt-get install \(Self.debianPackage(for: language))) or set TESSDATA_PREFIX"
        case .invalidLanguage(let language):
            "'\(language)' is not a Tesseract language code (expected names like eng, spa, chi_sim)"
        case .libraryUnavailable(let reason):
            "Tesseract cannot read spines here: \(reason)"
        case .initializationFailed(let language, let dataPath):
            "Tesseract could not load '\(language)' from \(dataPath) (damaged or incompatible traineddata?)"
        case .image(let error):
            error.description
        case .imageTooSmall(let file, let width, let height, let minimumSide):
            "\(file): \(width)×\(height) pixels is too small to read spines from "
                + "(at least \(minimumSide) px on the short side)"
        case .recognitionFailed(let file, let rotation):
            "\(file): Tesseract failed while reading the photo turned \(rotation.degrees)°"
        case .sceneTextUnavailable(let python, let reason):
            "PP-OCR could not start with \(python): \(reason) (run scripts/setup, which installs it into .ppocr-venv, "
                + "or set RAPIDSCAN_PPOCR_PYTHON=off to read spines with Tesseract alone)"
        case .sceneTextFailed(let file, let reason):
            "\(file.isEmpty ? "PP-OCR" : file + ": PP-OCR"): \(reason)"
        }
    }
}
