import Testing
@testable import BookCodes

@Suite struct ProductCodeTests {
    @Test func booklandCodesAreBooks() throws {
        let code = try CodeValidator.validate(symbology: .ean13, text: "9780306406157")
        #expect(code == .book(try ISBN13(validating: "9780306406157")))
        #expect(code.isBook && code.gtin13 == "9780306406157")
        #expect(code.description == "ISBN 978-0-306-40615-7")
        #expect(try CodeValidator.validate(symbology: .isbn13, text: "9791090636071").isbn13?.digits == "9791090636071")
        #expect(try CodeValidator.validate(symbology: .isbn10, text: "0306406152").isbn13?.digits == "9780306406157")
    }

    @Test func otherCodesAreProducts() throws {
        let chocolate = try CodeValidator.validate(symbology: .ean13, text: "4006381333931")
        #expect(chocolate.isbn13 == nil && chocolate.gtin13 == "4006381333931")
        #expect(chocolate.description == "EAN-13 4006381333931")
        #expect(try CodeValidator.validate(symbology: .upcA, text: "036000291452").gtin13 == "0036000291452")
        #expect(try CodeValidator.validate(symbology: .upcE, text: "01234565").gtin13 == "0012345000065")
        #expect(try CodeValidator.validate(symbology: .ean8, text: "96385074").gtin13 == "0000096385074")
    }

    /// 979-0 is the ISMN (sheet music): a valid retail code that book sources cannot resolve.
    @Test func ismnIsAProductNotABook() throws {
        let music = try CodeValidator.validate(symbology: .ean13, text: "9790230671187")
        #expect(music == .product(try GTIN(validating: "9790230671187")))
        #expect(try CodeValidator.validate(symbology: .isbn13, text: "9790230671187").isBook == false)
        #expect(try GTIN(validating: "9790230671187").isBookland)
    }

    @Test func rejectsWhatIsNotAValidProduct() {
        #expect(throws: BookCodeError.checkDigitMismatch(.ean13, expected: "7", found: "3")) {
            try CodeValidator.validate(symbology: .ean13, text: "9780306406153")
        }
        #expect(throws: BookCodeError.notBookland(prefix: "400")) {
            try CodeValidator.validate(symbology: .isbn13, text: "4006381333931")
        }
        #expect(throws: BookCodeError.addOnIsNotAProduct(.ean2)) { try CodeValidator.validate(symbology: .ean2, text: "07") }
        #expect(BookCodeError.addOnIsNotAProduct(.ean5).description.contains("add-on"))
    }

    @Test func sameProductComparesEqualInGTIN13Space() throws {
        let upcA = try CodeValidator.validate(symbology: .upcA, text: "012345000065")
        let upcE = try CodeValidator.validate(symbology: .upcE, text: "01234565")
        let ean13 = try CodeValidator.validate(symbology: .ean13, text: "0012345000065")
        #expect(Set([upcA.gtin13, upcE.gtin13, ean13.gtin13]).count == 1)
    }

    @Test func symbologyNamesAndLengths() {
        #expect(Symbology.allCases.map(\.rawValue) == ["EAN-13", "EAN-8", "UPC-A", "UPC-E", "ISBN-10", "ISBN-13", "EAN-2", "EAN-5", "printed"])
        #expect(Symbology.allCases.filter(\.isAddOn) == [.ean2, .ean5])
        #expect(Symbology.upcA.length == 12 && Symbology.upcE.length == 8)
        // A printed ISBN is an ISBN-13: the Bookland rule holds for it as for the bars.
        #expect(Symbology.printed.length == 13)
        #expect((try? CodeValidator.validate(symbology: .printed, text: "9780596008574"))?.isbn13?.digits == "9780596008574")
        #expect(throws: BookCodeError.notBookland(prefix: "002")) { try CodeValidator.validate(symbology: .printed, text: "0023942431015") }
    }
}
