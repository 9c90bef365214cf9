import Testing
@testable import BookCodes

@Suite struct ISBNTests {
    @Test(arguments: [
        ("9780306406157", "0306406152"),
        ("9781250313188", "125031318X"),
        ("9780316030571", "0316030570"),
        ("9782070427796", "207042779X"),
        ("9780990582939", "0990582930"),
        ("9780804429573", "080442957X"),
    ])
    func convertsBetweenISBN13AndISBN10(thirteen: String, ten: String) throws {
        let isbn13 = try ISBN13(validating: thirteen)
        let isbn10 = try ISBN10(validating: ten)
        #expect(isbn13.isbn10 == isbn10)
        #expect(isbn10.isbn13 == isbn13)
        #expect(ISBN13(isbn10) == isbn13)
        #expect(try ISBN10(isbn13) == isbn10)
        #expect(try ISBN13(validating: ten) == isbn13, "ISBN13(validating:) accepts ISBN-10 text")
        #expect(isbn13.description == thirteen)
        #expect(isbn10.digits == ten)
    }

    @Test func isbn979HasNoISBN10() throws {
        let isbn = try ISBN13(validating: "979-10-90636-07-1")
        #expect(isbn.isbn10 == nil)
        #expect(throws: BookCodeError.noISBN10(prefix: "979")) { try ISBN10(isbn) }
        #expect(BookCodeError.noISBN10(prefix: "979").description == "979 ISBNs have no ISBN-10")
    }

    @Test(arguments: [
        "978-0-306-40615-7", "978 0 306 40615 7", "ISBN 978-0-306-40615-7", "ISBN-13: 9780306406157",
        "isbn:9780306406157", "  9780306406157  ", "978\u{2013}0\u{2013}306\u{2013}40615\u{2013}7",
        "0-306-40615-2", "ISBN-10: 0306406152", "ISBN10 0 306 40615 2",
    ])
    func normalizesUserInput(text: String) throws {
        #expect(try ISBN13(validating: text).digits == "9780306406157")
    }

    @Test func acceptsLowercaseXCheckCharacter() throws {
        #expect(try ISBN10(validating: "0-8044-2957-x").digits == "080442957X")
        #expect(try ISBN13(validating: "080442957x").digits == "9780804429573")
    }

    @Test func reportsWrongCheckDigits() {
        #expect(throws: BookCodeError.checkDigitMismatch(.isbn13, expected: "7", found: "3")) {
            try ISBN13(validating: "9780306406153")
        }
        #expect(throws: BookCodeError.checkDigitMismatch(.isbn10, expected: "2", found: "X")) {
            try ISBN10(validating: "030640615X")
        }
        #expect(throws: BookCodeError.checkDigitMismatch(.isbn10, expected: "X", found: "5")) {
            try ISBN10(validating: "0804429575")
        }
        #expect(BookCodeError.checkDigitMismatch(.isbn13, expected: "7", found: "3").description
            == "check digit should be 7, not 3")
    }

    @Test func reportsWrongLengths() {
        #expect(throws: BookCodeError.wrongLength(.isbn13, expected: 13, got: 12)) { try ISBN13(validating: "978030640615") }
        #expect(throws: BookCodeError.wrongLength(.isbn10, expected: 10, got: 9)) { try ISBN10(validating: "0-306-40615") }
        #expect(throws: BookCodeError.wrongLength(.isbn10, expected: 10, got: 13)) { try ISBN10(validating: "9780306406157") }
        #expect(BookCodeError.wrongLength(.isbn13, expected: 13, got: 12).description == "ISBN-13 needs 13 digits, got 12")
        #expect(BookCodeError.wrongLength(.isbn10, expected: 10, got: 9).description == "ISBN-10 needs 10 characters, got 9")
    }

    @Test func pointsAtTheBadCharacter() {
        let error = BookCodeError.invalidCharacter(text: "97803064061X7", character: "X", position: 12)
        #expect(throws: error) { try ISBN13(validating: "97803064061X7") }
        #expect(error.description == "'97803064061X7' has a non-digit 'X' at position 12")
        // Positions count in the text as typed, hyphens included.
        #expect(throws: BookCodeError.invalidCharacter(text: "978-0-3O6-40615-7", character: "O", position: 8)) {
            try ISBN13(validating: "978-0-3O6-40615-7")
        }
        // X is only a check character, never a body digit of an ISBN-10.
        #expect(throws: BookCodeError.invalidCharacter(text: "03064X6152", character: "X", position: 6)) {
            try ISBN10(validating: "03064X6152")
        }
        #expect(throws: BookCodeError.empty(.isbn13)) { try ISBN13(validating: " - ") }
        #expect(BookCodeError.empty(.isbn13).description.contains("no ISBN-13"))
    }

    @Test func refusesNonBooklandAndISMN() {
        #expect(throws: BookCodeError.notBookland(prefix: "501")) { try ISBN13(validating: "5012345678900") }
        #expect(BookCodeError.notBookland(prefix: "501").description == "an ISBN-13 starts with 978 or 979, not 501")
        #expect(throws: BookCodeError.ismn("9790230671187")) { try ISBN13(validating: "979-0-2306-7118-7") }
        #expect(BookCodeError.ismn("9790230671187").description.contains("ISMN"))
    }

    @Test func ordersByDigits() throws {
        let sorted = try ["9782070427796", "9780306406157", "9781250313188"].map(ISBN13.init(validating:)).sorted()
        #expect(sorted.map(\.digits) == ["9780306406157", "9781250313188", "9782070427796"])
        #expect(try ISBN10(validating: "0306406152") < ISBN10(validating: "207042779X"))
    }

    @Test func codableAsPlainStringAndValidatedOnDecode() throws {
        let isbn = try ISBN13(validating: "9780306406157")
        let json = try JSONCoding.encode([isbn])
        #expect(json == #"["9780306406157"]"#)
        #expect(try JSONCoding.decode([ISBN13].self, from: json) == [isbn])
        #expect(try JSONCoding.decode([ISBN10].self, from: #"["080442957X"]"#).first?.digits == "080442957X")
        #expect(throws: DecodingError.self) { try JSONCoding.decode([ISBN13].self, from: #"["9780306406153"]"#) }
    }
}
