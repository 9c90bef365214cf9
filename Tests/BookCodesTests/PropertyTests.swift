import PropertyBased
import Testing
@testable import BookCodes

/// Random valid codes built from random bodies, and every single error a person or a bad
/// read can make to them.
@Suite struct PropertyTests {
    static let digit = Gen.int(in: 0...9).map { UInt8($0) }

    static func text(_ values: [UInt8]) -> String { String(values.map(CheckDigit.character)) }

    /// Each code with one digit replaced by each other digit.
    static func substitutions(of values: [UInt8], alphabet: ClosedRange<UInt8> = 0...9) -> [(position: Int, code: [UInt8])] {
        values.indices.flatMap { position in
            alphabet.filter { $0 != values[position] }.map { replacement in
                var changed = values
                changed[position] = replacement
                return (position, changed)
            }
        }
    }

    /// Each code with two neighbouring, different characters swapped.
    static func transpositions(of values: [UInt8]) -> [(position: Int, code: [UInt8])] {
        values.indices.dropLast().compactMap { position in
            guard values[position] != values[position + 1] else { return nil }
            var changed = values
            changed.swapAt(position, position + 1)
            return (position, changed)
        }
    }

    @Test func isbn10RoundTripsThroughISBN13() async {
        await propertyCheck(count: 300, input: Self.digit.array(of: 9)) { body throws in
            let isbn10 = ISBN10(body: body)
            let isbn13 = isbn10.isbn13
            #expect(isbn13.digits.hasPrefix("978") && isbn13.digits.count == 13)
            #expect(isbn13.isbn10 == isbn10)
            #expect(try ISBN10(validating: isbn10.digits) == isbn10)
            #expect(try ISBN13(validating: isbn13.hyphenated) == isbn13)
            #expect(try ISBN10(validating: isbn10.hyphenated) == isbn10)
        }
    }

    @Test func ean13ParsesWhatItPrints() async {
        await propertyCheck(count: 300, input: Self.digit.array(of: 12)) { body throws in
            let text = Self.text(body + [CheckDigit.gs1(body)])
            let gtin = try GTIN(validating: text)
            #expect(gtin.text == text && gtin.gtin13 == text && gtin.symbology == .ean13)
            #expect(try GTIN(validating: gtin.text) == gtin)
            // A scanned EAN-13 is a product only under a GS1 prefix someone holds.
            guard GS1Prefix.isAssigned(gtin13: text) else {
                #expect(throws: BookCodeError.unassignedGS1Prefix(String(text.prefix(3)))) {
                    try CodeValidator.validate(symbology: .ean13, text: text)
                }
                return
            }
            let code = try CodeValidator.validate(symbology: .ean13, text: text)
            #expect(code.gtin13 == text)
            #expect(code.isBook == ((text.hasPrefix("978") || text.hasPrefix("979")) && !text.hasPrefix("9790")))
        }
    }

    /// Every UPC-E expands to a valid UPC-A; the UPC-A's canonical UPC-E names the same product.
    @Test func upcEExpandsToAValidUPCA() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...1).map { UInt8($0) }, Self.digit.array(of: 6)) { system, six throws in
            let upcA = UPCE.expand([system] + six)
            let text = Self.text([system] + six + [upcA[11]])
            let gtin = try GTIN(validating: text, as: .upcE)
            let expanded = try GTIN(validating: Self.text(upcA), as: .upcA)
            #expect(gtin.gtin13 == expanded.gtin13)
            let canonical = try #require(expanded.upcE)
            #expect(try GTIN(validating: canonical, as: .upcE).gtin13 == gtin.gtin13)
        }
    }

    @Test func isbn10CatchesEverySubstitutionAndTransposition() async {
        await propertyCheck(count: 200, input: Self.digit.array(of: 9)) { body throws in
            let valid = ISBN10(body: body).digits.digitValues
            for (position, code) in Self.substitutions(of: valid, alphabet: 0...10) {
                #expect(throws: BookCodeError.self, "substitution at \(position + 1)") { try ISBN10(validating: Self.text(code)) }
            }
            for (position, code) in Self.transpositions(of: valid) {
                #expect(throws: BookCodeError.self, "transposition at \(position + 1)") { try ISBN10(validating: Self.text(code)) }
            }
        }
    }

    /// Mod 10 with weights 1 and 3 catches every single substitution; a swap of neighbours a, b
    /// changes the sum by 2(a − b), so exactly the swaps with |a − b| = 5 go unnoticed.
    @Test func ean13CatchesSubstitutionsAndAllTranspositionsButDifferencesOfFive() async {
        await propertyCheck(count: 200, input: Self.digit.array(of: 12)) { body throws in
            let valid = body + [CheckDigit.gs1(body)]
            for (position, code) in Self.substitutions(of: valid) {
                #expect(throws: BookCodeError.self, "substitution at \(position + 1)") { try GTIN(validating: Self.text(code), as: .ean13) }
            }
            var missed: Set<Int> = []
            for (position, code) in Self.transpositions(of: valid) where (try? GTIN(validating: Self.text(code), as: .ean13)) != nil {
                missed.insert(position)
            }
            let differByFive = Set(valid.indices.dropLast().filter { abs(Int(valid[$0]) - Int(valid[$0 + 1])) == 5 })
            #expect(missed == differByFive)
        }
    }

    /// Whatever the input, validation either succeeds or throws an error with a message;
    /// it never traps.
    @Test func arbitraryTextNeverTraps() async {
        let alphabet = Gen.element(of: Array("0123456789Xx- IiSBN:.O"))
        await propertyCheck(count: 500, input: alphabet.array(of: 0...18)) { characters throws in
            let text = String(characters.compactMap { $0 })
            for symbology in Symbology.allCases {
                do {
                    _ = try CodeValidator.validate(symbology: symbology, text: text)
                } catch let error as BookCodeError {
                    #expect(!error.description.isEmpty)
                }
            }
            _ = try? ISBN13(validating: text)
            _ = try? AddOn(validating: text)
        }
    }
}
