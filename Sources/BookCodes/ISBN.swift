/// A valid 13-digit ISBN: Bookland prefix 978 or 979 (never 979-0, which is the ISMN for
/// printed music), registration group, registrant, publication, GS1 check digit.
public struct ISBN13: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The 13 digits, no hyphens.
    public let digits: String

    /// Accepts an ISBN-13 or an ISBN-10 (converted), ignoring hyphens, spaces and a leading
    /// "ISBN"/"ISBN-13:" label; a lowercase "x" check character is fine.
    public init(validating text: String) throws(BookCodeError) {
        let code = try CodeText(text, for: .isbn13, skippingISBNLabel: true)
        try code.requireDigits(xAllowedAtLength: 10)
        if code.count == 10 {
            self.init(try ISBN10(code))
            return
        }
        try code.requireLength(13, for: .isbn13)
        try self.init(thirteenDigits: code)
    }

    public init(_ isbn10: ISBN10) {
        let body = [9, 7, 8] + isbn10.digits.digitValues.prefix(9)
        digits = String(digitValues: body + [CheckDigit.gs1(body)])
    }

    /// From 13 digit values: checks the prefix, then the check digit.
    init(thirteenDigits code: CodeText) throws(BookCodeError) {
        let digits = code.string
        let prefix = String(digits.prefix(3))
        guard prefix == "978" || prefix == "979" else { throw .notBookland(prefix: prefix) }
        if digits.hasPrefix("9790") { throw .ismn(digits) }
        try CheckDigit.verify(code, expected: CheckDigit.gs1(code.values.dropLast()), for: .isbn13)
        self.digits = digits
    }

    /// The same book's ISBN-10; nil for 979 ISBNs, which were never given one.
    public var isbn10: ISBN10? {
        guard digits.hasPrefix("978") else { return nil }
        return ISBN10(body: Array(digits.digitValues[3..<12]))
    }

    /// "978" or "979".
    public var prefix: String { String(digits.prefix(3)) }

    public var description: String { digits }

    public static func < (lhs: ISBN13, rhs: ISBN13) -> Bool { lhs.digits < rhs.digits }
}

/// A valid 10-character ISBN; the check character is mod 11 and may be "X" (ten).
public struct ISBN10: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Nine digits and a check character ("0"–"9" or uppercase "X"), no hyphens.
    public let digits: String

    /// Ignores hyphens, spaces and a leading "ISBN"/"ISBN-10:" label; accepts a lowercase "x".
    public init(validating text: String) throws(BookCodeError) {
        let code = try CodeText(text, for: .isbn10, skippingISBNLabel: true)
        try code.requireDigits(xAllowedAtLength: 10)
        try code.requireLength(10, for: .isbn10)
        try self.init(code)
    }

    /// Converts a 978 ISBN-13; throws `.noISBN10` for 979.
    public init(_ isbn13: ISBN13) throws(BookCodeError) {
        guard let isbn10 = isbn13.isbn10 else { throw .noISBN10(prefix: isbn13.prefix) }
        self = isbn10
    }

    fileprivate init(_ code: CodeText) throws(BookCodeError) {
        try CheckDigit.verify(code, expected: CheckDigit.isbn10(code.values.prefix(9)), for: .isbn10)
        digits = code.string
    }

    init(body: [UInt8]) {
        digits = String((body + [CheckDigit.isbn10(body)]).map(CheckDigit.character))
    }

    public var isbn13: ISBN13 { ISBN13(self) }

    public var description: String { digits }

    public static func < (lhs: ISBN10, rhs: ISBN10) -> Bool { lhs.digits < rhs.digits }
}

extension ISBN13: TextCodable {
    var codableText: String { digits }
}

extension ISBN10: TextCodable {
    var codableText: String { digits }
}
