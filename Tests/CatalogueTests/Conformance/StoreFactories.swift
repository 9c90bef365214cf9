import BookCodes
import Catalogue
import Foundation
import Testing

/// One catalogue implementation the conformance suite runs against: a name for the test
/// report and a way to open a new, empty store (for `userId`) that the test owns.
///
/// The list is SQLite on a real file (WAL, the production configuration) and SQLite in
/// memory; a second implementation (PostgreSQL, issue 32) appends its factory here and the
/// whole suite runs against it unchanged.
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
