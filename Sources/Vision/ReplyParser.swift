import BookMetadata
import Foundation

/// Turns a model's text into spine readings, tolerating what real replies do: JSON in code
/// fences or between prose, a bare array or an object holding one, a single book object,
/// and output cut off mid-list (the complete entries are kept).
public enum ReplyParser {
    public struct Parsed: Sendable, Hashable {
        public var readings: [SpineReading]
        /// The JSON ended before it closed: `readings` holds the complete entries only.
        public var incomplete: Bool
    }

    /// Deeper nesting is no list of spines (an object in a list in an object is three).
    static let maxDepth = 32
    /// Bracketed spans tried as JSON before the reply is given up on (prose full of "{}").
    static let maxAttempts = 1000

    /// nil when the text holds no JSON at all (prose only), or nothing a list of spines could be.
    /// Linear in the text: the brackets are matched in one pass, and with nesting bounded each
    /// byte lies in at most `maxDepth` of the spans tried.
    public static func parse(_ text: String) -> Parsed? {
        let bytes = Array(unfenced(text).utf8)
        guard let closes = matchBrackets(bytes) else { return nil }
        var attempts = 0
        // Try each opening bracket in turn: prose before the JSON may hold a stray "[".
        for open in bytes.indices where closes[open] != notOpening {
            let end = closes[open]
            guard end != neverCloses else {
                // Never closed: the reply was cut. Keep the entries that did close.
                return Parsed(readings: salvage(bytes, closes, from: open), incomplete: true)
            }
            attempts += 1
            guard attempts <= maxAttempts else { return nil }
            if let value = try? JSONSerialization.jsonObject(with: Data(bytes[open...end]), options: [.fragmentsAllowed]),
               let readings = readings(from: value) {
                return Parsed(readings: readings, incomplete: false)
            }
        }
        return nil
    }

    /// `matchBrackets`' marks: a byte that opens no bracket, a bracket the text never closes.
    static let notOpening = -1
    static let neverCloses = -2

    /// For each byte: the index of the bracket closing the one it opens (outside strings), else
    /// `notOpening` or `neverCloses`. nil when brackets nest deeper than `maxDepth`.
    static func matchBrackets(_ bytes: [UInt8]) -> [Int]? {
        var closes = [Int](repeating: notOpening, count: bytes.count)
        var open: [Int] = []
        var inString = false, escaped = false
        for (index, byte) in bytes.enumerated() {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                guard open.count < maxDepth else { return nil }
                closes[index] = neverCloses
                open.append(index)
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if let start = open.popLast() { closes[start] = index }
            default: break
            }
        }
        return closes
    }

    /// The inside of the first ``` fence (to the end when the fence never closes), else the text.
    static func unfenced(_ text: String) -> String {
        guard let fence = text.range(of: "```") else { return text }
        var body = text[fence.upperBound...]
        if let newline = body.firstIndex(of: "\n"), !body[..<newline].contains(where: { $0 == "{" || $0 == "[" }) {
            body = body[body.index(after: newline)...]  // the "json" language tag
        }
        if let close = body.range(of: "```") { body = body[..<close.lowerBound] }
        return String(body)
    }

    /// The complete objects of the innermost list being written when the text stopped.
    static func salvage(_ bytes: [UInt8], _ closes: [Int], from open: Int) -> [SpineReading] {
        var found: [SpineReading] = []
        var index = open
        var attempts = 0
        while index < bytes.count, attempts < maxAttempts {
            // Each "{" that closes is a candidate entry; one that holds a list is descended into.
            guard let objectStart = bytes[index...].firstIndex(of: UInt8(ascii: "{")) else { break }
            index = objectStart + 1
            let end = closes[objectStart]
            guard end >= 0 else { continue }
            attempts += 1
            if let object = try? JSONSerialization.jsonObject(with: Data(bytes[objectStart...end])) as? [String: Any],
               let reading = reading(from: object) {
                found.append(reading)
                attempts = 0
                index = end + 1
            }
        }
        return found
    }

    static let listKeys = ["spines", "books", "items", "results", "titles", "data"]

    static func readings(from value: Any) -> [SpineReading]? {
        if let list = value as? [Any] {
            return list.compactMap { element in
                if let object = element as? [String: Any] { return reading(from: object) }
                if let text = (element as? String).map({ OutsideText.clean($0) }), !text.isEmpty { return SpineReading(text: text) }
                return nil
            }
        }
        guard let object = value as? [String: Any] else { return nil }
        for key in listKeys { if let list = object[key] as? [Any] { return readings(from: list) } }
        if let list = object.values.first(where: { ($0 as? [Any])?.first is [String: Any] }) { return readings(from: list) }
        return reading(from: object).map { [$0] }
    }

    static func reading(from object: [String: Any]) -> SpineReading? {
        func string(_ keys: String...) -> String? {
            for key in keys {
                // A model's reply is outside text: no terminal control reaches the store.
                if let s = (object[key] as? String).map({ OutsideText.clean($0) }), !s.trimmingCharacters(in: .whitespaces).isEmpty {
                    return s.trimmingCharacters(in: .whitespaces)
                }
                if let n = object[key] as? NSNumber, !(object[key] is Bool) { return n.stringValue }
                if let list = object[key] as? [String], !list.isEmpty { return list.joined(separator: ", ") }
            }
            return nil
        }
        let title = string("title", "book_title", "name")
        let author = string("author", "authors", "author_name")
        let unreadable = (object["unreadable"] as? Bool) ?? false
        let text = string("text", "spine_text", "raw", "raw_text") ?? [title, author].compactMap { $0 }.joined(separator: " ")
        guard !text.isEmpty || unreadable else { return nil }
        var confidence = (object["confidence"] as? NSNumber)?.doubleValue ?? (object["confidence"] as? String).flatMap(Double.init)
        if let c = confidence, c > 1, c <= 100 { confidence = c / 100 }
        return SpineReading(text: text, title: title, author: author, series: string("series"), volume: string("volume", "volume_number"),
                            position: (object["position"] as? NSNumber)?.intValue, confidence: confidence, unreadable: unreadable)
    }
}
