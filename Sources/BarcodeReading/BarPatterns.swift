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
