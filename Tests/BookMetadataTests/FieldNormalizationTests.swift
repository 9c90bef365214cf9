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

/// Outside text on its way in (`clean`) and names on their way to a terminal (`shown`).
@Suite struct OutsideTextTests {
    @Test func terminalControlIsDroppedWholeAndTheRestKept() {
        #expect(OutsideText.clean("Evil\u{1B}[2J Title") == "Evil Title")
        #expect(OutsideText.clean("Ann\u{1B}]52;c;ZXZpbA==\u{07} Author") == "Ann Author")
        #expect(OutsideText.clean("a\u{1B}]0;title\u{1B}\\b") == "ab", "OSC ended by ESC \\")
        #expect(OutsideText.clean("a\u{1B}Pq#0;2\u{1B}\\b") == "ab", "DCS (sixel)")
        #expect(OutsideText.clean("a\u{1B}cb\u{1B}(Bc") == "abc", "reset and charset escapes")
        #expect(OutsideText.clean("Pub\u{9B}31mlisher\u{9D}0;x\u{9C}") == "Publisher", "C1 CSI and OSC")
        #expect(OutsideText.clean("Bob \u{202E}Reversed\u{2066}\u{200F}") == "Bob Reversed")
        #expect(OutsideText.clean("Title\u{0}Tail") == "TitleTail", "a NUL is no end")
        #expect(OutsideText.clean("one\ttwo\nthree\u{7F}") == "one two three")
        #expect(OutsideText.clean("one\nline\u{85}", keepingLines: true) == "one\nline…", "Windows-1252 punctuation repaired")
        #expect(OutsideText.clean("unterminated \u{1B}]52;c;abc") == "unterminated 52;c;abc", "only the introducer goes")
        #expect(OutsideText.clean("Ngũgĩ wa Thiong'o — 日本 🙂") == "Ngũgĩ wa Thiong'o — 日本 🙂")
    }

    @Test func sourcesTidyTheirTextWithTheSameRule() {
        #expect(PlainText.tidy("  A\u{1B}[31m  B \u{202E}") == "A B")
        #expect(PlainText.fromHTML("<p>One\u{1B}]0;x\u{07}</p><p>Two</p>") == "One\n\nTwo")
        #expect(LanguageCode.normalize("/languages/\u{1B}[2Jeng") == "en")
    }

    @Test func namesAreShownWithControlsAndBadBytesEscaped() {
        #expect(OutsideText.shown("shelf\u{1B}[2J\nnext.png") == #"shelf\x1B[2J\nnext.png"#)
        #expect(OutsideText.shown("\u{202E}gnp.exe") == #"\u{202E}gnp.exe"#)
        #expect(OutsideText.shown(Array("caf".utf8) + [0xE9] + Array(".png".utf8)) == #"caf\xE9.png"#)
        #expect(OutsideText.shown("Café 🙂.png") == "Café 🙂.png")
    }
}
