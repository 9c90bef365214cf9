/// The barcode symbologies (and ISBN forms) rapidscan reads. Raw values are the names
/// printed in output and stored in JSON.
public enum Symbology: String, Sendable, Codable, Hashable, CaseIterable {
    case ean13 = "EAN-13"
    case ean8 = "EAN-8"
    case upcA = "UPC-A"
    case upcE = "UPC-E"
    case isbn10 = "ISBN-10"
    case isbn13 = "ISBN-13"
    case ean2 = "EAN-2"
    case ean5 = "EAN-5"
    /// An ISBN read from the printed text ("ISBN 0-345-34803-6", the digit line under the bars),
    /// not from bars: its text is the ISBN-13.
    case printed = "printed"

    /// Whether this is a 2- or 5-digit supplement printed beside a main code.
    public var isAddOn: Bool { self == .ean2 || self == .ean5 }

    /// How many characters a code of this symbology has once hyphens and spaces are gone.
    public var length: Int {
        switch self {
        case .ean13, .isbn13, .printed: 13
        case .upcA: 12
        case .isbn10: 10
        case .ean8, .upcE: 8
        case .ean5: 5
        case .ean2: 2
        }
    }
}
