import Foundation

/// Finds the folder holding every requested `<language>.traineddata` before Tesseract is
/// started, so a missing package is a clear error instead of Tesseract's stderr chatter.
enum LanguageData {
    /// Debian's tesseract-ocr-* packages install here (5.x, then 4.x).
    static let debianFolders = [
        "/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata", "/usr/share/tessdata",
    ]

    static func folder(for languages: [String], explicit: String?,
                       environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(TesseractError) -> String {
        for language in languages {
            guard !language.isEmpty, language.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
            else { throw .invalidLanguage(language) }
        }
        let candidates: [String]
        if let explicit {
            candidates = [explicit]
        } else if let prefix = environment["TESSDATA_PREFIX"], !prefix.isEmpty {
            // Tesseract 5 reads TESSDATA_PREFIX as the tessdata folder itself.
            candidates = [prefix, (prefix as NSString).appendingPathComponent("tessdata")] + debianFolders
        } else {
            candidates = debianFolders
        }
        let manager = FileManager.default
        for language in languages {
            let found = candidates.contains {
                manager.isReadableFile(atPath: ($0 as NSString).appendingPathComponent("\(language).traineddata"))
            }
            if !found { throw .missingLanguageData(language: language, searched: candidates) }
        }
        // The first folder holding all of them (Tesseract takes one data path).
        for candidate in candidates where languages.allSatisfy({
            manager.isReadableFile(atPath: (candidate as NSString).appendingPathComponent("\($0).traineddata"))
        }) {
            return candidate
        }
        throw .missingLanguageData(language: languages.joined(separator: "+"), searched: candidates)
    }
}
