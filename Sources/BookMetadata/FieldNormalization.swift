import Foundation

/// Book descriptions as plain text: HTML tags removed (paragraphs and line breaks kept as
/// blank lines / newlines), entities decoded, Windows-1252 punctuation that arrived as C1
/// control characters repaired, whitespace tidied.
public enum PlainText {
    public static func fromHTML(_ raw: String?) -> String? {
        guard let raw, !raw.isEmpty else { return nil }
        var text = raw.replacingOccurrences(of: "<br\\s*/?>", with: "\n", options: [.regularExpression, .caseInsensitive])
        text = text.replacingOccurrences(of: "</?(p|div|li|ul|ol|h[1-6])(\\s[^>]*)?>", with: "\n\n",
                                         options: [.regularExpression, .caseInsensitive])
        text = text.replacingOccurrences(of: "<[^>]+>", with: "", options: .regularExpression)
        text = decodeEntities(text)
        text = repairC1(text)
        return tidy(text)
    }

    /// Trims and collapses runs of spaces and of blank lines; control characters dropped
    /// (`OutsideText.clean`).
    public static func tidy(_ text: String) -> String? {
        let unified = OutsideText.clean(text, keepingLines: true).replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        let lines = unified.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\u{00A0}" }).joined(separator: " ")
        }
        var result: [String] = []
        for line in lines where !(line.isEmpty && (result.last?.isEmpty ?? true)) {
            result.append(line)
        }
        let joined = result.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        return joined.isEmpty ? nil : joined
    }

    private static let namedEntities: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ",
        "mdash": "—", "ndash": "–", "hellip": "…", "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”",
        "laquo": "«", "raquo": "»", "copy": "©", "reg": "®", "trade": "™", "eacute": "é", "egrave": "è",
        "agrave": "à", "uuml": "ü", "ouml": "ö", "auml": "ä", "szlig": "ß", "ccedil": "ç", "bull": "•", "middot": "·",
    ]

    static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var output = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            output += rest[..<amp]
            let afterAmp = rest[rest.index(after: amp)...]
            if let semicolon = afterAmp.prefix(10).firstIndex(of: ";"),
               let decoded = decodeEntity(afterAmp[..<semicolon]) {
                output += decoded
                rest = afterAmp[afterAmp.index(after: semicolon)...]
            } else {
                output += "&"
                rest = afterAmp
            }
        }
        return output + rest
    }

    private static func decodeEntity(_ name: Substring) -> String? {
        if name.hasPrefix("#") {
            let number = name.dropFirst()
            let value = number.first == "x" || number.first == "X" ? UInt32(number.dropFirst(), radix: 16) : UInt32(number)
            return value.flatMap(Unicode.Scalar.init).map { repairC1(String($0)) }
        }
        return namedEntities[String(name)]
    }

    /// U+0080…U+009F are C1 controls no one means; in book blurbs they are Windows-1252
    /// punctuation decoded as Latin-1 (e.g. U+0097 for an em dash).
    static let windows1252C1: [UInt32: Character] = [
        0x85: "…", 0x91: "‘", 0x92: "’", 0x93: "“", 0x94: "”", 0x95: "•", 0x96: "–", 0x97: "—", 0x99: "™",
    ]

    static func repairC1(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { (0x80...0x9F).contains($0.value) }) else { return text }
        var output = ""
        for scalar in text.unicodeScalars {
            if (0x80...0x9F).contains(scalar.value) {
                if let replacement = windows1252C1[scalar.value] { output.append(replacement) }
            } else {
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }
}

/// The one cover-URL rule, for sources and the best-data merge alike: Google Books and
/// Open Library serve their covers over HTTPS too, so `http://` is rewritten, and Google's
/// `edge` parameter (`edge=curl` draws a page curl on the thumbnail) is dropped. Other hosts
/// are kept as given; text that is not a URL with a host is no cover.
public enum CoverURL {
    public static func normalize(_ raw: String?) -> String? {
        guard let url = raw?.trimmingCharacters(in: .whitespacesAndNewlines), !url.isEmpty,
              var components = URLComponents(string: url), let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        let isGoogle = host.hasSuffix("books.google.com") || host.hasSuffix("googleusercontent.com")
            || host.hasPrefix("books.google.")
        let isOpenLibrary = host.hasSuffix("openlibrary.org") || host.hasSuffix("archive.org")
        guard isGoogle || isOpenLibrary else { return url }
        if components.scheme?.lowercased() == "http" { components.scheme = "https" }
        // Percent-encoded items: the other parameters keep their bytes exactly.
        if isGoogle, let items = components.percentEncodedQueryItems {
            let kept = items.filter { $0.name != "edge" }
            components.percentEncodedQueryItems = kept.isEmpty ? nil : kept
        }
        return components.string ?? url
    }
}

public enum LanguageCode {
    /// ISO 639-2 codes Open Library uses ("/languages/eng") to the 639-1 codes Google uses.
    private static let twoLetter: [String: String] = [
        "eng": "en", "fre": "fr", "fra": "fr", "ger": "de", "deu": "de", "spa": "es", "ita": "it", "por": "pt",
        "dut": "nl", "nld": "nl", "rus": "ru", "jpn": "ja", "chi": "zh", "zho": "zh", "swe": "sv", "nor": "no",
        "dan": "da", "fin": "fi", "pol": "pl", "cze": "cs", "ces": "cs", "gre": "el", "ell": "el", "tur": "tr",
        "ara": "ar", "heb": "he", "hin": "hi", "kor": "ko", "lat": "la", "rum": "ro", "ron": "ro", "hun": "hu",
        "ukr": "uk", "cat": "ca", "ice": "is", "isl": "is", "wel": "cy", "cym": "cy", "gle": "ga",
    ]

    /// The MARC (ISO 639-2/B) spelling of each code above: `bibliographic` maps back through the same table.
    private static let bibliographicCodes = [
        "eng", "fre", "ger", "spa", "ita", "por", "dut", "rus", "jpn", "chi", "swe", "nor", "dan", "fin", "pol", "cze",
        "gre", "tur", "ara", "heb", "hin", "kor", "lat", "rum", "hun", "ukr", "cat", "ice", "wel", "gle",
    ]

    /// The ISO 639-2/B code MARC records use for a stored code ("en" -> "eng"), nil when unknown.
    public static func bibliographic(_ code: String) -> String? {
        let code = code.lowercased()
        if bibliographicCodes.contains(code) { return code }
        return bibliographicCodes.first { twoLetter[$0] == code }
    }

    public static func normalize(_ raw: String?) -> String? {
        guard let raw else { return nil }
        let code = OutsideText.clean(raw).split(separator: "/").last.map(String.init)?.lowercased() ?? ""
        guard !code.isEmpty else { return nil }
        return twoLetter[code] ?? code
    }
}

/// The one format rule, for a source's free text (Open Library's `physical_format`) and
/// the cache's `isbnIndex.format`: "hardcover", "paperback", "ebook", "audiobook", or nil
/// when the text names none of them (stored as "unknown").
public enum BookFormat {
    public static let unknown = "unknown"

    public static func normalize(_ raw: String?) -> String? {
        guard let text = raw?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased(), !text.isEmpty else { return nil }
        func mentions(_ words: String...) -> Bool { words.contains { text.contains($0) } }
        if mentions("hard", "library binding") { return "hardcover" }
        if mentions("paper", "soft", "mass market") { return "paperback" }
        if mentions("audio") { return "audiobook" }
        if mentions("ebook", "e-book", "electronic", "digital", "kindle") { return "ebook" }
        return nil
    }

    /// What the cache stores: one of the four formats or "unknown".
    public static func stored(_ raw: String?) -> String { normalize(raw) ?? unknown }
}
