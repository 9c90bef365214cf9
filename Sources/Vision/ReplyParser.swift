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

    /// nil when the text holds no JSON at all (prose only).
    public static func parse(_ text: String) -> Parsed? {
        let bytes = Array(unfenced(text).utf8)
        var start = 0
        // Try each opening bracket in turn: prose before the JSON may hold a stray "[".
        while let open = bytes[start...].firstIndex(where: { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "{") }) {
            if let end = closingIndex(bytes, from: open) {
                if let value = try? JSONSerialization.jsonObject(with: Data(bytes[open...end]), options: [.fragmentsAllowed]),
                   let readings = readings(from: value) {
                    return Parsed(readings: readings, incomplete: false)
                }
                start = open + 1
                continue
            }
            // Never closed: the reply was cut. Keep the entries that did close.
            return Parsed(readings: salvage(bytes, from: open), incomplete: true)
        }
        return nil
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

    /// Index of the bracket closing the one at `open`, skipping strings; nil when it never closes.
    static func closingIndex(_ bytes: [UInt8], from open: Int) -> Int? {
        var depth = 0, inString = false, escaped = false
        for index in open..<bytes.count {
            let byte = bytes[index]
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
                if depth == 0 { return index }
            default: break
            }
        }
        return nil
    }

    /// The complete objects of the innermost list being written when the text stopped.
    static func salvage(_ bytes: [UInt8], from open: Int) -> [SpineReading] {
        var found: [SpineReading] = []
        var index = open
        while index < bytes.count {
            // Each "{" that closes is a candidate entry; one that holds a list is descended into.
            guard let objectStart = bytes[index...].firstIndex(of: UInt8(ascii: "{")) else { break }
            if let end = closingIndex(bytes, from: objectStart),
               let object = try? JSONSerialization.jsonObject(with: Data(bytes[objectStart...end])) as? [String: Any],
               let reading = reading(from: object) {
                found.append(reading)
                index = end + 1
            } else {
                index = objectStart + 1
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
