import BookMetadata
import Testing

/// The one date rule: what a source normalises is what the merge compares.
@Suite struct PublishDateTests {
    @Test func freeTextKeepsItsPrecisionAndComparesWithStoredDates() throws {
        let spelled = try #require(PublishDate(parsing: "July 16, 2019"))
        #expect(spelled.text == "2019-07-16")
        #expect(PublishDate.isEarlier(spelled, than: PublishDate(parsing: "2019")))
        #expect(!PublishDate.isEarlier(spelled, than: PublishDate(parsing: "2019-07-01")))
        #expect(PublishDate.isEarlier(try #require(PublishDate(parsing: "c1995")), than: spelled))
        #expect(PublishDate(parsing: "Sep 2004")?.text == "2004-09")
        #expect(PublishDate(parsing: "2021-13")?.text == "2021")
        #expect(PublishDate(parsing: "0999") == nil)
        #expect(PublishDate(parsing: "no date at all") == nil)
        #expect(PublishDate.normalize("2023-05-16T00:00:00Z") == "2023-05-16")
    }
}
