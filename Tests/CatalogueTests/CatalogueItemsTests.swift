import BookCodes
import Catalogue
import Foundation
import Testing
import TestSupport

@Suite struct CatalogueItemsTests {
    /// Owns Dune, Foundation and Gatsby; returns their items by title.
    func ownedShelf(_ temp: TemporaryCatalogue) throws -> [String: Item] {
        var items: [String: Item] = [:]
        let books = [("9780441013593", "Dune", "Frank Herbert"), ("9780553293357", "Foundation", "Isaac Asimov"),
                     ("9780743273565", "The Great Gatsby", "F. Scott Fitzgerald")]
        for (offset, (code, title, author)) in books.enumerated() {
            let work = try temp.catalogue.record(edition(title, by: author), for: isbn(code))
            guard case let .added(item) = try temp.catalogue.addOwned(isbn: isbn(code), work: work, now: Date(timeIntervalSince1970: 1_700_000_000 + Double(offset) * 86_400)) else {
                throw LibraryError.notInLibrary(code)
            }
            items[title] = item
        }
        return items
    }

    /// Items are read and written by hand, not through Codable: every awkward character in
    /// their JSON array columns must come back as it went in, and a row GRDB's Codable
    /// encoding wrote (escaped "/") must read the same.
    @Test func itemsRoundTripAwkwardTextThroughTheirColumns() throws {
        let temp = try TemporaryCatalogue()
        let authors = ["Ngũgĩ wa Thiong'o", "A \"Quoted\" Name", "Back\\slash / Slash", "Tab\tNew\nline\u{01}", "", "日本語 🙂"]
        let code = try isbn("9780441013593")
        let work = try temp.catalogue.record(edition("Dune", by: authors[0]), for: code)
        var awkward = work
        awkward.authors = authors
        guard case let .added(added) = try temp.catalogue.addOwned(isbn: code, work: awkward) else {
            Issue.record("the book was not added")
            return
        }
        #expect(added.authors == authors)
        #expect(try temp.catalogue.item(isbn: code)?.authors == authors)
        // Two rows written the way GRDB's Codable encoding writes arrays, and an empty one.
        for (text, expected) in [(#"["A\/B","C"]"#, ["A/B", "C"]), ("[ ]", []), (#"[ "x" , "y" ]"#, ["x", "y"])] {
            try temp.execute("UPDATE items SET authors = '\(text)', categories = '\(text)' WHERE isbn = '\(code.digits)'")
            let read = try #require(try temp.catalogue.item(isbn: code))
            #expect(read.authors == expected)
            #expect(read.categories == expected)
        }
        // Authors that are not a JSON list are named and left out; the book still reads.
        try temp.execute("UPDATE items SET authors = 'not json' WHERE isbn = '\(code.digits)'")
        #expect(try temp.catalogue.item(isbn: code)?.authors == [])
        #expect(temp.catalogue.damage.found.map(\.column) == ["authors"])
    }

    @Test func queryMatchesWordsAnywhereAndFieldFilters() throws {
        let temp = try TemporaryCatalogue()
        let items = try ownedShelf(temp)
        func titles(_ terms: [String]) throws -> [String] { try temp.catalogue.items(matching: LibraryQuery(terms: terms)).map(\.title) }
        #expect(try titles(["gatsby"]) == ["The Great Gatsby"])
        #expect(try titles(["scott", "great"]) == ["The Great Gatsby"])
        #expect(try titles(["author:asimov"]) == ["Foundation"])
        #expect(try titles(["isbn:0441013597"]) == ["Dune"])
        #expect(try titles([]) == ["Dune", "Foundation", "The Great Gatsby"])
        _ = try temp.catalogue.updateItem(id: items["Foundation"]!.id, ItemChange(status: .read))
        #expect(try titles(["status:read"]) == ["Foundation"])
        #expect(try titles(["list:finished"]) == ["Foundation"])
        #expect(try titles(["added:2023-11-15"]) == ["Foundation"])
        #expect(try titles(["added:2023-11-15..2023-11-16"]) == ["Foundation", "The Great Gatsby"])
        #expect(throws: LibraryQuery.ParseError.unknownField("stauts")) { try LibraryQuery(terms: ["stauts:read"]) }
        #expect(throws: LibraryQuery.ParseError.badValue(field: "status", value: "done")) { try LibraryQuery(terms: ["status:done"]) }
    }

    @Test func removeKeepsItemCountOwnedCountAndReadingCountersRight() throws {
        let temp = try TemporaryCatalogue()
        let items = try ownedShelf(temp)
        _ = try temp.catalogue.updateItem(id: items["Dune"]!.id, ItemChange(status: .read))
        _ = try temp.catalogue.updateItem(id: items["Foundation"]!.id, ItemChange(status: .reading))
        #expect(try temp.catalogue.user().booksRead == 1)
        #expect(try temp.catalogue.user().currentlyReading == 1)
        #expect(try temp.catalogue.removeItems(ids: [items["Dune"]!.id, items["Foundation"]!.id]) == 2)
        #expect(try temp.catalogue.ownedCount() == 1)
        #expect(try temp.catalogue.lists().first { $0.id == "local_toRead" }?.itemCount == 1)
        #expect(try temp.catalogue.user().booksRead == 0)
        #expect(try temp.catalogue.user().currentlyReading == 0)
    }

    @Test func statusChangesFollowTheReadingProgressRules() throws {
        let temp = try TemporaryCatalogue()
        let id = try ownedShelf(temp)["Dune"]!.id
        let started = Date(timeIntervalSince1970: 1_750_000_000), finished = started.addingTimeInterval(86_400)
        let reading = try temp.catalogue.updateItem(id: id, ItemChange(status: .reading, currentPage: 120), now: started)
        #expect(reading.startedReadingAt == started && reading.finishedReadingAt == nil && reading.currentPage == 120)
        let read = try temp.catalogue.updateItem(id: id, ItemChange(status: .read, rating: 4, liked: true), now: finished)
        #expect(read.startedReadingAt == started && read.finishedReadingAt == finished && read.rating == 4 && read.liked)
        let unread = try temp.catalogue.updateItem(id: id, ItemChange(status: .unread))
        #expect(unread.startedReadingAt == nil && unread.finishedReadingAt == nil)
        #expect(throws: LibraryError.invalidRating(6)) { try temp.catalogue.updateItem(id: id, ItemChange(rating: 6)) }
    }

    @Test func listsFollowTheSeedsRules() throws {
        let temp = try TemporaryCatalogue()
        let items = try ownedShelf(temp)
        #expect(throws: LibraryError.customListsNeedPro) { try temp.catalogue.createList(name: "Sci-fi") }
        #expect(throws: LibraryError.defaultListCannotBeDeleted("Want to Read")) { try temp.catalogue.deleteList("want to read") }
        #expect(throws: LibraryError.defaultListCannotBeDeleted("Finished")) { try temp.catalogue.deleteList("local_completed") }
        try temp.catalogue.setPro(true)
        let scifi = try temp.catalogue.createList(name: "Sci-fi")
        #expect(scifi.listType == .custom && !scifi.isDefault && scifi.shareCode.count == 6)
        #expect(throws: LibraryError.listNameTaken("sci-fi")) { try temp.catalogue.createList(name: "sci-fi") }
        _ = try temp.catalogue.moveItem(id: items["Dune"]!.id, toList: "Sci-fi")
        _ = try temp.catalogue.moveItem(id: items["Foundation"]!.id, toList: scifi.id)
        func count(_ id: String) throws -> Int? { try temp.catalogue.lists().first { $0.id == id }?.itemCount }
        #expect(try count(scifi.id) == 2 && count("local_toRead") == 1)
        #expect(try temp.catalogue.deleteList("Sci-fi") == 2)
        #expect(try count("local_toRead") == 3)
        #expect(try temp.catalogue.ownedCount() == 3)
    }

    @Test func notFoundCodesAreRememberedAndAManualBookResolvesThem() throws {
        let temp = try TemporaryCatalogue()
        let code = isbn("9780306406157")
        try temp.catalogue.rememberNotFound(isbn: code, origin: "shelf.jpg")
        try temp.catalogue.rememberNotFound(isbn: code, origin: "shelf2.jpg")
        #expect(try temp.catalogue.notFoundCodes().map(\.times) == [2])
        let work = try temp.catalogue.recordManual(isbn: code, title: "Local History", authors: ["A. Writer"])
        #expect(work.apiSource == "manual")
        #expect(try temp.catalogue.work(forISBN: code)?.title == "Local History")
        try temp.catalogue.forgetNotFound(isbn: code)
        #expect(try temp.catalogue.notFoundCodes().isEmpty)
    }
}
