import Testing
@testable import BookCodes

@Suite struct GTINTests {
    @Test(arguments: [
        (Symbology.ean13, "4006381333931", "4006381333931"),
        (.ean13, "9780306406157", "9780306406157"),
        (.upcA, "036000291452", "0036000291452"),
        (.ean8, "96385074", "0000096385074"),
        (.isbn13, "978-0-306-40615-7", "9780306406157"),
        (.isbn10, "0-306-40615-2", "9780306406157"),
    ])
    func validatesAndMapsToGTIN13(symbology: Symbology, text: String, gtin13: String) throws {
        let gtin = try GTIN(validating: text, as: symbology)
        #expect(gtin.gtin13 == gtin13)
        #expect(gtin.gtin13.count == 13)
    }

    @Test func keepsTheNativeTextAndSymbology() throws {
        let upcA = try GTIN(validating: "036000291452", as: .upcA)
        #expect(upcA.symbology == .upcA && upcA.text == "036000291452" && upcA.description == "036000291452")
        let isbn = try GTIN(validating: "978-0-306-40615-7", as: .isbn13)
        #expect(isbn.symbology == .ean13 && isbn.text == "9780306406157")
    }

    /// Every form of zero suppression (last digit 0–2, 3, 4, 5–9) in both number systems.
    @Test(arguments: [
        ("04252614", "042100005264"),  // d6 = 1: manufacturer 42100, item 00526
        ("11234502", "112000003452"),  // d6 = 0, number system 1
        ("06543226", "065200004326"),  // d6 = 2
        ("01234531", "012300000451"),  // d6 = 3
        ("01234543", "012340000053"),  // d6 = 4
        ("01234565", "012345000065"),  // d6 = 6
        ("11234579", "112345000079"),  // d6 = 7, number system 1
    ])
    func expandsUPCE(upcE: String, upcA: String) throws {
        let gtin = try GTIN(validating: upcE, as: .upcE)
        #expect(gtin.symbology == .upcE)
        #expect(gtin.text == upcE)
        #expect(gtin.upcA == upcA)
        #expect(gtin.gtin13 == "0" + upcA)
        // The expanded UPC-A is itself valid and compresses back to the same UPC-E.
        let expanded = try GTIN(validating: upcA, as: .upcA)
        #expect(expanded.gtin13 == gtin.gtin13)
        #expect(expanded.upcE == upcE)
    }

    @Test func upcEErrors() {
        #expect(throws: BookCodeError.invalidUPCENumberSystem("2")) { try GTIN(validating: "21234565", as: .upcE) }
        #expect(BookCodeError.invalidUPCENumberSystem("2").description == "UPC-E number system must be 0 or 1, not 2")
        #expect(throws: BookCodeError.checkDigitMismatch(.upcE, expected: "5", found: "4")) {
            try GTIN(validating: "01234564", as: .upcE)
        }
        #expect(throws: BookCodeError.wrongLength(.upcE, expected: 8, got: 6)) { try GTIN(validating: "123456", as: .upcE) }
    }

    @Test func upcAWithoutZeroSuppressedForm() throws {
        #expect(try GTIN(validating: "036000291452", as: .upcA).upcE == nil)
        #expect(try GTIN(validating: "4006381333931").upcA == nil)
        #expect(try GTIN(validating: "0036000291452").upcA == "036000291452")
        #expect(try GTIN(validating: "96385074", as: .ean8).upcA == nil)
    }

    @Test func infersSymbologyFromLength() throws {
        #expect(try GTIN(validating: "4006381333931").symbology == .ean13)
        #expect(try GTIN(validating: "036000291452").symbology == .upcA)
        #expect(try GTIN(validating: "9638-5074").symbology == .ean8)
        #expect(throws: BookCodeError.wrongLength(.ean13, expected: 13, got: 11)) { try GTIN(validating: "40063813339") }
    }

    @Test func reportsErrorsPerSymbology() {
        #expect(throws: BookCodeError.checkDigitMismatch(.ean13, expected: "1", found: "2")) {
            try GTIN(validating: "4006381333932", as: .ean13)
        }
        #expect(throws: BookCodeError.checkDigitMismatch(.ean8, expected: "4", found: "5")) {
            try GTIN(validating: "96385075", as: .ean8)
        }
        #expect(throws: BookCodeError.wrongLength(.upcA, expected: 12, got: 13)) {
            try GTIN(validating: "4006381333931", as: .upcA)
        }
        #expect(throws: BookCodeError.invalidCharacter(text: "03600029145X", character: "X", position: 12)) {
            try GTIN(validating: "03600029145X", as: .upcA)
        }
        #expect(throws: BookCodeError.addOnIsNotAProduct(.ean5)) { try GTIN(validating: "51299", as: .ean5) }
    }

    @Test func codableValidatesOnDecode() throws {
        let gtin = try GTIN(validating: "01234565", as: .upcE)
        let json = try JSONCoding.encode(gtin)
        #expect(json == #"{"symbology":"UPC-E","text":"01234565"}"#)
        #expect(try JSONCoding.decode(GTIN.self, from: json) == gtin)
        #expect(throws: DecodingError.self) {
            try JSONCoding.decode(GTIN.self, from: #"{"symbology":"UPC-E","text":"01234564"}"#)
        }
    }
}
