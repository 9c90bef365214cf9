import BookCodes
import BookMetadata
import Catalogue
import Foundation
import PostgresCatalogue
import Testing
import TestSupport

/// What only the PostgreSQL catalogue has: several stations (each its own connections) on one
/// server, the schema migrated under an advisory lock, and a password that never shows.
/// The seam's rules themselves are the conformance suite's (its "PostgreSQL" factory).
@Suite struct PostgresCatalogueTests {
    static let day0 = Date(timeIntervalSince1970: 1_700_000_000)

    static func book(_ title: String) -> EditionMetadata {
        EditionMetadata(isbn13: nil, title: title, authors: ["Station Author"], description: nil, coverImageUrl: nil, categories: [],
                        pageCount: nil, publishDate: nil, publisher: nil, format: nil, apiSource: "googleBooks")
    }

    /// A fresh database, dropped afterwards.
    static func withDatabase<T>(_ body: (PostgresTestCluster, String) async throws -> T) async throws -> T {
        let cluster = try PostgresTestCluster.shared()
        let database = try cluster.createDatabase()
        defer { cluster.dropDatabase(database) }
        return try await body(cluster, database)
    }

    /// Eight stations opening a new database at the same moment: each migration is applied
    /// once (the advisory lock), one local user with its two default lists.
    @Test func stationsMigratingAtOnceApplyEachMigrationOnce() async throws {
        try await Self.withDatabase { cluster, database in
            let url = cluster.url(database: database)
            let opened = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask { try PostgresCatalogue(url: url).lists().count }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(opened == Array(repeating: 2, count: 8))
            let store = try PostgresCatalogue(url: url)
            #expect(try store.lists().map(\.name) == ["Want to Read", "Finished"])
            #expect(try store.stats().works == 0)
        }
    }

    /// The same book scanned at four stations at once: owned once, "already owned" at the
    /// other three. Then 60 different books from four stations racing a free library: 50.
    @Test func stationsRacingOwnABookOnceAndTheFreePlanExactlyFifty() async throws {
        try await Self.withDatabase { cluster, database in
            let url = cluster.url(database: database)
            let stations = try (0..<4).map { _ in try PostgresCatalogue(url: url) }
            let dune = try ISBN13(validating: "9780441013593")
            let work = try stations[0].record(Self.book("Dune"), for: dune, now: Self.day0)
            let outcomes = try await withThrowingTaskGroup(of: AddOutcome.self) { group in
                for station in stations {
                    group.addTask { try station.addOwned(isbn: dune, work: work, listId: nil, format: "physical", station: "desk-1", now: Self.day0) }
                }
                return try await group.reduce(into: [AddOutcome]()) { $0.append($1) }
            }
            #expect(outcomes.filter { if case .added = $0 { true } else { false } }.count == 1)
            #expect(outcomes.filter { if case .alreadyOwned = $0 { true } else { false } }.count == 3)

            let books = try generatedISBNs(60, startingAt: 700).map { code in
                (code, try stations[1].record(Self.book("Race \(code.digits)"), for: code, now: Self.day0))
            }
            let added = try await withThrowingTaskGroup(of: Bool.self) { group in
                for (index, (code, work)) in books.enumerated() {
                    let station = stations[index % stations.count]
                    group.addTask {
                        if case .added = try station.addOwned(isbn: code, work: work, listId: nil, format: "physical", station: "desk-1", now: Self.day0) { return true }
                        return false
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(added == 49)
            #expect(try stations[2].ownedCount() == 50)
            #expect(try stations[3].lists().first { $0.id == stations[3].defaultListId }?.itemCount == 50)
        }
    }

    /// Four stations importing overlapping files at once into a free library: every book
    /// owned once, exactly fifty, each station's chunk decided on what the others committed.
    @Test func stationsImportingOverlappingChunksAtOnceOwnEachBookOnceAndFifty() async throws {
        try await Self.withDatabase { cluster, database in
            let url = cluster.url(database: database)
            let stations = try (0..<4).map { _ in try PostgresCatalogue(url: url) }
            let books = try generatedISBNs(80, startingAt: 900).map { code in
                (code, try stations[0].record(Self.book("Chunk \(code.digits)"), for: code, now: Self.day0))
            }
            let outcomes = try await withThrowingTaskGroup(of: [AddOutcome].self) { group in
                for (index, station) in stations.enumerated() {
                    // Each station's file: 30 books, overlapping its neighbours', two chunks.
                    let mine = (0..<30).map { books[(index * 17 + $0) % books.count] }
                    group.addTask {
                        var outcomes: [AddOutcome] = []
                        for chunk in [mine.prefix(15), mine.suffix(15)] {
                            let rows = chunk.enumerated().map { ImportedBook(line: $0.offset, isbn: $0.element.0, work: $0.element.1,
                                                                              state: ImportedState(isOwned: true)) }
                            outcomes += try station.importBooks(rows, fileHash: "file-\(index)", doneLines: [], station: "desk-\(index)", now: Self.day0)
                        }
                        return outcomes
                    }
                }
                return try await group.reduce(into: [AddOutcome]()) { $0 += $1 }
            }
            let added = outcomes.filter { if case .added = $0 { true } else { false } }.count
            #expect(added == 50)
            #expect(try stations[1].ownedCount() == 50)
            let owned = try stations[2].ownedItems()
            #expect(Set(owned.map(\.isbn)).count == 50 && Set(owned.map(\.bookId)).count == 50)
            #expect(try stations[3].lists().first { $0.id == stations[3].defaultListId }?.itemCount == 50)
            #expect(try stations[0].user().scanCount == 50)
        }
    }

    /// The server's counters (migration 4) behind `--limit`'s "N of M" and the owned count stay
    /// the rows' own count whatever writes them: four stations adding overlapping books at once,
    /// wanted books imported and then owned, removals, and a library written under schema 3
    /// (by hand, as bench-postgres does) counted when migration 4 comes.
    @Test func theServerCountsTheItemsExactlyWhateverWritesThem() async throws {
        try await Self.withDatabase { cluster, database in
            let url = cluster.url(database: database)
            let stations = try (0..<4).map { _ in try PostgresCatalogue(url: url) }
            try stations[0].setPro(true, now: Self.day0)
            func expectCounted(_ moment: String, owned expected: Int, all expectedAll: Int, on store: PostgresCatalogue) throws {
                var everyItem = LibraryQuery()
                everyItem.ownedOnly = false
                let ownedRows = try store.items(matching: LibraryQuery()).count
                let allRows = try store.items(matching: everyItem).count
                #expect(ownedRows == expected && allRows == expectedAll, "\(moment): \(ownedRows) owned, \(allRows) items")
                var firstOwned = LibraryQuery(), firstItem = everyItem
                (firstOwned.limit, firstItem.limit) = (1, 1)
                #expect(try store.count(matching: firstOwned) == ownedRows, "\(moment)")
                #expect(try store.count(matching: firstItem) == allRows, "\(moment)")
                #expect(try store.ownedCount() == ownedRows, "\(moment)")
                #expect(try store.stats().ownedItems == ownedRows && store.stats().items == allRows, "\(moment)")
            }
            let books = try generatedISBNs(40, startingAt: 1300).map { code in
                (code, try stations[0].record(Self.book("Counted \(code.digits)"), for: code, now: Self.day0))
            }
            // Books 0-9 imported as wanted first; then each of the 40 added owned by two stations at once.
            let wanted = books.prefix(10).enumerated().map { ImportedBook(line: $0.offset, isbn: $0.element.0, work: $0.element.1,
                                                                           state: ImportedState(isOwned: false)) }
            _ = try stations[1].importBooks(wanted, fileHash: "wanted", doneLines: [], station: "desk-1", now: Self.day0)
            try expectCounted("wanted imported", owned: 0, all: 10, on: stations[2])
            let added = try await withThrowingTaskGroup(of: Int.self) { group in
                for (index, (code, work)) in books.enumerated() {
                    for station in [stations[index % 4], stations[(index + 1) % 4]] {
                        group.addTask {
                            if case .added = try station.addOwned(isbn: code, work: work, listId: nil, format: "physical", station: "desk-2", now: Self.day0) { return 1 }
                            return 0
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(added == 40)
            try expectCounted("owned from four stations", owned: 40, all: 40, on: stations[3])
            let removed = try stations[2].items(matching: LibraryQuery()).prefix(7).map(\.id)
            #expect(try stations[2].removeItems(ids: removed, now: Self.day0) == 7)
            try expectCounted("seven removed", owned: 33, all: 33, on: stations[0])

            // Schema 3 as an older rapidscan left it, with 25 items written by hand (13 owned).
            try cluster.psql("""
                DROP TRIGGER items_counted_on_insert ON items; DROP TRIGGER items_counted_on_delete ON items;
                DROP TRIGGER items_counted_on_update ON items; DROP TRIGGER items_counted_on_truncate ON items;
                DROP FUNCTION rapidscan_count_inserted_items(); DROP FUNCTION rapidscan_count_deleted_items();
                DROP FUNCTION rapidscan_count_updated_items(); DROP FUNCTION rapidscan_count_truncated_items();
                ALTER TABLE users DROP COLUMN "itemTotal", DROP COLUMN "ownedTotal";
                DELETE FROM rapidscan_migrations WHERE version = 4;
                INSERT INTO items (id, "listId", "userId", "bookId", isbn, title, authors, status, liked, "addedAt", "updatedAt", "isOwned")
                SELECT 'by-hand-' || n, 'local_toRead', 'local', 'hand' || n, 'h' || n, 'By Hand ' || n, '[]', 'unread', false, n, n, n % 2 = 1
                FROM generate_series(1, 25) AS n;
                """, database: database)
            try expectCounted("migrated from schema 3", owned: 46, all: 58, on: try PostgresCatalogue(url: url))
        }
    }

    /// The search indexes keep no pending list (migration 5): every search reads them sorted.
    @Test func theSearchIndexesKeepNoPendingList() async throws {
        try await Self.withDatabase { cluster, database in
            func expectNoPendingList(_ index: String) throws {
                try cluster.psql("""
                    DO $$ BEGIN
                        IF NOT EXISTS (SELECT 1 FROM pg_class WHERE relname = '\(index)' AND reloptions @> ARRAY['fastupdate=off']) THEN
                            RAISE EXCEPTION '\(index) keeps a pending list';
                        END IF;
                    END $$
                    """, database: database)
            }
            _ = try PostgresCatalogue(url: cluster.url(database: database)).lists()
            try expectNoPendingList("items_search")
            try expectNoPendingList("works_search")
            // A library migrated before: its pending list is switched off too.
            try cluster.psql("ALTER INDEX items_search SET (fastupdate = on); DELETE FROM rapidscan_migrations WHERE version = 5;",
                             database: database)
            _ = try PostgresCatalogue(url: cluster.url(database: database)).lists()
            try expectNoPendingList("items_search")
        }
    }

    /// The URL's password is in no message: not in `location`, not when the password is
    /// wrong, not when nothing listens at the port (host and port are named).
    @Test func thePasswordIsNeverShown() async throws {
        try await Self.withDatabase { cluster, database in
            let store = try PostgresCatalogue(url: cluster.url(database: database))
            #expect(store.location == cluster.url(database: database, withPassword: false))
            #expect(!store.location.contains(cluster.password))

            let wrong = "wrong-\(cluster.password)"
            let wrongURL = cluster.url(database: database).replacingOccurrences(of: cluster.password, with: wrong)
            let refused = try #require(throws: CatalogueError.self) { try PostgresCatalogue(url: wrongURL) }
            #expect(refused.description.contains("password authentication failed"))
            #expect(!refused.description.contains(wrong) && !refused.description.contains(cluster.password))

            let port = try PostgresTestCluster.freePort()
            let unreachable = try #require(throws: CatalogueError.self) {
                try PostgresCatalogue(url: "postgresql://someone:\(cluster.password)@127.0.0.1:\(port)/nowhere")
            }
            #expect(unreachable.description.contains("host 127.0.0.1 port \(port)"))
            #expect(!unreachable.description.contains(cluster.password))
            let malformed = try #require(throws: CatalogueError.self) { try PostgresCatalogue(url: "postgresql://a:\(cluster.password)@[bad") }
            #expect(!malformed.description.contains(cluster.password))
        }
    }

    /// Words are matched as FTS5 matches them: accents and case folded, a word's beginning,
    /// title ranked over notes.
    @Test func wordsAreRankedTitleFirstLikeFTS5() async throws {
        try await Self.withDatabase { cluster, database in
            let store = try PostgresCatalogue(url: cluster.url(database: database))
            let inTitle = try ISBN13(validating: "9780060883287"), inNotes = try ISBN13(validating: "9780441013593")
            let solitude = try store.record(Self.book("Cien años de soledad"), for: inTitle, now: Self.day0)
            let other = try store.record(Self.book("Dune"), for: inNotes, now: Self.day0)
            guard case let .added(noted) = try store.addOwned(isbn: inNotes, work: other, listId: nil, format: "physical", station: "desk-1", now: Self.day0) else {
                Issue.record("expected added"); return
            }
            _ = try store.updateItem(id: noted.id, ItemChange(notes: "a gift, like Cien Años"), now: Self.day0.addingTimeInterval(1))
            _ = try store.addOwned(isbn: inTitle, work: solitude, listId: nil, format: "physical", station: "desk-1", now: Self.day0.addingTimeInterval(2))
            #expect(try store.items(matching: LibraryQuery(terms: ["ANOS", "cien"])).map(\.title) == ["Cien años de soledad", "Dune"])
            #expect(try store.items(matching: LibraryQuery(terms: ["soled"])).map(\.title) == ["Cien años de soledad"])
        }
    }
}
