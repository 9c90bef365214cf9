import Catalogue
import Foundation

/// One JSON object with its keys in the order they were added, serialized on one line.
/// (JSONEncoder does not promise key order; scripts reading `--json` like `event` first.)
struct JSONLine: Sendable {
    indirect enum Value: Sendable {
        case string(String), int(Int), double(Double), bool(Bool), null
        case array([Value])
        case object(JSONLine)
    }

    private var fields: [(key: String, value: Value)] = []

    init() {}

    mutating func set(_ key: String, _ value: Value) { fields.append((key, value)) }
    mutating func set(_ key: String, _ value: String?) { set(key, value.map(Value.string) ?? .null) }
    mutating func set(_ key: String, _ value: Int?) { set(key, value.map(Value.int) ?? .null) }
    /// Adds the key only when there is a value.
    mutating func setIfPresent(_ key: String, _ value: String?) { if let value { set(key, .string(value)) } }
    mutating func setIfPresent(_ key: String, _ value: Int?) { if let value { set(key, .int(value)) } }

    var text: String {
        var out = ""
        Self.write(.object(self), to: &out)
        return out
    }

    private static func write(_ value: Value, to out: inout String) {
        switch value {
        case .string(let s): writeString(s, to: &out)
        case .int(let i): out += String(i)
        case .double(let d): out += d.isFinite ? String(format: "%.3f", d) : "null"
        case .bool(let b): out += b ? "true" : "false"
        case .null: out += "null"
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                write(item, to: &out)
            }
            out += "]"
        case .object(let object):
            out += "{"
            for (i, field) in object.fields.enumerated() {
                if i > 0 { out += "," }
                writeString(field.key, to: &out)
                out += ":"
                write(field.value, to: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ s: String, to out: inout String) {
        var bytes: [UInt8] = []
        JSONValue.appendString(s, to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }
}

extension Date {
    /// ISO 8601 in UTC with milliseconds: "2026-11-22T10:15:30.250Z".
    var iso8601WithMilliseconds: String {
        formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
