import BookCodes
import BookMetadata
import Catalogue
import Testing

@Suite struct WorkKeyTests {
    @Test(arguments: [
        ("Think Again", "Adam Grant", "thinkagain_adamgrant"),
        ("The Great Gatsby", "F. Scott Fitzgerald", "greatgatsby_fscottfitzgerald"),
        ("A Tale of Two Cities", "Charles Dickens", "taleoftwocities_charlesdickens"),
    ])
    func seedExamples(title: String, author: String, key: String) {
        #expect(WorkKey(title: title, author: author).rawValue == key)
    }

    @Test func articlesNeedFollowingWhitespaceAndOnlyLeadOnce() {
        #expect(WorkKey(title: "An Apple a Day", author: "X").rawValue == "appleaday_x")
        #expect(WorkKey(title: "Anne of Green Gables", author: "L. M. Montgomery").rawValue == "anneofgreengables_lmmontgomery")
        #expect(WorkKey(title: "Theory of Everything", author: "").rawValue == "theoryofeverything_")
        #expect(WorkKey(title: "The The", author: "").rawValue == "the_")
        #expect(WorkKey(title: "THE\u{00A0}Road", author: "Cormac McCarthy").rawValue == "road_cormacmccarthy")
        #expect(WorkKey(title: " The Road", author: "").rawValue == "theroad_")
    }

    @Test func nonAlphanumericsAreRemovedAndLengthsCut() {
        #expect(WorkKey(title: "Café Society: 1984!", author: "Zoë O'Brien").rawValue == "cafsociety1984_zoobrien")
        let long = WorkKey(title: String(repeating: "abcdefghij", count: 8), author: String(repeating: "xyz", count: 20))
        #expect(long.rawValue == String(repeating: "abcdefghij", count: 5) + "_" + String(repeating: "xyz", count: 10))
    }

    @Test func titlesWithoutLatinLettersFallBackToTheISBN() {
        let japanese = EditionMetadata(title: "ノルウェイの森", authors: ["Haruki Murakami"], apiSource: "openLibrary")
        #expect(WorkKey(edition: japanese, isbn: "9784062748681").rawValue == "isbn9784062748681_harukimurakami")
        let latin = EditionMetadata(title: "Norwegian Wood", authors: ["Haruki Murakami"], apiSource: "openLibrary")
        #expect(WorkKey(edition: latin, isbn: "9780375704024").rawValue == "norwegianwood_harukimurakami")
    }
}
