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

    static func write(_ value: some Encodable) throws {
        let data = try encoder.encode(value)
        Console.out(String(decoding: data, as: UTF8.self))
    }
}

/// Line output that keeps stdout and stderr each whole-line and in order.
enum Console {
    static func out(_ line: String) {
        print(line)
        fflush(nil)
    }

    /// Problems with one input while a batch goes on.
    static func error(_ line: String) {
        fflush(nil)
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
