import BookCodes
import Catalogue
import Foundation
import PostgresCatalogue
import Testing
import TestSupport

/// One catalogue implementation the conformance suite runs against: a name for the test
/// report and a way to open a new, empty store (for `userId`) that the test owns.
///
/// The list is SQLite on a real file (WAL, the production configuration), SQLite in
/// memory, and PostgreSQL (issue 32): a fresh database on the test process's throwaway
/// server (`PostgresTestCluster`), reached over loopback TCP with a password.
struct StoreFactory: Sendable, CustomTestStringConvertible {
    let name: String
    let open: @Sendable (_ userId: String) throws -> OpenedStore

    var testDescription: String { name }

    static let all: [StoreFactory] = [
        StoreFactory(name: "SQLite file") { userId in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString)")
            let store = try Catalogue(path: folder.appendingPathComponent("library.sqlite").path, userId: userId)
            return OpenedStore(store) { try? FileManager.default.removeItem(at: folder) }
        },
        StoreFactory(name: "SQLite in memory") { userId in
            OpenedStore(try Catalogue.inMemory(userId: userId)) {}
        },
        StoreFactory(name: "PostgreSQL") { userId in
            let cluster = try PostgresTestCluster.shared()
            let database = try cluster.createDatabase()
            let store = try PostgresCatalogue(url: cluster.url(database: database), userId: userId)
            return OpenedStore(store) { cluster.dropDatabase(database) }
        },
    ]
}

/// A store for one test, torn down (its files, its database) when released.
final class OpenedStore: @unchecked Sendable {
    let store: any CatalogueStore
    private let tearDown: () -> Void

    init(_ store: any CatalogueStore, tearDown: @escaping () -> Void) {
        self.store = store
        self.tearDown = tearDown
    }

    deinit { tearDown() }
}
