import Foundation

/// Replaces a secret (an API key) with `REDACTED` in any text that came from a request or
/// a response, in every encoding the secret can take there: raw, percent-encoded (upper-
/// or lower-case hex, every byte or only the reserved ones), form-encoded (`+` for space)
/// JSON-escaped (`\/`) and base64 (standard or URL-safe, at any offset in a longer base64
/// text: a Basic credential, a quoted header dump). A server that quotes the query string back in an error
/// message must not carry the key into output, logs or the database.
public struct SecretRedaction: Sendable, Hashable {
    public static let placeholder = "REDACTED"
    private let variants: [String]

    public init(secrets: [String]) {
        var forms = Set<String>()
        for secret in secrets where !secret.isEmpty {
            forms.insert(secret)
            forms.formUnion(Self.encodings(of: secret))
        }
        // Longest first, so an encoded form is replaced before a raw substring of it.
        variants = forms.sorted { ($0.count, $0) > ($1.count, $1) }
    }

    public init(secret: String?) { self.init(secrets: secret.map { [$0] } ?? []) }

    public func redact(_ text: String) -> String {
        var text = text
        for variant in variants where text.range(of: variant, options: .caseInsensitive) != nil {
            // Hex digits may be either case; the raw key is matched exactly too.
            text = text.replacingOccurrences(of: variant, with: Self.placeholder, options: .caseInsensitive)
        }
        return text
    }

    public var isEmpty: Bool { variants.isEmpty }

    static func encodings(of secret: String) -> Set<String> {
        var result = Set<String>()
        let bytes = Array(secret.utf8)
        // Every byte percent-encoded except unreserved characters (RFC 3986).
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        for allowed in [unreserved, .alphanumerics, .urlQueryAllowed, .urlPathAllowed, RequestURL.queryValueAllowed] {
            if let encoded = secret.addingPercentEncoding(withAllowedCharacters: allowed) { result.insert(encoded) }
        }
        // Form encoding: space as `+`.
        var formAllowed = unreserved
        formAllowed.insert(" ")
        if let form = secret.addingPercentEncoding(withAllowedCharacters: formAllowed) {
            result.insert(form.replacingOccurrences(of: " ", with: "+"))
        }
        // Every byte as %XX.
        result.insert(bytes.map { String(format: "%%%02X", $0) }.joined())
        // JSON escaping of `/`.
        result.formUnion(result.map { $0.replacingOccurrences(of: "/", with: "\\/") })
        result.insert(secret.replacingOccurrences(of: "/", with: "\\/"))
        // Double percent-encoding (a quoted, already-encoded query).
        for single in Array(result) {
            if let double = single.addingPercentEncoding(withAllowedCharacters: unreserved) { result.insert(double) }
        }
        result.formUnion(base64Cores(of: bytes))
        return result.filter { !$0.isEmpty }
    }

    /// The secret's bytes in base64 as they appear at each of the three byte offsets within a
    /// longer encoded text: the characters that depend on the secret's bytes alone (a
    /// neighbouring byte shares the first and last group's characters). Too short a core (a
    /// secret under a dozen bytes) would match unrelated text, so none is given for it.
    static func base64Cores(of bytes: [UInt8]) -> Set<String> {
        guard bytes.count >= 12 else { return [] }
        var cores = Set<String>()
        for offset in 0..<3 {
            let encoded = Data([UInt8](repeating: 0, count: offset) + bytes).base64EncodedString()
            // Characters wholly from the secret: skip the prefix's share, stop before the last
            // group that a following byte could change.
            let skip = [0, 2, 3][offset]
            let whole = (offset + bytes.count) / 3 * 4
            guard whole - skip >= 12 else { continue }
            let characters = Array(encoded)
            let core = String(characters[skip..<whole])
            cores.insert(core)
            cores.insert(core.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_"))
        }
        return cores
    }
}
