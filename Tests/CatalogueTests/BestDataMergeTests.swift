import BookCodes
import Catalogue
import Foundation
import Testing

@Suite struct BestDataMergeTests {
    let googleThumb = "http://books.google.com/books/content?id=ySOBzgEACAAJ&printsec=frontcover&img=1&zoom=1&edge=curl&source=gbs_api"

    @Test func coverPrefersHTTPSOverHTTP() {
        #expect(BestDataMerge.preferredCover(existing: "http://example.com/a.jpg", incoming: "https://example.com/b.jpg") == "https://example.com/b.jpg")
        #expect(BestDataMerge.preferredCover(existing: "https://example.com/a.jpg", incoming: "http://example.com/b.jpg") == "https://example.com/a.jpg")
        #expect(BestDataMerge.preferredCover(existing: "https://example.com/a.jpg", incoming: "https://example.com/b.jpg") == "https://example.com/a.jpg")
        #expect(BestDataMerge.preferredCover(existing: nil, incoming: "http://example.com/b.jpg") == "http://example.com/b.jpg")
        #expect(BestDataMerge.preferredCover(existing: "http://example.com/a.jpg", incoming: nil) == "http://example.com/a.jpg")
        // Among HTTPS covers, the larger one the URL asks for.
        let googleThumbnail = "https://books.google.com/books/content?id=x&img=1&zoom=1"
        let openLibraryLarge = "https://covers.openlibrary.org/b/id/1-L.jpg"
        #expect(BestDataMerge.preferredCover(existing: googleThumbnail, incoming: openLibraryLarge) == openLibraryLarge)
        #expect(BestDataMerge.preferredCover(existing: openLibraryLarge, incoming: googleThumbnail) == openLibraryLarge)
        #expect(BestDataMerge.preferredCover(existing: "https://covers.openlibrary.org/b/id/1-M.jpg", incoming: googleThumbnail)
            == "https://covers.openlibrary.org/b/id/1-M.jpg")
        #expect(BestDataMerge.preferredCover(existing: openLibraryLarge, incoming: "http://covers.openlibrary.org/b/id/2-L.jpg")
            == openLibraryLarge)
    }

    @Test func descriptionPrefersCompleteThenLonger() {
        #expect(BestDataMerge.isTruncated("It was the best of times…"))
        #expect(BestDataMerge.isTruncated("It was the best of times... "))
        #expect(!BestDataMerge.isTruncated("It was the best of times."))
        let short = "A short complete text."
        let longTruncated = "A much longer description that the source cut off in the middle of a..."
        let longer = "A short complete text, and more of it."
        #expect(BestDataMerge.preferredDescription(existing: longTruncated, incoming: short) == short)
        #expect(BestDataMerge.preferredDescription(existing: short, incoming: longTruncated) == short)
        #expect(BestDataMerge.preferredDescription(existing: short, incoming: longer) == longer)
        #expect(BestDataMerge.preferredDescription(existing: longer, incoming: short) == longer)
        #expect(BestDataMerge.preferredDescription(existing: nil, incoming: " ") == nil)
        #expect(BestDataMerge.preferredDescription(existing: short, incoming: nil) == short)
    }

    @Test func pageCountKeepsTheFirstNonEmpty() {
        #expect(BestDataMerge.preferredPageCount(existing: nil, incoming: 320) == 320)
        #expect(BestDataMerge.preferredPageCount(existing: 0, incoming: 320) == 320)
        #expect(BestDataMerge.preferredPageCount(existing: 300, incoming: 320) == 300)
        #expect(BestDataMerge.preferredPageCount(existing: nil, incoming: 0) == nil)
    }

    @Test func publishDateIsTheEarliestAtSharedPrecision() {
        #expect(BestDataMerge.earliestPublishDate(existing: "2001-05-03", incoming: "1999") == "1999")
        #expect(BestDataMerge.earliestPublishDate(existing: "1999", incoming: "2001-05-03") == "1999")
        #expect(BestDataMerge.earliestPublishDate(existing: "2001-05", incoming: "2001-04-30") == "2001-04-30")
        #expect(BestDataMerge.earliestPublishDate(existing: "2001-05-03", incoming: "2001-05-02") == "2001-05-02")
        // Same year: the more precise date wins, the vaguer one never replaces it.
        #expect(BestDataMerge.earliestPublishDate(existing: "2001", incoming: "2001-12-31") == "2001-12-31")
        #expect(BestDataMerge.earliestPublishDate(existing: "2001-12-31", incoming: "2001") == "2001-12-31")
        // One date rule with the sources now: free text keeps its month and day.
        #expect(BestDataMerge.earliestPublishDate(existing: nil, incoming: "May 5, 2009") == "2009-05-05")
        #expect(BestDataMerge.earliestPublishDate(existing: "2009-06", incoming: "May 5, 2009") == "2009-05-05")
        #expect(BestDataMerge.earliestPublishDate(existing: "2010", incoming: "unknown") == "2010")
        #expect(BestDataMerge.earliestPublishDate(existing: "2010", incoming: "2010-13-01") == "2010")
    }

    @Test func categoriesUnionIgnoringCase() {
        #expect(BestDataMerge.unionCategories(["Fiction", "Classics"], ["fiction", " History ", ""]) == ["Fiction", "Classics", "History"])
    }

    @Test func mergeImprovesEveryFieldAndKeepsEditions() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let first = edition("Think Again", description: "Short…", cover: googleThumb, categories: ["Psychology"],
                            pages: 0, date: "2021-02-02", publisher: "Viking")
        let work = BestDataMerge.newWork(from: first, isbn: "9781984878106", workKey: WorkKey(title: "Think Again", author: "Adam Grant"), now: now)
        #expect(work.coverImageUrl?.hasPrefix("https://") == true)
        #expect(work.pageCount == nil)
        #expect(work.genre == "Psychology")
        #expect(work.editions == ["9781984878106"] && work.editionCount == 1 && work.primaryIsbn == "9781984878106")

        let second = edition("Think Again", description: "The complete description of the book.",
                             cover: "https://covers.openlibrary.org/b/id/1-L.jpg", categories: ["psychology", "Business"],
                             pages: 320, date: "2021", publisher: "WH Allen", source: "openLibrary")
        let merged = BestDataMerge.merge(work, with: second, isbn: "9780753553893", isBetterEdition: true, now: now + 60)
        #expect(merged.coverImageUrl == "https://covers.openlibrary.org/b/id/1-L.jpg")  // larger than Google's zoom=1
        #expect(merged.description == "The complete description of the book.")
        #expect(merged.pageCount == 320)
        #expect(merged.publishDate == "2021-02-02")
        #expect(merged.publisher == "Viking")
        #expect(merged.categories == ["Psychology", "Business"])
        #expect(merged.editions == ["9781984878106", "9780753553893"] && merged.editionCount == 2)
        #expect(merged.primaryIsbn == "9780753553893")
        #expect(merged.apiSource == "googleBooks" && merged.createdAt == now && merged.updatedAt == now + 60)

        let earlier = edition("Think Again", date: "2020-12", publisher: "Original House")
        let again = BestDataMerge.merge(merged, with: earlier, isbn: "9780753553893", isBetterEdition: false, now: now)
        #expect(again.publishDate == "2020-12" && again.publisher == "Original House")
        #expect(again.editionCount == 2 && again.primaryIsbn == "9780753553893")
    }

    @Test func scoreRanksCompleteEditionsHigher() {
        let bare = edition("X")
        let rich = edition("X", description: "Complete.", cover: "https://a/b.jpg", categories: ["A"], pages: 10, date: "2000", publisher: "P")
        let truncatedHTTP = edition("X", description: "Cut…", cover: "http://example.com/a.jpg")
        #expect(BestDataMerge.score(rich) > BestDataMerge.score(truncatedHTTP))
        #expect(BestDataMerge.score(truncatedHTTP) > BestDataMerge.score(bare))
    }
}
