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
        /// Entries of a list longer than `ReplyLimits.maxReadings`, not parsed (counted).
        public var dropped = 0
    }

    /// Deeper nesting is no list of spines (an object in a list in an object is three).
    static let maxDepth = 32
    /// Bracketed spans tried as JSON before the reply is given up on (prose full of "{}").
    static let maxAttempts = 1000

    /// nil when the text holds no JSON at all (prose only), or nothing a list of spines could be.
    /// Linear in the text: the brackets are matched in one pass, and with nesting bounded each
    /// byte lies in at most `maxDepth` of the spans tried. A list of more entries than a shelf
    /// holds is cut before JSON parsing (the entries past the limit are counted, not parsed).
    /// `image`: the size of the image the model saw, for a spine's box given in its pixels
    /// (a box in fractions of the image needs none); boxes are in that frame.
    public static func parse(_ text: String, image: (width: Int, height: Int)? = nil) -> Parsed? {
        parse(Array(unfenced(text).utf8), trimming: true, image: image)
    }

    static func parse(_ bytes: [UInt8], trimming: Bool, image: (width: Int, height: Int)? = nil) -> Parsed? {
        guard let brackets = Brackets(bytes) else { return nil }
        if trimming, let (trimmed, dropped) = brackets.trimmingCrowdedList(bytes, keeping: ReplyLimits.maxReadings) {
            guard var parsed = parse(trimmed, trimming: false, image: image) else { return nil }
            parsed.dropped += dropped
            return parsed
        }
        var attempts = 0
        // Try each opening bracket in turn: prose before the JSON may hold a stray "[".
        for number in brackets.position.indices {
            let open = Int(brackets.position[number]), end = Int(brackets.close[number])
            guard end >= 0 else {
                // Never closed: the reply was cut. Keep the entries that did close.
                return Parsed(readings: salvage(bytes, brackets, from: number, image: image), incomplete: true)
            }
            attempts += 1
            guard attempts <= maxAttempts else { return nil }
            if let value = try? JSONSerialization.jsonObject(with: Data(bytes[open...end]), options: [.fragmentsAllowed]),
               let readings = readings(from: value, image: image) {
                return Parsed(readings: readings, incomplete: false)
            }
        }
        return nil
    }

    /// Every bracket outside a string, matched in one pass: opening brackets in text order with
    /// the offset of their closing bracket (-1: never closed), the bracket they sit in (-1:
    /// none) and how many brackets sit directly in them. Int32: a reply is at most 8 MB.
    struct Brackets {
        var position: [Int32] = []
        var close: [Int32] = []
        var parent: [Int32] = []
        var children: [Int32] = []

        /// nil when brackets nest deeper than `maxDepth`.
        init?(_ bytes: [UInt8]) {
            var open: [Int32] = []
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
                    if let enclosing = open.last { children[Int(enclosing)] += 1 }
                    position.append(Int32(index))
                    close.append(-1)
                    parent.append(open.last ?? -1)
                    children.append(0)
                    open.append(Int32(position.count - 1))
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    if let number = open.popLast() { close[Int(number)] = Int32(index) }
                default: break
                }
            }
        }

        /// The text cut after the `keeping`-th entry of the list holding the most bracketed
        /// entries, when it holds more, with the brackets around the cut closed again; and how
        /// many entries were cut. nil when no list holds more.
        func trimmingCrowdedList(_ bytes: [UInt8], keeping: Int) -> ([UInt8], dropped: Int)? {
            guard let crowded = children.indices.max(by: { children[$0] < children[$1] }), Int(children[crowded]) > keeping else { return nil }
            var kept = 0
            var cut: Int?
            for number in (crowded + 1)..<position.count where Int(parent[number]) == crowded {
                kept += 1
                if kept == keeping { cut = Int(close[number]); break }
            }
            guard let cut, cut >= 0 else { return nil }
            var trimmed = Array(bytes[...cut])
            var enclosing = crowded
            while enclosing >= 0 {
                trimmed.append(bytes[Int(position[enclosing])] == UInt8(ascii: "[") ? UInt8(ascii: "]") : UInt8(ascii: "}"))
                enclosing = Int(parent[enclosing])
            }
            return (trimmed, Int(children[crowded]) - keeping)
        }
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
    static func salvage(_ bytes: [UInt8], _ brackets: Brackets, from first: Int, image: (width: Int, height: Int)? = nil) -> [SpineReading] {
        var found: [SpineReading] = []
        var number = first
        var attempts = 0
        while number < brackets.position.count, attempts < maxAttempts {
            // Each "{" that closes is a candidate entry; one that holds a list is descended into.
            let start = Int(brackets.position[number]), end = Int(brackets.close[number])
            number += 1
            guard bytes[start] == UInt8(ascii: "{"), end >= 0 else { continue }
            attempts += 1
            if let object = try? JSONSerialization.jsonObject(with: Data(bytes[start...end])) as? [String: Any],
               let reading = reading(from: object, image: image) {
                found.append(reading)
                attempts = 0
                // Past the entry and everything inside it.
                while number < brackets.position.count, brackets.position[number] < Int32(end) { number += 1 }
            }
        }
        return found
    }

    static let listKeys = ["spines", "books", "items", "results", "titles", "data"]

    static func readings(from value: Any, image: (width: Int, height: Int)? = nil) -> [SpineReading]? {
        if let list = value as? [Any] {
            return list.compactMap { element in
                if let object = element as? [String: Any] { return reading(from: object, image: image) }
                if let text = (element as? String).map({ OutsideText.clean($0) }), !text.isEmpty { return SpineReading(text: text) }
                return nil
            }
        }
        guard let object = value as? [String: Any] else { return nil }
        for key in listKeys { if let list = object[key] as? [Any] { return readings(from: list, image: image) } }
        if let list = object.values.first(where: { ($0 as? [Any])?.first is [String: Any] }) { return readings(from: list, image: image) }
        return reading(from: object, image: image).map { [$0] }
    }

    static func reading(from object: [String: Any], image: (width: Int, height: Int)? = nil) -> SpineReading? {
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
                            position: (object["position"] as? NSNumber)?.intValue, confidence: confidence, unreadable: unreadable,
                            box: box(from: object["box"] ?? object["bbox"] ?? object["corners"], image: image))
    }

    /// The frame a box in fractions is placed in when the image's size is not known.
    static let fractionFrame = 10_000

    /// A spine's box as a model gives it: four [x, y] corners in reading order, or a rectangle
    /// [x, y, w, h] / {"x", "y", "w"/"width", "h"/"height"} from its top-left corner, in
    /// fractions of the image (every value within 0...1) or else in the pixels of `image`.
    /// A rectangle has no reading order: a tall one is taken as printed top to bottom (the
    /// usual way; the crop shows it turned the wrong way round at worst). Anything else, or a
    /// box off the image, is none: the page then shows the whole photo.
    static func box(from value: Any?, image: (width: Int, height: Int)?) -> SpineBox? {
        guard let value else { return nil }
        func number(_ any: Any?) -> Double? {
            guard let any, !(any is Bool) else { return nil }
            return (any as? NSNumber)?.doubleValue
        }
        var corners: [SpineBox.Point]?
        var rectangle: (x: Double, y: Double, w: Double, h: Double)?
        if let list = value as? [Any], list.count == 4 {
            let pairs = list.compactMap { ($0 as? [Any]).flatMap { pair in pair.count == 2 ? zip2(number(pair[0]), number(pair[1])) : nil } }
            let plain = list.compactMap(number)
            if pairs.count == 4 {
                corners = pairs.map { SpineBox.Point(x: $0.0, y: $0.1) }
            } else if plain.count == 4 {
                rectangle = (plain[0], plain[1], plain[2], plain[3])
            }
        } else if let object = value as? [String: Any], let x = number(object["x"]), let y = number(object["y"]),
                  let w = number(object["w"] ?? object["width"]), let h = number(object["h"] ?? object["height"]) {
            rectangle = (x, y, w, h)
        }
        let values = corners.map { $0.flatMap { [$0.x, $0.y] } } ?? rectangle.map { [$0.x, $0.y, $0.w, $0.h] } ?? []
        guard !values.isEmpty else { return nil }
        let fractions = values.allSatisfy { (0...1).contains($0) }
        guard fractions || image != nil else { return nil }
        let (width, height) = fractions ? (image ?? (fractionFrame, fractionFrame)) : image!
        let (sx, sy) = fractions ? (Double(width), Double(height)) : (1, 1)
        if let corners {
            return SpineBox(width: width, height: height, corners: corners.map { SpineBox.Point(x: $0.x * sx, y: $0.y * sy) })
        }
        guard let r = rectangle, r.w > 0, r.h > 0 else { return nil }
        let (x0, y0, x1, y1) = (r.x * sx, r.y * sy, (r.x + r.w) * sx, (r.y + r.h) * sy)
        return SpineBox(width: width, height: height, x0: x0, y0: y0, x1: x1, y1: y1, direction: y1 - y0 > x1 - x0 ? .down : .across)
    }

    private static func zip2(_ a: Double?, _ b: Double?) -> (Double, Double)? {
        guard let a, let b else { return nil }
        return (a, b)
    }
}
