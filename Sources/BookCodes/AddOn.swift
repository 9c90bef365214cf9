/// The 2- or 5-digit supplement printed to the right of a main barcode. It never identifies
/// a product; on books a 5-digit add-on usually carries the suggested retail price.
public enum AddOn: Hashable, Sendable, CustomStringConvertible {
    case ean2(String)
    case ean5(String)

    /// 2 or 5 digits (spaces and hyphens ignored). EAN-2/EAN-5 carry no check digit in their
    /// text (the bar pattern's parity protects them), so only the characters are checked.
    public init(validating text: String) throws(BookCodeError) {
        let code = try CodeText(text, for: .ean5)
        try code.requireDigits()
        switch code.count {
        case 2: self = .ean2(code.string)
        case 5: self = .ean5(code.string)
        default: throw .wrongLength(.ean5, expected: 5, got: code.count)
        }
    }

    /// Also checks that `text` has the length `symbology` (`.ean2` or `.ean5`) needs.
    public init(validating text: String, as symbology: Symbology) throws(BookCodeError) {
        guard symbology.isAddOn else { throw .notAnAddOn(symbology) }
        let addOn = try AddOn(validating: text)
        guard addOn.symbology == symbology else {
            throw .wrongLength(symbology, expected: symbology.length, got: addOn.text.count)
        }
        self = addOn
    }

    public var text: String {
        switch self {
        case .ean2(let text), .ean5(let text): text
        }
    }

    public var symbology: Symbology {
        switch self {
        case .ean2: .ean2
        case .ean5: .ean5
        }
    }

    /// What a 5-digit add-on says about the price; nil for EAN-2 (periodical issue numbers)
    /// and for first digits no convention assigns (2, 7, 8).
    public var price: BookPrice? {
        guard case .ean5(let text) = self else { return nil }
        return BookPrice(addOnText: text)
    }

    public var description: String { text }
}

extension AddOn: TextCodable {
    var codableText: String { text }
}

/// The meaning of a book's 5-digit add-on, by the Bookland convention (BISG's "Bookland EAN"
/// guidelines as printers and retailers apply them):
/// - first digit = currency, the other four = the price in cents/pence: 5 US dollars
///   (51299 = US$12.99), 6 Canadian dollars, 4 New Zealand dollars, 3 Australian dollars;
///   0 and 1 British pounds, read as five digits of pence so 1xxxx reaches £100–£199.99.
/// - 59999: US$100 or more (not encoded).
/// - 90000: no suggested retail price (BISG's recommended default).
/// - 90001–98999: the publisher's internal use.
/// - 99990: NACS (college stores) used book; 99991: NACS desk/complimentary copy;
///   99000–99989 and 99992–99999: reserved for industry use.
/// A price of zero (e.g. 50000, used by NACS for "trade") suggests nothing and counts as
/// no suggested price.
public enum BookPrice: Hashable, Sendable, Codable, CustomStringConvertible {
    case amount(currency: Currency, minorUnits: Int)
    case usd100OrMore
    case noSuggestedPrice
    case publisherInternal(String)
    case usedBook
    case deskCopy
    case reserved(String)

    public enum Currency: String, Hashable, Sendable, Codable, CaseIterable {
        case usd = "USD", gbp = "GBP", cad = "CAD", aud = "AUD", nzd = "NZD"

        /// The sign printed before an amount.
        public var symbol: String {
            switch self {
            case .usd: "US$"
            case .gbp: "£"
            case .cad: "CA$"
            case .aud: "A$"
            case .nzd: "NZ$"
            }
        }
    }

    /// nil unless `addOnText` is five digits with a first digit some convention assigns.
    public init?(addOnText text: String) {
        let values = text.utf8.map { Int($0) - 48 }
        guard values.count == 5, values.allSatisfy({ (0...9).contains($0) }), let value = Int(text) else { return nil }
        let lastFour = value % 10_000
        let currency: Currency
        switch values[0] {
        case 0, 1: currency = .gbp
        case 3: currency = .aud
        case 4: currency = .nzd
        case 5: currency = .usd
        case 6: currency = .cad
        case 9:
            switch value {
            case 90000: self = .noSuggestedPrice
            case 90001...98999: self = .publisherInternal(text)
            case 99990: self = .usedBook
            case 99991: self = .deskCopy
            default: self = .reserved(text)
            }
            return
        default:
            return nil
        }
        if value == 59999 {
            self = .usd100OrMore
            return
        }
        let minorUnits = currency == .gbp ? value : lastFour
        self = minorUnits == 0 ? .noSuggestedPrice : .amount(currency: currency, minorUnits: minorUnits)
    }

    /// The currency of a price, nil for the codes that carry none.
    public var currency: Currency? {
        switch self {
        case .amount(let currency, _): currency
        case .usd100OrMore: .usd
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .amount(let currency, let minorUnits):
            "\(currency.symbol)\(minorUnits / 100).\(minorUnits % 100 < 10 ? "0" : "")\(minorUnits % 100)"
        case .usd100OrMore: "US$100 or more"
        case .noSuggestedPrice: "no suggested price"
        case .publisherInternal(let code): "publisher's internal code \(code)"
        case .usedBook: "used book (college stores)"
        case .deskCopy: "desk copy (college stores)"
        case .reserved(let code): "reserved code \(code)"
        }
    }
}
