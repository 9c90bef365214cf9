/// What a scanned code identifies: a book (Bookland 978/979 with a valid ISBN) or any other
/// retail product. 979-0 codes are ISMNs (printed music): they are products here, because
/// book sources know nothing of them and they must not be looked up as ISBNs.
public enum ProductCode: Hashable, Sendable, CustomStringConvertible {
    case book(ISBN13)
    case product(GTIN)

    /// Classifies a validated retail code.
    public init(_ gtin: GTIN) {
        let code = try? CodeText(gtin.gtin13, for: .isbn13)
        if let code, let isbn = try? ISBN13(thirteenDigits: code) {
            self = .book(isbn)
        } else {
            self = .product(gtin)
        }
    }

    /// 13 digits, for comparing any two codes.
    public var gtin13: String {
        switch self {
        case .book(let isbn): isbn.digits
        case .product(let gtin): gtin.gtin13
        }
    }

    public var isbn13: ISBN13? {
        if case .book(let isbn) = self { isbn } else { nil }
    }

    public var isBook: Bool { isbn13 != nil }

    public var description: String {
        switch self {
        case .book(let isbn): "ISBN \(isbn.hyphenated)"
        case .product(let gtin): "\(gtin.symbology.rawValue) \(gtin.text)"
        }
    }
}

/// The one call a scanner makes for each symbol it decodes.
public enum CodeValidator {
    /// Checks `text` as the given symbology and says what it identifies. ISBN-10 text becomes
    /// `.book`; an ISBN-13 symbol must carry a Bookland prefix; add-ons throw
    /// `.addOnIsNotAProduct` (validate those with `AddOn(validating:as:)`); an EAN-13 symbol
    /// must carry a GS1 prefix someone holds (`GS1Prefix`).
    public static func validate(symbology: Symbology, text: String) throws(BookCodeError) -> ProductCode {
        switch symbology {
        case .isbn10:
            return .book(try ISBN10(validating: text).isbn13)
        case .isbn13, .printed:
            let gtin = try GTIN(validating: text, as: .isbn13)
            guard gtin.isBookland else { throw .notBookland(prefix: String(gtin.gtin13.prefix(3))) }
            return ProductCode(gtin)
        case .ean13:
            let gtin = try GTIN(validating: text, as: .ean13)
            guard GS1Prefix.isAssigned(gtin13: gtin.gtin13) else { throw .unassignedGS1Prefix(String(gtin.gtin13.prefix(3))) }
            return ProductCode(gtin)
        default:
            return ProductCode(try GTIN(validating: text, as: symbology))
        }
    }
}
