/// A validated retail code: EAN-13, EAN-8, UPC-A or UPC-E. `text` keeps the digits as
/// printed under the bars; `gtin13` puts every code in one space for comparing (a UPC-A and
/// the EAN-13 "0" + same digits are the same product).
public struct GTIN: Hashable, Sendable, CustomStringConvertible {
    /// `.ean13`, `.ean8`, `.upcA` or `.upcE`.
    public let symbology: Symbology
    /// The digits as printed: 13, 8, 12 or 8 (UPC-E: number system, six digits, check digit).
    public let text: String
    /// 13 digits: UPC-A with a leading 0, UPC-E expanded to UPC-A first, EAN-8 padded with zeros.
    public let gtin13: String

    /// `symbology` names the barcode the text came from. ISBN-13 text is an EAN-13, and
    /// ISBN-10 text becomes the EAN-13 of its ISBN-13. EAN-2/EAN-5 are add-ons and throw.
    public init(validating text: String, as symbology: Symbology) throws(BookCodeError) {
        switch symbology {
        case .ean2, .ean5:
            throw .addOnIsNotAProduct(symbology)
        case .isbn10:
            self.init(uncheckedEAN13: try ISBN10(validating: text).isbn13.digits)
        case .isbn13, .ean13, .printed:
            self.init(uncheckedEAN13: try GTIN.checkedDigits(text, as: .ean13))
        case .ean8:
            let digits = try GTIN.checkedDigits(text, as: .ean8)
            self.init(symbology: .ean8, text: digits, gtin13: "00000" + digits)
        case .upcA:
            let digits = try GTIN.checkedDigits(text, as: .upcA)
            self.init(symbology: .upcA, text: digits, gtin13: "0" + digits)
        case .upcE:
            let code = try CodeText(text, for: .upcE)
            try code.requireDigits()
            try code.requireLength(8, for: .upcE)
            guard code.values[0] <= 1 else { throw .invalidUPCENumberSystem(CheckDigit.character(code.values[0])) }
            let upcA = UPCE.expand(Array(code.values.prefix(7)))
            try CheckDigit.verify(code, expected: upcA[11], for: .upcE)
            self.init(symbology: .upcE, text: code.string, gtin13: "0" + String(digitValues: upcA))
        }
    }

    /// Infers the symbology from the length: 13 EAN-13, 12 UPC-A, 8 EAN-8. (An 8-digit
    /// UPC-E looks like an EAN-8: pass `.upcE` explicitly for those.)
    public init(validating text: String) throws(BookCodeError) {
        let code = try CodeText(text, for: .ean13)
        switch code.count {
        case 13: try self.init(validating: text, as: .ean13)
        case 12: try self.init(validating: text, as: .upcA)
        case 8: try self.init(validating: text, as: .ean8)
        default:
            try code.requireDigits()
            throw .wrongLength(.ean13, expected: 13, got: code.count)
        }
    }

    private init(symbology: Symbology, text: String, gtin13: String) {
        self.symbology = symbology
        self.text = text
        self.gtin13 = gtin13
    }

    private init(uncheckedEAN13 digits: String) {
        self.init(symbology: .ean13, text: digits, gtin13: digits)
    }

    /// All digits, the symbology's length, a correct GS1 check digit.
    private static func checkedDigits(_ text: String, as symbology: Symbology) throws(BookCodeError) -> String {
        let code = try CodeText(text, for: symbology)
        try code.requireDigits()
        try code.requireLength(symbology.length, for: symbology)
        try CheckDigit.verify(code, expected: CheckDigit.gs1(code.values.dropLast()), for: symbology)
        return code.string
    }

    /// The 12-digit UPC-A form, when this code has one (UPC-A, UPC-E, or an EAN-13 starting with 0).
    public var upcA: String? {
        gtin13.hasPrefix("0") && symbology != .ean8 ? String(gtin13.dropFirst()) : nil
    }

    /// The 8-digit UPC-E form, when the UPC-A form can be zero-suppressed.
    public var upcE: String? {
        guard let upcA else { return nil }
        return UPCE.compress(upcA.digitValues).map { String(digitValues: $0) }
    }

    /// Bookland: an EAN-13 starting with 978 or 979 (which includes 979-0 ISMNs).
    public var isBookland: Bool { gtin13.hasPrefix("978") || gtin13.hasPrefix("979") }

    public var description: String { text }
}

extension GTIN: Codable {
    private enum CodingKeys: String, CodingKey { case symbology, text }

    /// Stored as `{"symbology": "UPC-E", "text": "01234565"}` and validated again when read.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let symbology = try container.decode(Symbology.self, forKey: .symbology)
        let text = try container.decode(String.self, forKey: .text)
        do { try self.init(validating: text, as: symbology) } catch {
            throw DecodingError.dataCorruptedError(forKey: .text, in: container, debugDescription: "\(text): \(error)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(symbology, forKey: .symbology)
        try container.encode(text, forKey: .text)
    }
}

/// UPC-E zero suppression. A UPC-E "N d1 d2 d3 d4 d5 d6" stands for a UPC-A whose
/// manufacturer and item numbers have runs of zeros; d6 says which of the four forms:
///   d6 0–2: N d1 d2 d6 0 0 | 0 0 d3 d4 d5   (manufacturer ends in 000/100/200)
///   d6 3:   N d1 d2 d3 0 0 | 0 0 0 d4 d5
///   d6 4:   N d1 d2 d3 d4 0 | 0 0 0 0 d5
///   d6 5–9: N d1 d2 d3 d4 d5 | 0 0 0 0 d6
/// The check digit is the UPC-A's.
enum UPCE {
    /// `code`: number system and six digits (7 values). Returns the 12 UPC-A digits.
    static func expand(_ code: [UInt8]) -> [UInt8] {
        let n = code[0], d = Array(code[1...6])
        let body: [UInt8] = switch d[5] {
        case 0...2: [n, d[0], d[1], d[5], 0, 0, 0, 0, d[2], d[3], d[4]]
        case 3: [n, d[0], d[1], d[2], 0, 0, 0, 0, 0, d[3], d[4]]
        case 4: [n, d[0], d[1], d[2], d[3], 0, 0, 0, 0, 0, d[4]]
        default: [n, d[0], d[1], d[2], d[3], d[4], 0, 0, 0, 0, d[5]]
        }
        return body + [CheckDigit.gs1(body)]
    }

    /// The 8-digit UPC-E of a 12-digit UPC-A, or nil when it has no zero-suppressed form.
    /// Tries the forms in the order that gives the canonical (GS1) UPC-E.
    static func compress(_ a: [UInt8]) -> [UInt8]? {
        guard a.count == 12, a[0] <= 1 else { return nil }
        let m = Array(a[1...5]), p = Array(a[6...10])
        let six: [UInt8]
        if m[2] <= 2 && m[3] == 0 && m[4] == 0 && p[0] == 0 && p[1] == 0 {
            six = [m[0], m[1], p[2], p[3], p[4], m[2]]
        } else if m[3] == 0 && m[4] == 0 && p[0...2].allSatisfy({ $0 == 0 }) {
            six = [m[0], m[1], m[2], p[3], p[4], 3]
        } else if m[4] == 0 && p[0...3].allSatisfy({ $0 == 0 }) {
            six = [m[0], m[1], m[2], m[3], p[4], 4]
        } else if p[0...3].allSatisfy({ $0 == 0 }) && p[4] >= 5 {
            six = [m[0], m[1], m[2], m[3], m[4], p[4]]
        } else {
            return nil
        }
        return [a[0]] + six + [a[11]]
    }
}

extension String {
    init(digitValues: [UInt8]) {
        self = String(decoding: digitValues.map { $0 + 48 }, as: UTF8.self)
    }
}
