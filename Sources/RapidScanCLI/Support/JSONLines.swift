import BookCodes
import Foundation

/// JSON Lines on standard output: one compact object per line, flushed per line so a
/// consumer piping the output sees each record as soon as it is known.
enum JSONLines {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func write(_ value: some Encodable) throws {
        let data = try encoder.encode(value)
        Console.out(String(decoding: data, as: UTF8.self))
    }
}

/// Line output that keeps stdout and stderr each whole-line and in order: stdio's buffer
/// (plain `print` in the commands) is flushed first, then the line goes out with write(2)
/// like the scan/watch event output.
enum Console {
    static func out(_ line: String) {
        fflush(nil)
        StandardStream.standardOutput.write(line + "\n")
    }

    /// Problems with one input while a batch goes on.
    static func error(_ line: String) {
        fflush(nil)
        StandardStream.standardError.write(line + "\n")
    }
}

/// The `"schema"` every JSON Lines object carries (docs/CLI.md); bumped only on an
/// incompatible change to a field's name or meaning.
enum JSONSchema {
    /// The scan/watch event lines (`JSONLinesOutput`) carry it too.
    static let version = 1
}

/// `"addon"` in every command's JSON: the EAN-2/EAN-5 printed beside a code, as an object
/// (`text`, `symbology`, `price` or null), never a bare string.
struct AddOnRecord: Encodable {
    var text: String
    var symbology: String
    var price: String?

    init(_ addOn: AddOn) {
        text = addOn.text
        symbology = addOn.symbology.rawValue
        price = addOn.price?.description
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(text, forKey: .text)
        try container.encode(symbology, forKey: .symbology)
        try container.encode(price, forKey: .price)  // null, not absent: the key is always there
    }

    enum CodingKeys: String, CodingKey { case text, symbology, price }
}
