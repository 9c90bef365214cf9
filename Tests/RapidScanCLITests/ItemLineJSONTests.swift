import Catalogue
import Foundation
@testable import RapidScanCLI
import Testing

/// `library list --json` writes its lines without JSONEncoder: each must be JSONEncoder's text
/// byte for byte (the JSON Lines contract in docs/CLI.md does not change with the writer).
@Suite struct ItemLineJSONTests {
    /// Every ASCII control character, quotes, backslashes, slashes and text beyond ASCII.
    static let awkward: String = {
        var text = String(String.UnicodeScalarView((0..<0x20).compactMap(Unicode.Scalar.init)))
        text += #"Le "Petit" \ Prince / 1/2 — García 東京 😀 "# + "\u{7F}\u{2028}\u{FEFF}"
        return text
    }()

    static func item(bare: Bool, title: String = "Dune", added: Double = 1_704_067_200.75) -> Item {
        Item(id: "item-1", listId: "local_toRead", userId: "local", bookId: "OL1W", isbn: bare ? "x7" : "9780441013593",
             title: title, authors: bare ? [] : ["Frank Herbert", awkward], coverImageUrl: bare ? nil : "http://covers/1.jpg",
             description: nil, pageCount: nil, genre: nil, categories: nil, status: bare ? .unread : .reading, liked: !bare,
             rating: bare ? nil : 4, notes: bare ? nil : awkward, currentPage: bare ? nil : 120,
             startedReadingAt: bare ? nil : Date(timeIntervalSince1970: -1.5),
             finishedReadingAt: bare ? nil : Date(timeIntervalSince1970: 253_402_300_799.999),
             addedAt: Date(timeIntervalSince1970: added), updatedAt: Date(timeIntervalSince1970: added), isOwned: !bare,
             ownedFormat: bare ? nil : .ebook, ownedAt: bare ? nil : Date(timeIntervalSince1970: added), station: bare ? nil : "desk/7")
    }

    @Test(arguments: [true, false])
    func anItemLineIsJSONEncodersText(bare: Bool) throws {
        for (title, added) in [("Dune", 1_704_067_200.75), (Self.awkward, 0), ("", -86_400.5)] {
            for listName: String? in [nil, "Want to Read", Self.awkward] {
                let line = ItemLine(Self.item(bare: bare, title: title, added: added), event: "item", listName: listName)
                #expect(line.jsonText == (try JSONLines.encode(line)))
            }
        }
    }

    @Test func theSummaryLineIsJSONEncodersText() throws {
        for line in [ListSummaryLine(count: 20, matched: 100_000), ListSummaryLine(count: 0, matched: nil),
                     ListSummaryLine(event: "summary", count: 3)] {
            #expect(line.jsonText == (try JSONLines.encode(line)))
        }
    }
}
