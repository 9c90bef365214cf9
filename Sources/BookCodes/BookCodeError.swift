/// Why a text is not a valid code. Descriptions are written for the person holding the book.
public enum BookCodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Nothing left after removing spaces and hyphens.
    case empty(Symbology)
    /// `got` counts characters after spaces and hyphens are removed.
    case wrongLength(Symbology, expected: Int, got: Int)
    /// `position` is 1-based, in `text` as it was given.
    case invalidCharacter(text: String, character: Character, position: Int)
    case checkDigitMismatch(Symbology, expected: Character, found: Character)
    /// An ISBN-13 must start with the Bookland prefix 978 or 979.
    case notBookland(prefix: String)
    /// 979-0 is the ISMN (printed music), not an ISBN.
    case ismn(String)
    /// Only 978 ISBNs have an ISBN-10 form.
    case noISBN10(prefix: String)
    /// UPC-E only exists for number systems 0 and 1.
    case invalidUPCENumberSystem(Character)
    /// An EAN-2/EAN-5 supplement on its own identifies nothing.
    case addOnIsNotAProduct(Symbology)
    /// A main symbology was given where an EAN-2/EAN-5 supplement was expected.
    case notAnAddOn(Symbology)
    /// A scanned EAN-13 whose GS1 prefix nobody holds: a misread, however well it read.
    case unassignedGS1Prefix(String)
    /// A printed ISBN labelled for another format of the book ("ISBN 978-… (ebook)"): not this copy.
    case otherFormat(isbn: String, label: String)

    public var description: String {
        switch self {
        case .empty(let symbology):
            "no \(symbology.rawValue) given (empty after removing spaces and hyphens)"
        case .wrongLength(let symbology, let expected, let got):
            "\(symbology.rawValue) needs \(expected) \(symbology == .isbn10 ? "characters" : "digits"), got \(got)"
        case .invalidCharacter(let text, let character, let position):
            "'\(text)' has a non-digit '\(character)' at position \(position)"
        case .checkDigitMismatch(_, let expected, let found):
            "check digit should be \(expected), not \(found)"
        case .notBookland(let prefix):
            "an ISBN-13 starts with 978 or 979, not \(prefix)"
        case .ismn(let text):
            "\(text) is an ISMN (979-0, printed music), not an ISBN"
        case .noISBN10(let prefix):
            "\(prefix) ISBNs have no ISBN-10"
        case .invalidUPCENumberSystem(let digit):
            "UPC-E number system must be 0 or 1, not \(digit)"
        case .addOnIsNotAProduct(let symbology):
            "\(symbology.rawValue) is an add-on printed beside a main code, not a product code"
        case .notAnAddOn(let symbology):
            "\(symbology.rawValue) is a main code, not an add-on (EAN-2 or EAN-5)"
        case .unassignedGS1Prefix(let prefix):
            "GS1 prefix \(prefix) is not assigned to anyone: no product carries it (a misread)"
        case .otherFormat(let isbn, let label):
            "ISBN \(isbn) is printed for another format (\(label)), not this copy: not added"
        }
    }
}
