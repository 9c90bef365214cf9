import BookCodes
import Testing
@testable import PrintedISBN

/// The text rules: which printed numbers are ISBNs, and which are traps.
@Suite struct PrintedTextTests {
    private func isbns(_ line: String) -> [String] { PrintedText.numbers(in: line).map(\.isbn.digits) }

    @Test func labelledISBN10BecomesItsISBN13() {
        #expect(isbns("ISBN 0-345-34803-6") == ["9780345348036"])
        #expect(isbns("ISBN: 0 596 00857 0") == ["9780596008574"])
        #expect(isbns("ISBN-10: 0-306-40615-2") == ["9780306406157"])
    }

    @Test func labelledISBN13AndGluedLabels() {
        #expect(isbns("ISBN-13: 978-0-306-40615-7") == ["9780306406157"])
        #expect(isbns("ISBN978-0-306-40615-7") == ["9780306406157"])
        #expect(isbns("ISBN 979-10-90636-07-1") == ["9791090636071"])
    }

    /// A digit line read by the digit engine: the 978/979 window whose check holds, wherever a
    /// stub read as "1" or the add-on's bars read as digits put it; nothing else.
    @Test func aDigitLineHoldsTheBooklandWindowWhoseCheckHolds() {
        #expect(PrintedText.digitLineISBNs(in: "9781585730575") == [try! ISBN13(validating: "9781585730575")])
        #expect(PrintedText.digitLineISBNs(in: "1 9781585 730575 11") == [try! ISBN13(validating: "9781585730575")])
        #expect(PrintedText.digitLineISBNs(in: "911781585730575").isEmpty)  // the 9 cut off by a stub
        #expect(PrintedText.digitLineISBNs(in: "9781585730576").isEmpty)  // check wrong
        #expect(PrintedText.digitLineISBNs(in: "0123456789012").isEmpty)  // no Bookland prefix
        #expect(PrintedText.digitLineISBNs(in: "978158573057").isEmpty)  // twelve
    }

    /// The row look's test: an ISBN's line shows nine digits or its label; a line of words, a
    /// price, a short phone number do not.
    @Test func aRowShowsAnISBNByNineDigitsOrItsLabel() {
        #expect(PrintedText.showsAnISBN("ISBN 0-596-00857-0"))
        #expect(PrintedText.showsAnISBN("1SBN O-596"))
        #expect(PrintedText.showsAnISBN("9 780596 008574"))
        #expect(PrintedText.showsAnISBN("SBN 345-03355-4"))
        #expect(!PrintedText.showsAnISBN("Got a Hack? Go to: hacks.oreilly.com"))
        #expect(!PrintedText.showsAnISBN("$12.95 in Canada, 2019"))
        #expect(!PrintedText.showsAnISBN("Tel. 555-0134"))
    }

    @Test func sbnNineDigitsGetALeadingZero() {
        #expect(isbns("SBN 345-34803-6") == ["9780345348036"])
    }

    @Test func theDigitLineUnderTheBarsCountsUnlabelled() {
        #expect(isbns("9 780596 008574") == ["9780596008574"])
        // Guard-bar stubs read as quote marks between the groups.
        #expect(isbns("9 \"780201\"310054\"") == ["9780201310054"])
        // The same ISBN labelled and under the bars is one number.
        #expect(isbns("ISBN 0-596-00857-0 9 780596 008574") == ["9780596008574"])
    }

    @Test func ocrSlipsInsideANumberAreMended() {
        #expect(isbns("ISBN O-345-34803-6") == ["9780345348036"])
        #expect(isbns("ISBN 0-345-348O3-6.") == ["9780345348036"])
    }

    @Test func trapsAreNoISBN() {
        // A wrong check character, phone numbers, prices, an LCCN, a printing line.
        #expect(isbns("ISBN 0-345-34803-7").isEmpty)
        #expect(isbns("Call (212) 555-1234 or 1-800-555-0199").isEmpty)
        #expect(isbns("$12.99 US / $15.99 CAN").isEmpty)
        #expect(isbns("Library of Congress Control Number: 2004012345").isEmpty)
        #expect(isbns("10 9 8 7 6 5 4 3 2 1").isEmpty)
        // Ten unlabelled digits whose mod-11 check happens to hold are not an ISBN.
        #expect(isbns("0345348036").isEmpty)
        // Nine digits need "SBN".
        #expect(isbns("ISBN 345-34803-6").isEmpty)
    }

    @Test func formatsBesideANumber() throws {
        let ebook = try #require(PrintedText.numbers(in: "ISBN 978-0-306-40615-7 (ebook)").first)
        #expect(ebook.isOtherFormat && ebook.format == "ebook")
        let eisbn = try #require(PrintedText.numbers(in: "eISBN: 978-0-306-40615-7").first)
        #expect(eisbn.isOtherFormat)
        let paperback = try #require(PrintedText.numbers(in: "ISBN 978-0-306-40615-7 (pbk. : alk. paper)").first)
        #expect(!paperback.isOtherFormat && paperback.format == "pbk")
        let two = PrintedText.numbers(in: "ISBN 978-0-306-40615-7 (hardcover) ISBN 978-0-596-00857-4 (e-book)")
        #expect(two.map(\.isOtherFormat) == [false, true])
    }

    @Test func upcDigitLinesAsGTIN13() {
        #expect(PrintedText.gtinLines(in: "0 23942 43101 5") == ["0023942431015"])
        #expect(PrintedText.gtinLines(in: "9 780596 008574") .contains("9780596008574"))
        #expect(PrintedText.gtinLines(in: "0 23942 43101 4").isEmpty)
        // An ISBN line with its check digit cut off passes a UPC-A check here by chance: no line.
        #expect(PrintedText.gtinLines(in: "ISBN 978-1-250-31318").isEmpty)
        #expect(PrintedText.gtinLines(in: "9\" 781250 313188") == ["9781250313188"])
    }
}
