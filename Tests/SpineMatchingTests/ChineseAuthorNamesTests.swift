import Foundation
@testable import SpineMatching
import Testing
import Vision

/// Chinese names are two or three characters written together: kept as one word (the one-letter
/// filter dropped every character), found in a reading's characters, and a different name read
/// beside the title is no author.
@Suite struct ChineseAuthorNamesTests {
    static let book = NeighbourJoinTests.book
    static let catalogue = WorkIndex([
        book("era", "智能时代", "吴军"),
        book("wave", "浪潮之巅", "吴军"),
        book("graph", "图论导引", "程方军"),
    ])

    func match(_ text: String) -> SpineMatch {
        SpineMatcher().match(SpineReading(text: text, confidence: 0.9), index: Self.catalogue)
    }

    @Test func aChineseNameIsOneWord() {
        #expect(AuthorName.words("程方军") == ["程方军"])
        #expect(AuthorName.words("吴军") == ["吴军"])
        #expect(AuthorName.words("Neal Shusterman") == ["neal", "shusterman"])
        #expect(AuthorName.joiningNames(["图", "论", "程", "方", "军"], ["程方军"]) == ["图", "论", "程方军"])
    }

    @Test func aShortChineseTitleWithItsAuthorReadIsAdded() {
        // Four characters do not stand alone: review without the author, added with it.
        #expect(match("智能时代").decision == .medium)
        let withAuthor = match("智能时代 吴军")
        #expect(withAuthor.best?.workKey == "era")
        #expect(withAuthor.decision == .strong, "\(withAuthor.reason ?? "")")
        #expect(match("图论导引 程方军").decision == .strong)
        // Another name beside it is no author read.
        #expect(match("智能时代 王小明").decision != .strong)
        // The model's author field, written together.
        let fields = SpineMatcher().match(SpineReading(text: "智能时代 吴军", title: "智能时代", author: "吴军", confidence: 0.9), index: Self.catalogue)
        #expect(fields.decision == .strong && fields.best?.workKey == "era")
    }
}
