import BookCodes
import BookMetadata
/// The cache's identifier for a work (all editions of one book): the seed's
/// `generateWorkKey(title, author)`, reproduced character for character so keys match
/// the ones PageSwipe writes to Firestore.
///
/// "Think Again" + "Adam Grant" → "thinkagain_adamgrant"
public struct WorkKey: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(title: String, author: String) {
        let normalizedTitle = Self.keepAlphanumerics(Self.removingLeadingArticle(title.lowercased()))
        let normalizedAuthor = Self.keepAlphanumerics(author.lowercased())
        rawValue = String(normalizedTitle.prefix(50)) + "_" + String(normalizedAuthor.prefix(30))
    }

    /// The key for an edition as a source described it. A title with no Latin letters or
    /// digits (e.g. one written in Japanese) normalizes to nothing; the seed's formula
    /// would then file every such book by one author under a single work, so that case
    /// falls back to the ISBN, keeping distinct books apart.
    public init(edition: EditionMetadata, isbn: String?) {
        let key = WorkKey(title: edition.title, author: edition.authors.first ?? "")
        if key.rawValue.hasPrefix("_"), let isbn {
            self.init(rawValue: "isbn" + isbn + key.rawValue)
        } else {
            self = key
        }
    }

    public var description: String { rawValue }

    /// `.replace(/^(the|a|an)\s+/i, '')`: the article must be followed by whitespace.
    public static func removingLeadingArticle(_ lowercased: String) -> String {
        let scalars = Array(lowercased.unicodeScalars)
        for article in ["the", "an", "a"] {
            let articleScalars = Array(article.unicodeScalars)
            guard scalars.starts(with: articleScalars) else { continue }
            var end = articleScalars.count
            while end < scalars.count, isJavaScriptWhitespace(scalars[end]) { end += 1 }
            if end > articleScalars.count {
                var rest = String.UnicodeScalarView()
                rest.append(contentsOf: scalars[end...])
                return String(rest)
            }
        }
        return lowercased
    }

    /// `.replace(/[^a-z0-9]/g, '')`
    static func keepAlphanumerics(_ text: String) -> String {
        var kept = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
            kept.append(scalar)
        }
        return String(kept)
    }

    /// JavaScript's `\s`: ECMAScript WhiteSpace and LineTerminator code points.
    static func isJavaScriptWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
            return true
        default:
            return false
        }
    }
}
