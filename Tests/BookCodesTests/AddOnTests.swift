import Testing
@testable import BookCodes

@Suite struct AddOnTests {
    @Test(arguments: [
        ("51299", BookPrice.amount(currency: .usd, minorUnits: 1299), "US$12.99"),
        ("50300", .amount(currency: .usd, minorUnits: 300), "US$3.00"),
        ("01299", .amount(currency: .gbp, minorUnits: 1299), "£12.99"),
        ("12500", .amount(currency: .gbp, minorUnits: 12500), "£125.00"),
        ("62495", .amount(currency: .cad, minorUnits: 2495), "CA$24.95"),
        ("43000", .amount(currency: .nzd, minorUnits: 3000), "NZ$30.00"),
        ("32999", .amount(currency: .aud, minorUnits: 2999), "A$29.99"),
        ("50005", .amount(currency: .usd, minorUnits: 5), "US$0.05"),
        ("59999", .usd100OrMore, "US$100 or more"),
        ("90000", .noSuggestedPrice, "no suggested price"),
        ("50000", .noSuggestedPrice, "no suggested price"),
        ("91234", .publisherInternal("91234"), "publisher's internal code 91234"),
        ("99990", .usedBook, "used book (college stores)"),
        ("99991", .deskCopy, "desk copy (college stores)"),
        ("99999", .reserved("99999"), "reserved code 99999"),
        ("99123", .reserved("99123"), "reserved code 99123"),
    ])
    func readsBookPrices(text: String, price: BookPrice, description: String) throws {
        let addOn = try AddOn(validating: text)
        #expect(addOn == .ean5(text))
        #expect(addOn.price == price)
        #expect(addOn.price?.description == description)
    }

    @Test func unassignedFirstDigitsAndEAN2HaveNoPrice() throws {
        for text in ["21299", "71299", "81299"] {
            #expect(try AddOn(validating: text).price == nil)
        }
        let issue = try AddOn(validating: "07")
        #expect(issue == .ean2("07") && issue.symbology == .ean2 && issue.price == nil)
    }

    /// All 100 000 add-ons: a price exactly when the first digit is assigned, and the amount is
    /// the digits after the currency digit (all five for pounds).
    @Test func everyFiveDigitAddOnFollowsTheConvention() {
        for value in 0..<100_000 {
            let text = String(100_000 + value).dropFirst()
            let price = BookPrice(addOnText: String(text))
            switch (value / 10_000, price) {
            case (2, nil), (7, nil), (8, nil):
                continue
            case (9, .some(let price)):
                #expect(price.currency == nil, "\(text)")
            case (_, .amount(let currency, let minorUnits)?):
                #expect(minorUnits == (currency == .gbp ? value : value % 10_000) && minorUnits > 0, "\(text)")
            case (5, .usd100OrMore?), (_, .noSuggestedPrice?):
                #expect(value == 59999 || value % 10_000 == 0, "\(text)")
            default:
                Issue.record("\(text) gave \(String(describing: price))")
            }
        }
        #expect(BookPrice(addOnText: "5129") == nil && BookPrice(addOnText: "5129x") == nil)
    }

    @Test func currencies() {
        #expect(BookPrice.amount(currency: .cad, minorUnits: 100).currency == .cad)
        #expect(BookPrice.usd100OrMore.currency == .usd)
        #expect(BookPrice.noSuggestedPrice.currency == nil)
    }

    @Test func validatesLengthAndSymbology() {
        #expect(throws: BookCodeError.wrongLength(.ean5, expected: 5, got: 4)) { try AddOn(validating: "5129") }
        #expect(throws: BookCodeError.wrongLength(.ean2, expected: 2, got: 5)) { try AddOn(validating: "51299", as: .ean2) }
        #expect(throws: BookCodeError.notAnAddOn(.ean13)) { try AddOn(validating: "51299", as: .ean13) }
        #expect(throws: BookCodeError.invalidCharacter(text: "5I299", character: "I", position: 2)) {
            try AddOn(validating: "5I299")
        }
        #expect((try? AddOn(validating: "51299", as: .ean5)) == .ean5("51299"))
    }

    @Test func codableAsPlainString() throws {
        #expect(try JSONCoding.encode([AddOn.ean5("51299"), .ean2("07")]) == #"["51299","07"]"#)
        #expect(try JSONCoding.decode([AddOn].self, from: #"["51299","07"]"#) == [.ean5("51299"), .ean2("07")])
        #expect(throws: DecodingError.self) { try JSONCoding.decode([AddOn].self, from: #"["123"]"#) }
    }
}
