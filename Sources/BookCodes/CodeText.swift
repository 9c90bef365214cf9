/// Turns code text as people and scanners write it into digit values, remembering where each
/// character stood so an error can point at it.
struct CodeText {
    /// Digit values 0...9; 10 stands for an ISBN-10 check character "X".
    let values: [UInt8]
    /// 1-based position of each value in the text as given.
    let positions: [Int]
    let original: String

    var count: Int { values.count }
    var string: String { String(values.map { $0 == 10 ? "X" : Character(String($0)) }) }

    /// Spaces, tabs and the hyphen family are dropped: ISBNs are printed "978-0-306-40615-7" and
    /// pasted with non-breaking spaces or en dashes. With `label` set, a leading "ISBN",
    /// "ISBN-13:", "isbn10 " and the like is skipped too.
    init(_ text: String, for symbology: Symbology, skippingISBNLabel label: Bool = false) throws(BookCodeError) {
        let characters = Array(text)
        var index = label ? CodeText.lengthOfISBNLabel(characters) : 0
        var values: [UInt8] = []
        var positions: [Int] = []
        while index < characters.count {
            let character = characters[index]
            index += 1
            if CodeText.isSeparator(character) { continue }
            if let ascii = character.asciiValue, (48...57).contains(ascii) {
                values.append(ascii - 48)
            } else if character == "X" || character == "x" {
                values.append(10)
            } else {
                throw .invalidCharacter(text: text, character: character, position: index)
            }
            positions.append(index)
        }
        if values.isEmpty { throw .empty(symbology) }
        self.values = values
        self.positions = positions
        self.original = text
    }

    /// Throws unless every value is a digit, except that an "X" may close a text of `xAllowedAtLength`.
    func requireDigits(xAllowedAtLength: Int? = nil) throws(BookCodeError) {
        for (offset, value) in values.enumerated() where value == 10 {
            if offset == values.count - 1 && values.count == xAllowedAtLength { continue }
            throw .invalidCharacter(text: original, character: Array(original)[positions[offset] - 1], position: positions[offset])
        }
    }

    func requireLength(_ length: Int, for symbology: Symbology) throws(BookCodeError) {
        if values.count != length { throw .wrongLength(symbology, expected: length, got: values.count) }
    }

    private static func isSeparator(_ character: Character) -> Bool {
        switch character {
        case " ", "\t", "\n", "\r", "-", "\u{00A0}", "\u{202F}", "\u{2009}", "\u{2010}", "\u{2011}",
             "\u{2012}", "\u{2013}", "\u{2014}", "\u{2212}":
            true
        default:
            false
        }
    }

    /// Length of a leading "ISBN" label ("ISBN", "ISBN:", "ISBN-13:", "isbn10 "), 0 when none.
    private static func lengthOfISBNLabel(_ characters: [Character]) -> Int {
        var index = 0
        while index < characters.count, characters[index] == " " { index += 1 }
        guard characters.count >= index + 4, String(characters[index..<index + 4]).uppercased() == "ISBN" else { return 0 }
        index += 4
        // "-10"/"13" counts as part of the label only when a colon or space follows it.
        var afterNumber = index
        if afterNumber < characters.count, characters[afterNumber] == "-" { afterNumber += 1 }
        if afterNumber + 2 <= characters.count, ["10", "13"].contains(String(characters[afterNumber..<afterNumber + 2])),
           afterNumber + 2 < characters.count, [":", " "].contains(characters[afterNumber + 2]) {
            index = afterNumber + 2
        }
        if index < characters.count, characters[index] == ":" { index += 1 }
        return index
    }
}

/// Check digit arithmetic shared by every code.
public enum CheckDigit {
    /// GS1 mod-10: weights 3, 1, 3, … from the rightmost body digit.
    public static func gs1<C: BidirectionalCollection<UInt8>>(_ body: C) -> UInt8 {
        var sum = 0
        for (offset, digit) in body.reversed().enumerated() {
            sum += Int(digit) * (offset.isMultiple(of: 2) ? 3 : 1)
        }
        return UInt8((10 - sum % 10) % 10)
    }

    /// ISBN-10 mod-11 over the first nine digits (weights 10…2); 10 is written "X".
    static func isbn10<C: Collection<UInt8>>(_ body: C) -> UInt8 {
        var sum = 0
        for (offset, digit) in body.enumerated() { sum += Int(digit) * (10 - offset) }
        return UInt8((11 - sum % 11) % 11)
    }

    static func character(_ value: UInt8) -> Character {
        value == 10 ? "X" : Character(String(value))
    }

    /// Throws `.checkDigitMismatch` unless the last value of `code` equals `expected`.
    static func verify(_ code: CodeText, expected: UInt8, for symbology: Symbology) throws(BookCodeError) {
        guard let found = code.values.last, found != expected else { return }
        throw .checkDigitMismatch(symbology, expected: character(expected), found: character(found))
    }
}

extension String {
    /// The digit values of an already validated all-digit string.
    var digitValues: [UInt8] { utf8.map { $0 == UInt8(ascii: "X") ? 10 : $0 - 48 } }
}
