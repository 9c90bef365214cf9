import BookMetadata
import Testing

/// One rule per field, used by the sources and the best-data merge alike.
@Suite struct FieldNormalizationTests {
    let googleThumb = "http://books.google.com/books/content?id=ySOBzgEACAAJ&printsec=frontcover&img=1&zoom=1&edge=curl&source=gbs_api"

    @Test func googleThumbnailsBecomeHTTPSWithoutEdgeCurl() {
        #expect(CoverURL.normalize(googleThumb)
            == "https://books.google.com/books/content?id=ySOBzgEACAAJ&printsec=frontcover&img=1&zoom=1&source=gbs_api")
        #expect(CoverURL.normalize("http://covers.openlibrary.org/b/id/8739161-L.jpg")
            == "https://covers.openlibrary.org/b/id/8739161-L.jpg")
        #expect(CoverURL.normalize("http://example.com/c.jpg?edge=curl") == "http://example.com/c.jpg?edge=curl")
        #expect(CoverURL.normalize("  ") == nil)
    }

    @Test func publishDates() {
        #expect(PublishDate.normalize("2021") == "2021")
        #expect(PublishDate.normalize("2021-07") == "2021-07")
        #expect(PublishDate.normalize("2023-05-16") == "2023-05-16")
        #expect(PublishDate.normalize("2023-05-16T00:00:00Z") == "2023-05-16")
        #expect(PublishDate.normalize("July 16, 2019") == "2019-07-16")
        #expect(PublishDate.normalize("1 March 2004") == "2004-03-01")
        #expect(PublishDate.normalize("Sep 2004") == "2004-09")
        #expect(PublishDate.normalize("c1995") == "1995")
        #expect(PublishDate.normalize("[1995?]") == "1995")
        #expect(PublishDate.normalize("2021-13") == "2021")  // bad month: the year still holds
        #expect(PublishDate.normalize("unknown") == nil)
        #expect(PublishDate.normalize("") == nil)
    }

    @Test func htmlBecomesText() {
        #expect(PlainText.fromHTML("<p>One &amp; two</p><p><br></p><p>Three&#39;s <b>bold</b>&nbsp;&#x2014; end</p>")
            == "One & two\n\nThree's bold — end")
        #expect(PlainText.fromHTML("Line<br/>next &unknown; &lt;tag&gt;") == "Line\nnext &unknown; <tag>")
        #expect(PlainText.fromHTML("   ") == nil)
    }

    @Test func coverURLs() {
        #expect(CoverURL.normalize("http://books.google.com/books/content?id=X&img=1&zoom=1&edge=curl&source=gbs_api")
            == "https://books.google.com/books/content?id=X&img=1&zoom=1&source=gbs_api")
        #expect(CoverURL.normalize("https://covers.openlibrary.org/b/id/1-L.jpg") == "https://covers.openlibrary.org/b/id/1-L.jpg")
        #expect(CoverURL.normalize("not a url") == nil)
    }

    @Test func formatsFromFreeTextAndForTheCache() {
        #expect(BookFormat.normalize("Hardcover") == "hardcover")
        #expect(BookFormat.normalize("Hardback") == "hardcover")
        #expect(BookFormat.normalize("School & Library Binding") == "hardcover")
        #expect(BookFormat.normalize("Trade Paperback") == "paperback")
        #expect(BookFormat.normalize("Mass Market") == "paperback")
        #expect(BookFormat.normalize("Softcover") == "paperback")
        #expect(BookFormat.normalize("Audio CD") == "audiobook")
        #expect(BookFormat.normalize("Audio Cassette") == "audiobook")
        #expect(BookFormat.normalize("Electronic resource") == "ebook")
        #expect(BookFormat.normalize("E-book") == "ebook")
        #expect(BookFormat.normalize("digital") == "ebook")
        #expect(BookFormat.normalize("Unknown Binding") == nil)
        #expect(BookFormat.normalize("  ") == nil)
        #expect(BookFormat.stored(nil) == "unknown")
        #expect(BookFormat.stored("Board book") == "unknown")
        #expect(BookFormat.stored("paperback") == "paperback")
    }

    @Test func languagesAsTwoLetterCodes() {
        #expect(LanguageCode.normalize("/languages/eng") == "en")
        #expect(LanguageCode.normalize("fre") == "fr")
        #expect(LanguageCode.normalize("en") == "en")
        #expect(LanguageCode.normalize(nil) == nil)
    }
}
