/// A value of a dump row's JSON, as far as the loader reads it.
enum ScannedJSON: Sendable, Hashable {
    case string(String)
    case integer(Int)
    /// A fraction, an exponent or more digits than an Int holds: what an Int field makes of
    /// it is the full parser's call.
    case otherNumber
    case bool(Bool)
    case null
    case array([ScannedJSON])
    case object(ScannedObject)

    var string: String? {
        if case .string(let text) = self { text } else { nil }
    }

    var object: ScannedObject? {
        if case .object(let members) = self { members } else { nil }
    }
}

/// An object's members in their order: the objects kept (references, typed texts) have one to
/// three members, so a list searched in order costs less than hashing each key.
struct ScannedObject: Sendable, Hashable {
    struct Member: Sendable, Hashable {
        var key: String
        var value: ScannedJSON
    }

    var members: [Member] = []

    subscript(key: String) -> ScannedJSON? {
        members.first { $0.key == key }?.value
    }
}

/// Reads the few top-level keys of a record's JSON the local source keeps, straight from the
/// row's bytes, and skips (checking) everything else: the dump's rows are ~1.5 KB of which a
/// lookup needs a dozen short values, and Foundation's decoder builds all of it.
/// Anything it is not sure of — broken or unusual JSON, a repeated key, a lone surrogate —
/// is `unsure`, and the row goes to the full parser, which decides and words any error.
struct DumpJSONScanner {
    struct Unsure: Error {}

    /// The values of `keys` (nil: absent), in their order. `bytes` must be valid UTF-8.
    static func scanObject(_ bytes: UnsafeBufferPointer<UInt8>, keys: [[UInt8]]) throws(Unsure) -> [ScannedJSON?] {
        var scanner = DumpJSONScanner(bytes: bytes)
        var values = [ScannedJSON?](repeating: nil, count: keys.count)
        scanner.skipWhitespace()
        try scanner.expect(UInt8(ascii: "{"))
        scanner.skipWhitespace()
        if scanner.peek() == UInt8(ascii: "}") {
            scanner.index += 1
        } else {
            while true {
                scanner.skipWhitespace()
                let wanted = try scanner.memberKey(among: keys)
                scanner.skipWhitespace()
                try scanner.expect(UInt8(ascii: ":"))
                scanner.skipWhitespace()
                if let wanted {
                    // A repeated key: which one counts is the full parser's call.
                    guard values[wanted] == nil else { throw Unsure() }
                    values[wanted] = try scanner.value(depth: 1)
                } else {
                    try scanner.skipValue(depth: 1)
                }
                scanner.skipWhitespace()
                let next = try scanner.next()
                if next == UInt8(ascii: "}") { break }
                guard next == UInt8(ascii: ",") else { throw Unsure() }
            }
        }
        scanner.skipWhitespace()
        guard scanner.index == bytes.count else { throw Unsure() }
        return values
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private static let maxDepth = 64

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func next() throws(Unsure) -> UInt8 {
        guard index < bytes.count else { throw Unsure() }
        defer { index += 1 }
        return bytes[index]
    }

    private mutating func expect(_ byte: UInt8) throws(Unsure) {
        guard try next() == byte else { throw Unsure() }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// An object member's key: the index of the wanted key it is, or nil.
    private mutating func memberKey(among keys: [[UInt8]]) throws(Unsure) -> Int? {
        guard peek() == UInt8(ascii: "\"") else { throw Unsure() }
        let start = index + 1
        if let end = plainStringEnd(from: start) {
            index = end + 1
            // Lengths first: most of a row's keys match none of the kept ones.
            let length = end - start
            return keys.firstIndex { wanted in
                wanted.count == length && wanted.withUnsafeBufferPointer { wantedBytes in
                    var offset = 0
                    while offset < length, wantedBytes[offset] == bytes[start + offset] { offset += 1 }
                    return offset == length
                }
            }
        }
        let key = Array(try string().utf8)
        return keys.firstIndex(of: key)
    }

    /// The closing quote of a string starting at `start` with no escape or control byte in it.
    private func plainStringEnd(from start: Int) -> Int? {
        var cursor = start
        while cursor < bytes.count {
            let byte = bytes[cursor]
            if byte == UInt8(ascii: "\"") { return cursor }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            cursor += 1
        }
        return nil
    }

    private mutating func value(depth: Int) throws(Unsure) -> ScannedJSON {
        guard depth <= Self.maxDepth, let byte = peek() else { throw Unsure() }
        switch byte {
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "{"):
            index += 1
            var object = ScannedObject()
            skipWhitespace()
            if peek() == UInt8(ascii: "}") {
                index += 1
                return .object(object)
            }
            while true {
                skipWhitespace()
                guard peek() == UInt8(ascii: "\"") else { throw Unsure() }
                let key = try string()
                skipWhitespace()
                try expect(UInt8(ascii: ":"))
                skipWhitespace()
                let member = try value(depth: depth + 1)
                guard object[key] == nil else { throw Unsure() }
                object.members.append(ScannedObject.Member(key: key, value: member))
                skipWhitespace()
                let next = try next()
                if next == UInt8(ascii: "}") { return .object(object) }
                guard next == UInt8(ascii: ",") else { throw Unsure() }
            }
        case UInt8(ascii: "["):
            index += 1
            var elements: [ScannedJSON] = []
            skipWhitespace()
            if peek() == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                skipWhitespace()
                elements.append(try value(depth: depth + 1))
                skipWhitespace()
                let next = try next()
                if next == UInt8(ascii: "]") { return .array(elements) }
                guard next == UInt8(ascii: ",") else { throw Unsure() }
            }
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default:
            return try number()
        }
    }

    /// Skips a value, checking it as `value` does, without building it.
    private mutating func skipValue(depth: Int) throws(Unsure) {
        guard depth <= Self.maxDepth, let byte = peek() else { throw Unsure() }
        switch byte {
        case UInt8(ascii: "\""):
            if let end = plainStringEnd(from: index + 1) {
                index = end + 1
            } else {
                _ = try string()
            }
        case UInt8(ascii: "{"):
            index += 1
            skipWhitespace()
            if peek() == UInt8(ascii: "}") {
                index += 1
                return
            }
            while true {
                skipWhitespace()
                guard peek() == UInt8(ascii: "\"") else { throw Unsure() }
                try skipValue(depth: depth + 1)
                skipWhitespace()
                try expect(UInt8(ascii: ":"))
                skipWhitespace()
                try skipValue(depth: depth + 1)
                skipWhitespace()
                let next = try next()
                if next == UInt8(ascii: "}") { return }
                guard next == UInt8(ascii: ",") else { throw Unsure() }
            }
        case UInt8(ascii: "["):
            index += 1
            skipWhitespace()
            if peek() == UInt8(ascii: "]") {
                index += 1
                return
            }
            while true {
                skipWhitespace()
                try skipValue(depth: depth + 1)
                skipWhitespace()
                let next = try next()
                if next == UInt8(ascii: "]") { return }
                guard next == UInt8(ascii: ",") else { throw Unsure() }
            }
        default:
            _ = try value(depth: depth)
        }
    }

    private mutating func literal(_ word: StaticString) throws(Unsure) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw Unsure() }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw Unsure() }
        index += count
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    private mutating func number() throws(Unsure) -> ScannedJSON {
        let start = index
        var negative = false
        if peek() == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        let digitsStart = index
        var magnitude = 0
        while let byte = peek(), byte >= 0x30, byte <= 0x39 {
            if index - digitsStart < 18 { magnitude = magnitude * 10 + Int(byte - 0x30) }
            index += 1
        }
        let digits = index - digitsStart
        guard digits > 0, !(digits > 1 && bytes[digitsStart] == UInt8(ascii: "0")) else { throw Unsure() }
        var integral = digits <= 18
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard try skipDigits() > 0 else { throw Unsure() }
            integral = false
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard try skipDigits() > 0 else { throw Unsure() }
            integral = false
        }
        // A number must end at a delimiter ("12a" is not JSON).
        if let byte = peek(), !(byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}")
            || byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D) {
            throw Unsure()
        }
        guard index > start else { throw Unsure() }
        return integral ? .integer(negative ? -magnitude : magnitude) : .otherNumber
    }

    private mutating func skipDigits() throws(Unsure) -> Int {
        let start = index
        while let byte = peek(), byte >= 0x30, byte <= 0x39 { index += 1 }
        return index - start
    }

    /// A string at `index` (its opening quote), unescaped.
    private mutating func string() throws(Unsure) -> String {
        try expect(UInt8(ascii: "\""))
        let start = index
        if let end = plainStringEnd(from: start) {
            index = end + 1
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
        var text: [UInt8] = []
        while true {
            let byte = try next()
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                switch try next() {
                case UInt8(ascii: "\""): text.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): text.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): text.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        // A high surrogate must be followed by its low half, escaped.
                        guard try next() == UInt8(ascii: "\\"), try next() == UInt8(ascii: "u") else { throw Unsure() }
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw Unsure() }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw Unsure()
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw Unsure() }
                    UTF8.encode(unicode) { text.append($0) }
                default:
                    throw Unsure()
                }
            default:
                guard byte >= 0x20 else { throw Unsure() }
                text.append(byte)
            }
        }
    }

    private mutating func hex4() throws(Unsure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = try next()
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: throw Unsure()
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
