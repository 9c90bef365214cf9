import BookCodes
import BookMetadata
import Catalogue
import Foundation
import Testing
import TestSupport

/// The catalogue's rules, written against the seam's protocols only (`CatalogueStore`), run
/// against every implementation in `StoreFactory.all`. Nothing here knows SQL or SQLite.
@Suite struct CatalogueConformanceTests {
    static let day0 = Date(timeIntervalSince1970: 1_700_000_000)
    /// The station the tests add as (another one is `Self.otherDesk`).
    static let desk = "desk-1", otherDesk = "desk-2"

    static func day(_ n: Int) -> Date { day0.addingTimeInterval(Double(n) * 86_400) }

    static func book(_ title: String, by author: String, isbn13: String? = nil, description: String? = nil, pages: Int? = nil,
                     publisher: String? = nil, source: String = "googleBooks") -> EditionMetadata {
        EditionMetadata(isbn13: isbn13, title: title, authors: [author], description: description, coverImageUrl: nil, categories: [],
                        pageCount: pages, publishDate: nil, publisher: publisher, format: nil, apiSource: source)
    }

    /// Records and owns `count` distinct books, one a day from day 0.
    static func own(_ store: any CatalogueStore, count: Int, startingAt start: Int = 0) throws -> [Item] {
        try generatedISBNs(count, startingAt: start).enumerated().map { offset, code in
            let work = try store.record(book("Book \(code.digits)", by: "Author \(code.digits)"), for: code, now: day0)
            guard case let .added(item) = try store.addOwned(isbn: code, work: work, listId: nil, format: "physical", station: Self.desk, now: day(offset)) else {
                throw LibraryError.notInLibrary(code.digits)
            }
            return item
        }
    }

    /// Dune, Foundation and The Great Gatsby, owned on days 0, 1 and 2.
    static func shelf(_ store: any CatalogueStore) throws -> [String: Item] {
        let books = [("9780441013593", "Dune", "Frank Herbert"), ("9780553293357", "Foundation", "Isaac Asimov"),
                     ("9780743273565", "The Great Gatsby", "F. Scott Fitzgerald")]
        var items: [String: Item] = [:]
        for (offset, (code, title, author)) in books.enumerated() {
            let work = try store.record(book(title, by: author, publisher: "Ace"), for: isbn(code), now: day0)
            guard case let .added(item) = try store.addOwned(isbn: isbn(code), work: work, listId: nil, format: "physical", station: Self.desk, now: day(offset)) else {
                throw LibraryError.notInLibrary(code)
            }
            items[title] = item
        }
        return items
    }

    // MARK: The library's rules

    @Test(arguments: StoreFactory.all)
    func aBookIsOwnedOnceWhicheverEditionIsScanned(_ factory: StoreFactory) throws {
        let opened = try factory.open("local"), store = opened.store
        let hardcover = isbn("9781984878106"), paperback = isbn("9781984878113")
        let work = try store.record(Self.book("Think Again", by: "Adam Grant"), for: hardcover, now: Self.day0)
        let sameWork = try store.record(Self.book("Think Again", by: "Adam Grant"), for: paperback, now: Self.day0)
        #expect(sameWork.workKey == work.workKey)
        guard case let .added(item) = try store.addOwned(isbn: hardcover, work: work, listId: nil, format: "physical", station: Self.desk, now: Self.day0) else {
            Issue.record("expected added"); return
        }
        #expect(item.isOwned && item.ownedFormat == .physical && item.ownedAt == Self.day0 && item.status == .unread)
        #expect(item.listId == store.defaultListId && item.bookId == work.workKey && item.isbn == hardcover.digits)
        #expect(try store.addOwned(isbn: hardcover, work: work, listId: nil, format: "physical", station: Self.desk, now: Self.day(1)) == .alreadyOwned(item))
        #expect(try store.addOwned(isbn: paperback, work: sameWork, listId: nil, format: "ebook", station: Self.desk, now: Self.day(1)) == .alreadyOwned(item))
        #expect(try store.ownedCount() == 1)
        #expect(try store.ownedItems() == [item])
        #expect(try store.item(isbn: hardcover) == item)
        #expect(try store.item(isbn: paperback) == nil)
        #expect(try store.lists().first { $0.id == store.defaultListId }?.itemCount == 1)
        #expect(try store.user().scanCount == 1)
        #expect(throws: CatalogueError.invalidFormat("vinyl")) {
            try store.addOwned(isbn: hardcover, work: work, listId: nil, format: "vinyl", station: Self.desk, now: Self.day0)
        }
        #expect(throws: CatalogueError.unknownList("nowhere")) {
            try store.addOwned(isbn: isbn("9780306406157"), work: work, listId: "nowhere", format: "physical", station: Self.desk, now: Self.day0)
        }
    }

    @Test(arguments: StoreFactory.all)
    func theFreePlanHoldsExactlyFiftyOwnedBooks(_ factory: StoreFactory) throws {
        let opened = try factory.open("local"), store = opened.store
        let owned = try Self.own(store, count: 49)
        let more = try generatedISBNs(3, startingAt: 100).map { code in
            try store.addOwned(isbn: code, work: store.record(Self.book("Extra \(code.digits)", by: "X"), for: code, now: Self.day0),
                               listId: nil, format: "physical", station: Self.desk, now: Self.day0)
        }
        guard case .added = more[0] else { Issue.record("the 50th book should be added: \(more[0])"); return }
        #expect(more[1] == .libraryFull(owned: 50, limit: 50))
        #expect(more[2] == .libraryFull(owned: 50, limit: 50))
        #expect(try store.ownedCount() == 50)
        // A full library still says "already owned" for a book it holds.
        let first = try #require(try store.work(key: owned[0].bookId))
        #expect(try store.addOwned(isbn: isbn(owned[0].isbn), work: first, listId: nil, format: "physical", station: Self.desk, now: Self.day0) == .alreadyOwned(owned[0]))
        // Pro lifts the limit; back on the free plan nothing more is added.
        try store.setPro(true, now: Self.day0)
        #expect(try store.user().isPro)
        let code = generatedISBN(103)
        let work = try store.record(Self.book("Pro book", by: "Y"), for: code, now: Self.day0)
        guard case .added = try store.addOwned(isbn: code, work: work, listId: nil, format: "physical", station: Self.desk, now: Self.day0) else {
            Issue.record("Pro should add past 50"); return
        }
        try store.setPro(false, now: Self.day0)
        let late = generatedISBN(104)
        #expect(try store.addOwned(isbn: late, work: store.record(Self.book("Late", by: "Z"), for: late, now: Self.day0),
                                   listId: nil, format: "physical", station: Self.desk, now: Self.day0) == .libraryFull(owned: 51, limit: 50))
    }

    /// Sixty different books added at once from many threads to an empty free library: the
    /// limit is decided inside the store's transaction, so exactly fifty win.
    @Test(arguments: StoreFactory.all)
    func theLimitIsExactUnderARace(_ factory: StoreFactory) async throws {
        let opened = try factory.open("local"), store = opened.store
        let books = try generatedISBNs(60, startingAt: 500).map { code in
            (code, try store.record(Self.book("Race \(code.digits)", by: "R"), for: code, now: Self.day0))
        }
        let added = try await withThrowingTaskGroup(of: Bool.self) { group in
            for (code, work) in books {
                group.addTask {
                    if case .added = try store.addOwned(isbn: code, work: work, listId: nil, format: "physical", station: Self.desk, now: Self.day0) { return true }
                    return false
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(added == 50)
        #expect(try store.ownedCount() == 50)
        #expect(try store.lists().first { $0.id == store.defaultListId }?.itemCount == 50)
    }

    @Test(arguments: StoreFactory.all)
    func listsCountTheirBooksAndFollowThePlanRules(_ factory: StoreFactory) throws {
        let opened = try factory.open("local"), store = opened.store
        let items = try Self.shelf(store)
        #expect(try store.lists().map(\.name) == ["Want to Read", "Finished"])
        #expect(throws: LibraryError.customListsNeedPro) { try store.createList(name: "Sci-fi", description: nil, now: Self.day0) }
        #expect(throws: LibraryError.defaultListCannotBeDeleted("Want to Read")) { try store.deleteList("want to read", now: Self.day0) }
        try store.setPro(true, now: Self.day0)
        let scifi = try store.createList(name: "Sci-fi", description: "rockets", now: Self.day0)
        #expect(scifi.listType == .custom && !scifi.isDefault && scifi.shareCode.count == 6 && scifi.ownerId == "local")
        #expect(throws: LibraryError.listNameTaken("sci-fi")) { try store.createList(name: "sci-fi", description: nil, now: Self.day0) }
        #expect(try store.list(named: "SCI-FI").id == scifi.id)
        #expect(throws: LibraryError.unknownList("Poetry")) { try store.list(named: "Poetry") }
        let moved = try store.moveItem(id: try #require(items["Dune"]).id, toList: "Sci-fi", now: Self.day(5))
        #expect(moved.listId == scifi.id)
        _ = try store.moveItem(id: try #require(items["Foundation"]).id, toList: scifi.id, now: Self.day(5))
        func count(_ id: String) throws -> Int? { try store.lists().first { $0.id == id }?.itemCount }
        #expect(try count(scifi.id) == 2 && count(store.defaultListId) == 1)
        let renamed = try store.renameList(scifi.id, to: "Science fiction", now: Self.day(6))
        #expect(renamed.name == "Science fiction")
        #expect(throws: LibraryError.listNameTaken("Finished")) { try store.renameList(scifi.id, to: "Finished", now: Self.day(6)) }
        // Deleting a custom list keeps its books: they move to Want to Read.
        #expect(try store.deleteList("Science fiction", now: Self.day(7)) == 2)
        #expect(try count(store.defaultListId) == 3)
        #expect(try store.ownedCount() == 3)
        #expect(try store.removeItems(ids: [try #require(items["Dune"]).id, "no-such-id"], now: Self.day(8)) == 1)
        #expect(try count(store.defaultListId) == 2 && store.ownedCount() == 2)
    }

    @Test(arguments: StoreFactory.all)
    func readingStatusSetsReadingDatesAndTheUsersCounters(_ factory: StoreFactory) throws {
        let opened = try factory.open("local"), store = opened.store
        let id = try #require(try Self.shelf(store)["Dune"]).id
        let started = Self.day(10), finished = Self.day(11)
        let reading = try store.updateItem(id: id, ItemChange(status: .reading, currentPage: 120), now: started)
        #expect(reading.startedReadingAt == started && reading.finishedReadingAt == nil && reading.currentPage == 120)
        #expect(try store.user().currentlyReading == 1)
        let read = try store.updateItem(id: id, ItemChange(status: .read, rating: 4, liked: true, notes: "great"), now: finished)
        #expect(read.startedReadingAt == started && read.finishedReadingAt == finished && read.rating == 4 && read.liked && read.notes == "great")
        #expect(try store.user().booksRead == 1 && store.user().currentlyReading == 0)
        let unread = try store.updateItem(id: id, ItemChange(status: .unread, rating: .some(nil)), now: Self.day(12))
        #expect(unread.startedReadingAt == nil && unread.finishedReadingAt == nil && unread.rating == nil)
        #expect(try store.user().booksRead == 0)
        #expect(throws: LibraryError.invalidRating(6)) { try store.updateItem(id: id, ItemChange(rating: 6), now: Self.day0) }
        #expect(throws: LibraryError.invalidPage(-1)) { try store.updateItem(id: id, ItemChange(currentPage: -1), now: Self.day0) }
        #expect(throws: LibraryError.notInLibrary("missing")) { try store.updateItem(id: "missing", ItemChange(status: .read), now: Self.day0) }
    }

    @Test(arguments: StoreFactory.all)
    func theDefaultListsFollowTheReadingStatus(_ factory: StoreFactory) throws {
        let opened = try factory.open("local"), store = opened.store
        let shelf = try Self.shelf(store)
        let dune = try #require(shelf["Dune"]).id, gatsby = try #require(shelf["The Great Gatsby"]).id
        let finishedList = try #require(try store.lists().first { $0.listType == .completed }).id
        // Read straight from unread: finished now, and not "started" at that same moment.
        let read = try store.updateItem(id: dune, ItemChange(status: .read), now: Self.day(10))
        #expect(read.listId == finishedList && read.startedReadingAt == nil && read.finishedReadingAt == Self.day(10))
        #expect(try store.lists().map(\.itemCount) == [2, 1])
        // Read again: back on Want to Read, started now, no longer finished.
        let again = try store.updateItem(id: dune, ItemChange(status: .reading), now: Self.day(11))
        #expect(again.listId == store.defaultListId && again.startedReadingAt == Self.day(11) && again.finishedReadingAt == nil)
        #expect(try store.lists().map(\.itemCount) == [3, 0])
        // Not interested: the book stays on its list.
        #expect(try store.updateItem(id: gatsby, ItemChange(status: .notInterested), now: Self.day(12)).listId == store.defaultListId)
        // The last page reached finishes the book (the seed's auto-complete).
        let work = try store.record(Self.book("Short Book", by: "A. Author", pages: 100), for: isbn("9780306406157"), now: Self.day0)
        guard case let .added(short) = try store.addOwned(isbn: isbn("9780306406157"), work: work, listId: nil, format: "physical", station: Self.desk, now: Self.day(13)) else {
            Issue.record("expected added"); return
        }
        #expect(try store.updateItem(id: short.id, ItemChange(currentPage: 99), now: Self.day(14)).status == .unread)
        let done = try store.updateItem(id: short.id, ItemChange(currentPage: 100), now: Self.day(15))
        #expect(done.status == .read && done.listId == finishedList && done.finishedReadingAt == Self.day(15))
    }

    // MARK: The library's query language

    @Test(arguments: StoreFactory.all)
    func queriesMatchWordsAnywhereAndEachField(_ factory: StoreFactory) throws {
        let opened = try factory.open("local"), store = opened.store
        let items = try Self.shelf(store)
        func titles(_ terms: String...) throws -> [String] { try store.items(matching: LibraryQuery(terms: terms)).map(\.title) }
        #expect(try titles("gatsby") == ["The Great Gatsby"])
        #expect(try titles("GREAT", "scott") == ["The Great Gatsby"])
        #expect(try titles("herb") == ["Dune"])  // a word's beginning
        #expect(try titles("author:asimov") == ["Foundation"])
        #expect(try titles("isbn:0441013597") == ["Dune"])  // the ISBN-10 of an ISBN-13
        #expect(try titles("isbn:978-0553") == ["Foundation"])  // part of one
        #expect(try titles() == ["Dune", "Foundation", "The Great Gatsby"])
        _ = try store.updateItem(id: try #require(items["Foundation"]).id, ItemChange(status: .read, notes: "lent to Sam"), now: Self.day(3))
        #expect(try titles("status:read") == ["Foundation"])
        #expect(try titles("sam") == ["Foundation"])  // notes
        // Read: moved to Finished with its status.
        #expect(try titles("list:finished") == ["Foundation"])
        #expect(try titles("list:want to read") == ["Dune", "The Great Gatsby"])  // by name, any case
        #expect(try titles("list:local_toRead") == ["Dune", "The Great Gatsby"])
        #expect(try titles("added:2023-11-15") == ["Foundation"])
        #expect(try titles("added:2023-11-15..2023-11-16") == ["Foundation", "The Great Gatsby"])
        #expect(try titles("added:..2023-11-14") == ["Dune"])
        #expect(try titles("added:2023-11") == ["Dune", "Foundation", "The Great Gatsby"])
        #expect(try titles("added:2024").isEmpty)
        #expect(throws: LibraryError.unknownList("nowhere")) { try store.items(matching: LibraryQuery(terms: ["list:nowhere"])) }
        let ids = try store.itemIds(matching: LibraryQuery(terms: ["author:herbert"]))
        #expect(ids == [try #require(items["Dune"]).id])
        var query = LibraryQuery()
        query.sort = .title
        query.descending = true
        query.limit = 2
        #expect(try store.items(matching: query).map(\.title) == ["The Great Gatsby", "Foundation"])
    }

    /// With words and the default sort, the better match comes first: a word in the title
    /// outranks the same word in the notes, whatever the order the books were added in.
    @Test(arguments: StoreFactory.all)
    func wordsAreRankedTitleBeforeNotes(_ factory: StoreFactory) throws {
        let opened = try factory.open("local"), store = opened.store
        let items = try Self.shelf(store)
        _ = try store.updateItem(id: try #require(items["Foundation"]).id, ItemChange(notes: "reminds me of dune"), now: Self.day(4))
        #expect(try store.items(matching: LibraryQuery(terms: ["dune"])).map(\.title) == ["Dune", "Foundation"])
        _ = try store.updateItem(id: try #require(items["The Great Gatsby"]).id, ItemChange(notes: "nothing like it"), now: Self.day(4))
        #expect(try store.items(matching: LibraryQuery(terms: ["dune"])).map(\.title) == ["Dune", "Foundation"])
    }

    @Test(arguments: StoreFactory.all)
    func eachUserSeesOnlyTheirOwnLibrary(_ factory: StoreFactory) throws {
        let opened = try factory.open("someone"), store = opened.store
        #expect(store.userId == "someone" && store.defaultListId == "someone_toRead")
        _ = try Self.shelf(store)
        #expect(try store.lists().allSatisfy { $0.ownerId == "someone" })
        #expect(try store.items(matching: LibraryQuery(terms: ["dune"])).allSatisfy { $0.userId == "someone" })
    }

    // MARK: Work cache

    @Test(arguments: StoreFactory.all)
    func theCacheAnswersByISBNAndMergesEditionsIntoOneWork(_ factory: StoreFactory) throws {
        let opened = try factory.open("local"), store = opened.store
        let hardcover = isbn("9781984878106"), paperback = isbn("9781984878113")
        #expect(try store.work(forISBN: hardcover) == nil)
        let first = try store.record(Self.book("Think Again", by: "Adam Grant", isbn13: hardcover.digits), for: hardcover, now: Self.day0)
        #expect(try store.work(forISBN: hardcover) == first)
        #expect(try store.work(key: first.workKey) == first)
        // The paperback says more: its description fills the work, and it becomes the primary edition.
        let merged = try store.record(Self.book("Think Again", by: "Adam Grant", isbn13: paperback.digits, description: "On knowing what you don't know.",
                                                pages: 320, publisher: "Viking"), for: paperback, now: Self.day(1))
        #expect(merged.workKey == first.workKey)
        #expect(merged.description == "On knowing what you don't know." && merged.pageCount == 320)
        #expect(Set(merged.editions) == [hardcover.digits, paperback.digits] && merged.editionCount == 2)
        #expect(merged.primaryIsbn == paperback.digits)
        #expect(try store.editions(of: merged).map(\.isbn) == [paperback.digits, hardcover.digits])
        #expect(try store.isbnIndexEntry(hardcover)?.workKey == first.workKey)
        #expect(try store.work(forISBN: hardcover)?.description == merged.description)
        let many = try store.works(forISBNs: [hardcover, paperback, isbn("9780306406157")])
        #expect(Set(many.keys) == [hardcover.digits, paperback.digits] && many[hardcover.digits]?.workKey == first.workKey)
        #expect(try store.works(forISBNs: []).isEmpty)
        try store.recordAll([(Self.book("Dune", by: "Frank Herbert"), isbn("9780441013593")),
                             (Self.book("Foundation", by: "Isaac Asimov"), isbn("9780553293357"))], now: Self.day0)
        #expect(try store.work(forISBN: isbn("9780553293357"))?.title == "Foundation")
        let manual = try store.recordManual(isbn: isbn("9780306406157"), title: "Local History", authors: ["A. Writer"],
                                            publisher: nil, publishDate: "1999", pageCount: 12, now: Self.day0)
        #expect(manual.apiSource == "manual" && manual.pageCount == 12)
        let searched = try store.recordSearchResult(Self.book("No ISBN Yet", by: "Nobody"), now: Self.day0)
        #expect(searched.editions.isEmpty && searched.primaryIsbn == "")
        #expect(Set(try store.allWorkSummaries().map(\.title)) == ["Think Again", "Dune", "Foundation", "Local History", "No ISBN Yet"])
        let stats = try store.stats()
        #expect(stats.works == 5 && stats.isbnIndexEntries == 5 && stats.ownedItems == 0)
    }

    @Test(arguments: StoreFactory.all)
    func cachedWorksAreFoundByTitlePrefixAndByWords(_ factory: StoreFactory) throws {
        let opened = try factory.open("local"), store = opened.store
        for (code, title, author) in [("9780441013593", "Dune", "Frank Herbert"), ("9780441172719", "Dune Messiah", "Frank Herbert"),
                                      ("9780743273565", "The Great Gatsby", "F. Scott Fitzgerald"),
                                      ("9780060883287", "One Hundred Years of Solitude", "Gabriel García Márquez")] {
            _ = try store.record(Self.book(title, by: author, publisher: "Ace"), for: isbn(code), now: Self.day0)
        }
        #expect(try store.searchWorks(title: "great gatsby", author: nil, limit: 20).map(\.title) == ["The Great Gatsby"])
        #expect(try store.searchWorks(title: "DUNE", author: "herbert", limit: 20).map(\.title).sorted() == ["Dune", "Dune Messiah"])
        #expect(try store.searchWorks(title: "dune", author: "asimov", limit: 20).isEmpty)
        #expect(try store.searchWorks("SOLITUDE", limit: 20).map(\.title) == ["One Hundred Years of Solitude"])
        #expect(try store.searchWorks("garcia marq", limit: 20).map(\.title) == ["One Hundred Years of Solitude"])  // accents ignored
        #expect(try store.searchWorks("dune herbert", limit: 20).map(\.title) == ["Dune", "Dune Messiah"])
        #expect(try store.searchWorks("\"(the) AND great - gatsby*", limit: 20).map(\.title) == ["The Great Gatsby"])
        #expect(try store.searchWorks("FOUNDATI0N xqzt gatsby", limit: 20).first?.title == "The Great Gatsby")  // any word, when none has all
        #expect(try store.searchWorks("   ", limit: 20).isEmpty)
    }

    // MARK: Pending lookups

    @Test(arguments: StoreFactory.all)
    func pendingLookupsAreOneRowPerISBNDueInOrderAndKeptUntilRemoved(_ factory: StoreFactory) throws {
        let opened = try factory.open("local"), store = opened.store
        let dune = isbn("9780441013593"), gatsby = isbn("9780743273565")
        let first = try store.enqueuePending(isbn: dune, reason: "timed out", source: "googleBooks", nextRetryAt: Self.day(1),
                                             intent: .own(listId: nil, format: "ebook"), now: Self.day0)
        #expect(first.attempts == 1 && first.queuedAt == Self.day0 && first.intent == .own(format: "ebook"))
        _ = try store.enqueuePending(isbn: gatsby, reason: "HTTP 503", source: "openLibrary", nextRetryAt: Self.day(3), intent: .lookupOnly, now: Self.day0)
        // Back-off: a second failure is one more attempt, the later retry time, and the wish to own kept.
        let again = try store.enqueuePending(isbn: dune, reason: "HTTP 429", source: "googleBooks", nextRetryAt: Self.day(4), intent: .lookupOnly, now: Self.day(1))
        #expect(again.attempts == 2 && again.reason == "HTTP 429" && again.queuedAt == Self.day0 && again.lastAttemptAt == Self.day(1))
        #expect(again.nextRetryAt == Self.day(4) && again.intent.addOwned && again.intent.format == "ebook")
        #expect(try store.pendingLookups(dueBefore: nil).map(\.isbn) == [gatsby.digits, dune.digits])
        #expect(try store.pendingLookups(dueBefore: Self.day(2)).isEmpty)
        #expect(try store.pendingLookups(dueBefore: Self.day(3)).map(\.isbn) == [gatsby.digits])
        #expect(try store.pendingLookup(isbn: dune) == again)
        #expect(try store.stats().pendingLookups == 2)
        try store.removePending(isbn: dune)
        #expect(try store.pendingLookup(isbn: dune) == nil)
        #expect(try store.pendingLookups(dueBefore: nil).map(\.isbn) == [gatsby.digits])
        try store.removePending(isbn: dune)  // removing a settled row again changes nothing
    }

    // MARK: Resume rows

    @Test(arguments: StoreFactory.all)
    func importChunksAreFiledAndMarkedTogetherAndAFullLibraryLeavesRowsUnmarked(_ factory: StoreFactory) throws {
        let opened = try factory.open("local"), store = opened.store
        _ = try Self.own(store, count: 48)
        let books = try generatedISBNs(3, startingAt: 200).enumerated().map { offset, code in
            ImportedBook(line: offset + 2, isbn: code, work: try store.record(Self.book("Imported \(offset)", by: "I"), for: code, now: Self.day0),
                         state: ImportedState(isOwned: true, status: .read, rating: 5, dateRead: Self.day(20)))
        }
        let wish = isbn("9780441013593")
        let wanted = ImportedBook(line: 5, isbn: wish, work: try store.record(Self.book("Dune", by: "Frank Herbert"), for: wish, now: Self.day0),
                                  state: ImportedState(isOwned: false, listType: .toRead))
        let outcomes = try store.importBooks(books + [wanted], fileHash: "abc", doneLines: [(1, "notFound")], station: Self.desk, now: Self.day(30))
        #expect(outcomes.count == 4)
        guard case let .added(first) = outcomes[0] else { Issue.record("expected added: \(outcomes[0])"); return }
        #expect(first.status == .read && first.rating == 5 && first.finishedReadingAt == Self.day(20))
        #expect(outcomes[2] == .libraryFull(owned: 50, limit: 50))
        guard case let .added(notOwned) = outcomes[3] else { Issue.record("expected added: \(outcomes[3])"); return }
        #expect(!notOwned.isOwned)
        #expect(try store.importedLines(fileHash: "abc", station: Self.desk) == [1, 2, 3, 5])
        #expect(try store.importedLines(fileHash: "other", station: Self.desk).isEmpty)
        // The same file again: nothing changes, and the full row is still not marked.
        let rerun = try store.importBooks(Array(books.prefix(1)), fileHash: "abc", doneLines: [], station: Self.desk, now: Self.day(31))
        guard case .alreadyOwned = rerun[0] else { Issue.record("expected alreadyOwned: \(rerun[0])"); return }
        #expect(try store.importedLines(fileHash: "abc", station: Self.desk) == [1, 2, 3, 5])
        #expect(try store.ownedCount() == 50)
    }

    /// One chunk whose rows meet each other: each book is decided on what the rows before it
    /// left (a wanted edition then owned, two editions of one work, a row's rating on a book
    /// the chunk added, the free plan's fiftieth book), counters and list counts included.
    @Test(arguments: StoreFactory.all)
    func eachRowOfAChunkIsDecidedOnWhatTheRowsBeforeItLeft(_ factory: StoreFactory) throws {
        let opened = try factory.open("local"), store = opened.store
        _ = try Self.own(store, count: 47)
        let codes = generatedISBNs(5, startingAt: 300)
        let (wish, alpha1, alpha2, beta, gamma) = (codes[0], codes[1], codes[2], codes[3], codes[4])
        let wishWork = try store.record(Self.book("Wish", by: "W"), for: wish, now: Self.day0)
        let alpha = try store.record(Self.book("Alpha", by: "A"), for: alpha1, now: Self.day0)
        let betaWork = try store.record(Self.book("Beta", by: "B"), for: beta, now: Self.day0)
        let gammaWork = try store.record(Self.book("Gamma", by: "G"), for: gamma, now: Self.day0)
        let rows = [
            ImportedBook(line: 2, isbn: wish, work: wishWork, state: ImportedState(isOwned: false, listType: .toRead)),
            ImportedBook(line: 3, isbn: wish, work: wishWork, state: ImportedState(isOwned: true, status: .read, dateRead: Self.day(9))),
            ImportedBook(line: 4, isbn: alpha1, work: alpha, state: ImportedState(isOwned: true)),
            ImportedBook(line: 5, isbn: alpha2, work: alpha, state: ImportedState(isOwned: true)),
            ImportedBook(line: 6, isbn: alpha1, work: alpha, state: ImportedState(isOwned: true, rating: 5)),
            ImportedBook(line: 7, isbn: beta, work: betaWork, state: ImportedState(isOwned: true)),
            ImportedBook(line: 8, isbn: gamma, work: gammaWork, state: ImportedState(isOwned: true)),
            ImportedBook(line: 9, isbn: gamma, work: gammaWork, state: ImportedState(isOwned: false, listType: .toRead)),
        ]
        let outcomes = try store.importBooks(rows, fileHash: "meet", doneLines: [], station: Self.desk, now: Self.day(10))
        func id(_ outcome: AddOutcome) -> String? {
            switch outcome {
            case let .added(item), let .alreadyOwned(item): item.id
            case .libraryFull: nil
            }
        }
        func kind(_ outcome: AddOutcome) -> String {
            switch outcome {
            case .added: "added"
            case .alreadyOwned: "alreadyOwned"
            case .libraryFull: "libraryFull"
            }
        }
        #expect(outcomes.map(kind) == ["added", "added", "added", "alreadyOwned", "alreadyOwned", "added", "libraryFull", "added"])
        #expect(id(outcomes[1]) == id(outcomes[0]))
        #expect(id(outcomes[3]) == id(outcomes[2]) && id(outcomes[4]) == id(outcomes[2]))
        #expect(outcomes[6] == .libraryFull(owned: 50, limit: 50))
        let wished = try #require(try store.item(isbn: wish))
        #expect(wished.isOwned && wished.status == .read && wished.finishedReadingAt == Self.day(9) && wished.station == Self.desk)
        #expect(try store.item(isbn: alpha1)?.rating == 5)
        #expect(try store.item(isbn: alpha2) == nil)
        #expect(try store.item(isbn: gamma)?.isOwned == false)
        #expect(try store.ownedCount() == 50)
        let user = try store.user()
        #expect(user.scanCount == 50 && user.booksRead == 1)
        #expect(try store.lists().first { $0.id == store.defaultListId }?.itemCount == 51)
        #expect(try store.importedLines(fileHash: "meet", station: Self.desk) == [2, 3, 4, 5, 6, 7, 9])
    }

    @Test(arguments: StoreFactory.all)
    func processedFilesResumeOnlyTheSameFile(_ factory: StoreFactory) throws {
        let opened = try factory.open("local"), store = opened.store
        let modified = Date(timeIntervalSince1970: 1_700_000_000.123456)
        #expect(try !store.isProcessed(path: "/photos/a.jpg", size: 10, modified: modified, station: Self.desk))
        try store.markProcessed(path: "/photos/a.jpg", size: 10, modified: modified, outcome: "added", station: Self.desk, now: Self.day0)
        #expect(try store.isProcessed(path: "/photos/a.jpg", size: 10, modified: modified, station: Self.desk))
        #expect(try !store.isProcessed(path: "/photos/a.jpg", size: 11, modified: modified, station: Self.desk))
        #expect(try !store.isProcessed(path: "/photos/a.jpg", size: 10, modified: modified.addingTimeInterval(1), station: Self.desk))
        #expect(try store.processedFile(path: "/photos/a.jpg", station: Self.desk)?.outcome == "added")
        try store.markProcessed(path: "/photos/a.jpg", size: 11, modified: modified, outcome: "nothing", station: Self.desk, now: Self.day(1))
        #expect(try store.processedFile(path: "/photos/a.jpg", station: Self.desk)?.size == 11)
        #expect(try store.stats().processedFiles == 1)
    }

    // MARK: Stations

    @Test(arguments: StoreFactory.all)
    func eachItemRecordsTheStationThatAddedItAndTheQueryFiltersByStation(_ factory: StoreFactory) throws {
        let opened = try factory.open("local"), store = opened.store
        let dune = isbn("9780441013593"), foundation = isbn("9780553293357"), gatsby = isbn("9780743273565")
        let duneWork = try store.record(Self.book("Dune", by: "Frank Herbert"), for: dune, now: Self.day0)
        let foundationWork = try store.record(Self.book("Foundation", by: "Isaac Asimov"), for: foundation, now: Self.day0)
        guard case let .added(first) = try store.addOwned(isbn: dune, work: duneWork, listId: nil, format: "physical", station: Self.desk, now: Self.day0),
              case let .added(second) = try store.addOwned(isbn: foundation, work: foundationWork, listId: nil, format: "physical", station: Self.otherDesk, now: Self.day(1))
        else { Issue.record("expected both added"); return }
        #expect(first.station == Self.desk && second.station == Self.otherDesk)
        // The other station scanning the same book: already owned, the item still the first station's.
        #expect(try store.addOwned(isbn: dune, work: duneWork, listId: nil, format: "physical", station: Self.otherDesk, now: Self.day(2)) == .alreadyOwned(first))
        // An import row is recorded as the station that imported it.
        let imported = ImportedBook(line: 2, isbn: gatsby, work: try store.record(Self.book("The Great Gatsby", by: "F. Scott Fitzgerald"), for: gatsby, now: Self.day0),
                                    state: ImportedState(isOwned: true))
        guard case let .added(third) = try store.importBooks([imported], fileHash: "f", doneLines: [], station: Self.otherDesk, now: Self.day(3))[0] else {
            Issue.record("expected added"); return
        }
        #expect(third.station == Self.otherDesk)
        #expect(try store.items(matching: LibraryQuery(terms: ["station:\(Self.desk)"])).map(\.isbn) == [dune.digits])
        #expect(try store.items(matching: LibraryQuery(terms: ["station:\(Self.otherDesk)"])).map(\.isbn) == [foundation.digits, gatsby.digits])
        #expect(try store.items(matching: LibraryQuery(terms: ["station:\(Self.otherDesk)", "gatsby"])).map(\.isbn) == [gatsby.digits])
        #expect(try store.items(matching: LibraryQuery(terms: ["station:desk-3"])).isEmpty)
        #expect(try store.itemIds(matching: LibraryQuery(terms: ["station:\(Self.desk)"])) == [first.id])
        #expect(try store.item(isbn: foundation)?.station == Self.otherDesk)
        #expect(throws: LibraryQuery.ParseError.badValue(field: "station", value: "")) { try LibraryQuery(terms: ["station:"]) }
    }

    @Test(arguments: StoreFactory.all)
    func resumeRowsArePerStationSoSameNamedFoldersDoNotSkipEachOther(_ factory: StoreFactory) throws {
        let opened = try factory.open("local"), store = opened.store
        let modified = Date(timeIntervalSince1970: 1_700_000_000.5)
        try store.markProcessed(path: "/home/scan/photos/1.jpg", size: 10, modified: modified, outcome: "added", station: Self.desk, now: Self.day0)
        #expect(try store.isProcessed(path: "/home/scan/photos/1.jpg", size: 10, modified: modified, station: Self.desk))
        #expect(try !store.isProcessed(path: "/home/scan/photos/1.jpg", size: 10, modified: modified, station: Self.otherDesk))
        #expect(try store.processedFile(path: "/home/scan/photos/1.jpg", station: Self.otherDesk) == nil)
        // The other station's file of the same path is its own row; neither replaces the other.
        try store.markProcessed(path: "/home/scan/photos/1.jpg", size: 20, modified: modified, outcome: "nothing", station: Self.otherDesk, now: Self.day(1))
        #expect(try store.processedFile(path: "/home/scan/photos/1.jpg", station: Self.desk)?.size == 10)
        #expect(try store.processedFile(path: "/home/scan/photos/1.jpg", station: Self.otherDesk)?.size == 20)
        #expect(try store.processedFile(path: "/home/scan/photos/1.jpg", station: Self.otherDesk)?.station == Self.otherDesk)
        #expect(try store.stats().processedFiles == 2)

        let code = generatedISBN(300)
        let book = ImportedBook(line: 2, isbn: code, work: try store.record(Self.book("Shared", by: "S"), for: code, now: Self.day0),
                                state: ImportedState(isOwned: true))
        _ = try store.importBooks([book], fileHash: "same-file", doneLines: [(3, "notFound")], station: Self.desk, now: Self.day0)
        #expect(try store.importedLines(fileHash: "same-file", station: Self.desk) == [2, 3])
        #expect(try store.importedLines(fileHash: "same-file", station: Self.otherDesk).isEmpty)
        // The other station importing the same file: the book is already owned, its rows now its own.
        let again = try store.importBooks([book], fileHash: "same-file", doneLines: [(3, "notFound")], station: Self.otherDesk, now: Self.day(1))
        guard case .alreadyOwned = again[0] else { Issue.record("expected alreadyOwned: \(again[0])"); return }
        #expect(try store.importedLines(fileHash: "same-file", station: Self.otherDesk) == [2, 3])
        #expect(try store.ownedCount() == 1)
    }

    // MARK: Spine records

    @Test(arguments: StoreFactory.all)
    func spineRepliesAndRecordsRoundTripAndTheReviewQueueFollowsStatus(_ factory: StoreFactory) throws {
        let opened = try factory.open("local"), store = opened.store
        let reply = SpineReplyRecord(photoHash: "h1", reader: "tesseract", file: "shelf.jpg", readings: Data("[\"Dune\"]".utf8),
                                     inputTokens: 10, outputTokens: 20, truncated: false, createdAt: Self.day0)
        #expect(try store.spineReply(photoHash: "h1", reader: "tesseract") == nil)
        try store.saveSpineReply(reply)
        #expect(try store.spineReply(photoHash: "h1", reader: "tesseract") == reply)
        #expect(try store.spineReply(photoHash: "h1", reader: "openai") == nil)
        func record(_ index: Int, _ status: SpineRecord.Status) -> SpineRecord {
            SpineRecord(photoHash: "h1", reader: "tesseract", index: index, file: "shelf.jpg", text: "DUNE HERBERT", decision: "medium",
                        distance: 0.2, workKey: "w", isbn13: "9780441013593", title: "Dune", authors: ["Frank Herbert"], status: status,
                        reason: nil, updatedAt: Self.day0)
        }
        let saved = try store.saveSpineRecord(record(0, .review))
        let savedId = try #require(saved.id)
        _ = try store.saveSpineRecord(record(1, .added))
        #expect(try store.spineReviews().map(\.index) == [0])
        // Saving the same (photo, reader, index) again replaces it.
        _ = try store.saveSpineRecord(record(1, .review))
        #expect(try store.spineReviews().map(\.index) == [0, 1])
        try store.setSpineStatus(id: savedId, .accepted, now: Self.day(1))
        let records = try store.spineRecords(photoHash: "h1", reader: "tesseract")
        #expect(records[0]?.status == .accepted && records[0]?.authors == ["Frank Herbert"] && records[1]?.status == .review)
        #expect(try store.spineReviews().map(\.index) == [1])
    }

    /// A reading's box (a leaning spine read top to bottom) comes back corner for corner from
    /// every read path, is replaced with the record, and a record without one stays without.
    @Test(arguments: StoreFactory.all)
    func aSpineBoxRoundTripsWithItsRecord(_ factory: StoreFactory) throws {
        let opened = try factory.open("local"), store = opened.store
        let leaning = try #require(SpineBox(width: 1800, height: 840, corners: [
            .init(x: 612.4, y: 40), .init(x: 590, y: 800.5), .init(x: 530, y: 798), .init(x: 552.6, y: 38)]))
        func record(_ index: Int, box: SpineBox?) -> SpineRecord {
            SpineRecord(photoHash: "h2", reader: "tesseract", index: index, file: "shelf.jpg", text: "DUNE HERBERT", decision: "medium",
                        distance: 0.2, workKey: "w", isbn13: "9780441013593", title: "Dune", authors: ["Frank Herbert"], status: .review,
                        reason: nil, updatedAt: Self.day0, box: box)
        }
        let saved = try store.saveSpineRecord(record(0, box: leaning))
        #expect(saved.box == leaning)
        _ = try store.saveSpineRecord(record(1, box: nil))
        #expect(try store.spineReviews().map(\.box) == [leaning, nil])
        #expect(try store.spineRecords(photoHash: "h2", reader: "tesseract")[0]?.box?.corners.first == .init(x: 612.4, y: 40))
        let upright = try #require(SpineBox(width: 900, height: 420, x0: 10, y0: 20, x1: 40, y1: 400, direction: .up))
        _ = try store.saveSpineRecord(record(0, box: upright))
        #expect(try store.spineRecords(photoHash: "h2", reader: "tesseract")[0]?.box == upright)
    }

    // MARK: Not-found codes

    @Test(arguments: StoreFactory.all)
    func notFoundCodesAreCountedMostRecentFirstAndForgotten(_ factory: StoreFactory) throws {
        let opened = try factory.open("local"), store = opened.store
        let first = isbn("9780306406157"), second = isbn("9780441013593")
        try store.rememberNotFound(isbn: first, origin: "shelf.jpg", now: Self.day0)
        try store.rememberNotFound(isbn: second, origin: "list.csv:3", now: Self.day(1))
        try store.rememberNotFound(isbn: first, origin: "shelf2.jpg", now: Self.day(2))
        let codes = try store.notFoundCodes()
        #expect(codes.map(\.isbn) == [first.digits, second.digits])
        #expect(codes[0].times == 2 && codes[0].origin == "shelf2.jpg" && codes[0].firstSeenAt == Self.day0 && codes[0].lastSeenAt == Self.day(2))
        try store.forgetNotFound(isbn: first)
        #expect(try store.notFoundCodes().map(\.isbn) == [second.digits])
    }

    // MARK: Export and restore

    @Test(arguments: StoreFactory.all)
    func aSnapshotRestoresLosslesslyIntoAnotherStore(_ factory: StoreFactory) throws {
        let opened = try factory.open("local"), store = opened.store
        let items = try Self.shelf(store)
        let dune = try store.updateItem(id: try #require(items["Dune"]).id, ItemChange(status: .read, rating: 5, notes: "again"), now: Self.day(9))
        let snapshot = try store.snapshot(itemIds: nil)
        #expect(snapshot.items.map(\.title) == ["Dune", "Foundation", "The Great Gatsby"])
        #expect(snapshot.works.count == 3 && snapshot.isbnIndex.count == 3 && snapshot.user.id == "local")
        #expect(try store.snapshot(itemIds: [dune.id]).items == [dune])
        let documents = try store.documents(.items, keys: [dune.id, "missing"])
        #expect(documents.map(\.id) == [dune.id])
        #expect(documents.first?.fields["rating"] == .int(5) && documents.first?.fields["isOwned"] == .bool(true))
        #expect(documents.first?.fields["authors"] == .array(["Frank Herbert"]))
        #expect(try store.documents(.users, keys: ["local"]).first?.fields["displayName"] == .string("Local user"))

        let otherOpened = try factory.open("local"), other = otherOpened.store
        let summary = try other.restore(snapshot, now: Self.day(10))
        #expect(summary.added == 3 && summary.alreadyPresent == 0)
        #expect(try other.items(matching: LibraryQuery()).map(\.title) == ["Dune", "Foundation", "The Great Gatsby"])
        #expect(try other.item(isbn: isbn(dune.isbn)) == dune)
        #expect(try other.user().booksRead == 1)
        // Dune was read, so on Finished: the restore keeps each book's list and the counts.
        #expect(try other.lists().map(\.itemCount) == [2, 1])
        let again = try other.restore(snapshot, now: Self.day(11))
        #expect(again.added == 0 && again.alreadyPresent == 3)
    }
}
