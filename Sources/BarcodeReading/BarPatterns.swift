import BookCodes

/// The EAN-13/UPC-A symbol, module by module (1 = bar): what a model-based reader fits to
/// the pixels. A UPC-A is an EAN-13 whose first digit is 0.
enum BarPatterns {
    /// Modules in an EAN-13/UPC-A symbol, guards included.
    static let moduleCount = 95
    /// Where each of the 12 encoded digits starts (6 left of the middle guard, 6 right).
    static let digitStarts: [Int] = (0..<6).map { 3 + 7 * $0 } + (0..<6).map { 50 + 7 * $0 }
    /// The guards: start (101), middle (01010) and end (101), as (first module, pattern).
    static let guards: [(start: Int, modules: [UInt8])] = [(0, [1, 0, 1]), (45, [0, 1, 0, 1, 0]), (92, [1, 0, 1])]

    /// Left-half odd-parity ("L") codes per digit.
    static let odd: [[UInt8]] = [
        "0001101", "0011001", "0010011", "0111101", "0100011",
        "0110001", "0101111", "0111011", "0110111", "0001011",
    ].map { $0.map { $0 == "1" ? 1 : 0 } }
    /// Right-half ("R") codes: the odd codes inverted.
    static let right: [[UInt8]] = odd.map { $0.map { 1 - $0 } }
    /// Left-half even-parity ("G") codes: the right codes reversed.
    static let even: [[UInt8]] = right.map { Array($0.reversed()) }

    /// For each first digit, which of the six left digits use even parity.
    static let parities: [[Bool]] = [
        "LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG",
        "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL", "LGGLGL",
    ].map { $0.map { $0 == "G" } }
}

/// A symbol `ModelDecoder` fits: its layout, and how its digits' parities encode a digit.
struct ModelSymbol: Sendable {
    /// `.ean13` (its readings with a leading 0 are UPC-As), `.upcE`, `.ean8`, or an add-on (`.ean5`, `.ean2`).
    let symbology: Symbology
    let moduleCount: Int
    /// Where each encoded digit starts.
    let digitStarts: [Int]
    /// Digits before this position are L or G patterns (a space first, a bar last); the rest R.
    let leftDigits: Int
    /// The left digits' parity patterns (G = true), one per value the parity encodes.
    let parityPatterns: [[Bool]]
    /// Modules of margin that must be paper on each side, past the one next to the bars
    /// (0: not checked). A short code's margins tell it from part of a longer code's bars.
    let margin: Int
    /// The modules whose state every such symbol shares: `ModelDecoder.quietModules` of
    /// quiet zone each side, the guards, and each digit's first and last module.
    /// Module index → bar (1) or space (0).
    let knownModules: [(module: Int, bar: Double)]
    /// Whether `knownModules` read the same from the symbol's end (an EAN-13's do).
    let isSymmetric: Bool

    /// `guards`: each guard's first module and its modules (1 = bar).
    init(symbology: Symbology, moduleCount: Int, digitStarts: [Int], guards: [(start: Int, modules: [UInt8])], leftDigits: Int,
         parityPatterns: [[Bool]], margin: Int) {
        self.symbology = symbology
        self.moduleCount = moduleCount
        self.digitStarts = digitStarts
        self.leftDigits = leftDigits
        self.parityPatterns = parityPatterns
        self.margin = margin
        var known: [(Int, Double)] = []
        for k in 1...ModelDecoder.quietModules { known.append((-k, 0)); known.append((moduleCount - 1 + k, 0)) }
        for guardPattern in guards {
            for (offset, bar) in guardPattern.modules.enumerated() { known.append((guardPattern.start + offset, Double(bar))) }
        }
        for (index, start) in digitStarts.enumerated() {
            let left = index < leftDigits
            known.append((start, left ? 0 : 1))
            known.append((start + 6, left ? 1 : 0))
        }
        knownModules = known.sorted { $0.0 < $1.0 }
        let mirrored = knownModules.map { (module: moduleCount - 1 - $0.module, bar: $0.bar) }.sorted { $0.module < $1.module }
        isSymmetric = zip(knownModules, mirrored).allSatisfy { $0.module == $1.module && $0.bar == $1.bar }
    }

    /// EAN-13 (and UPC-A): the left half's parities give the first digit.
    static let ean13 = ModelSymbol(symbology: .ean13, moduleCount: BarPatterns.moduleCount, digitStarts: BarPatterns.digitStarts,
                                   guards: BarPatterns.guards, leftDigits: 6, parityPatterns: BarPatterns.parities, margin: 0)
    /// UPC-E: a start guard (101), six L/G digits and an end guard (010101). The parities give
    /// the number system and the check digit (value = number system × 10 + check digit).
    static let upcE = ModelSymbol(symbology: .upcE, moduleCount: 51, digitStarts: (0..<6).map { 3 + 7 * $0 },
                                  guards: [(0, [1, 0, 1]), (45, [0, 1, 0, 1, 0, 1])], leftDigits: 6,
                                  parityPatterns: upcEParities.map { $0.map { !$0 } } + upcEParities,
                                  margin: 6)

    /// EAN-8: four L digits, a centre guard, four R digits (no parity: one pattern, all L).
    static let ean8 = ModelSymbol(symbology: .ean8, moduleCount: 67, digitStarts: (0..<4).map { 3 + 7 * $0 } + (0..<4).map { 36 + 7 * $0 },
                                  guards: [(0, [1, 0, 1]), (31, [0, 1, 0, 1, 0]), (64, [1, 0, 1])], leftDigits: 4,
                                  parityPatterns: [[false, false, false, false]], margin: 6)

    /// EAN-5 add-on: a start guard (1011), five L/G digits with a separator (01) between each.
    /// No check digit is printed: the parities are the digits' checksum (`addOnParity`).
    static let ean5 = ModelSymbol(symbology: .ean5, moduleCount: 47, digitStarts: (0..<5).map { 4 + 9 * $0 },
                                  guards: [(0, [1, 0, 1, 1])] + (0..<4).map { (11 + 9 * $0, [0, 1]) }, leftDigits: 5,
                                  parityPatterns: ["GGLLL", "GLGLL", "GLLGL", "GLLLG", "LGGLL",
                                                   "LLGGL", "LLLGG", "LGLGL", "LGLLG", "LLGLG"].map { $0.map { $0 == "G" } },
                                  margin: addOnMargin)
    /// EAN-2 add-on: the start guard, two L/G digits and a separator; the parities are the value mod 4.
    static let ean2 = ModelSymbol(symbology: .ean2, moduleCount: 20, digitStarts: [4, 13],
                                  guards: [(0, [1, 0, 1, 1]), (11, [0, 1])], leftDigits: 2,
                                  parityPatterns: ["LL", "LG", "GL", "GG"].map { $0.map { $0 == "G" } }, margin: addOnMargin)
    /// A UPC-E or EAN-8: few modules, fitted only where their shared ones fit clearly
    /// (`ModelDecoder.minimumShortCodeShape`).
    var isShortCode: Bool { symbology == .upcE || symbology == .ean8 }

    /// Paper an add-on needs each side: the gap after the code (7–12 modules) and its quiet
    /// zone (5). An EAN-2 misread from an EAN-5's first digits has the EAN-5's bars there.
    static let addOnMargin = 4

    /// The parity pattern an add-on's digits must be printed with: an EAN-5's checksum
    /// (3 × the odd-placed digits + 9 × the even-placed, mod 10), an EAN-2's value mod 4.
    static func addOnParity(_ digits: [Int]) -> Int {
        guard digits.count == 5 else { return (digits.reduce(0) { $0 * 10 + $1 }) % 4 }
        return (3 * (digits[0] + digits[2] + digits[4]) + 9 * (digits[1] + digits[3])) % 10
    }

    /// Number system 1's parities per check digit: an EAN-13's first-digit patterns, except
    /// for 0 (LLLGGG, not LLLLLL: inverted for number system 0, that would be all G).
    static let upcEParities: [[Bool]] = [[false, false, false, true, true, true]] + BarPatterns.parities.dropFirst()

    /// The code's digits as printed, from the parity pattern's index and each position's digit.
    func digits(parity: Int, positions: [Int]) -> [Int] {
        switch symbology {
        case .upcE: [parity / 10] + positions + [parity % 10]
        case .ean8, .ean5, .ean2: positions
        default: [parity] + positions
        }
    }
}
