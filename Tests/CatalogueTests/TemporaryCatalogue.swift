import BookCodes
import BookMetadata
@testable import Catalogue
import Foundation
import GRDB

/// A catalogue for one test: in memory (`Catalogue.inMemory`) unless the test needs a real
/// SQLite file (WAL, a second connection, reopening), then in its own temp folder, removed
/// when released.
final class TemporaryCatalogue {
    let folder: URL?
    let catalogue: Catalogue
    var path: String { catalogue.path }

    init(userId: String = "local", onFile: Bool = false) throws {
        guard onFile else {
            folder = nil
            catalogue = try Catalogue.inMemory(userId: userId)
            return
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalogue-tests-\(UUID().uuidString)")
        self.folder = folder
        // A nested path: the catalogue creates its folders on first use.
        catalogue = try Catalogue(path: folder.appendingPathComponent("data/rapidscan/library.sqlite").path, userId: userId)
    }

    deinit { if let folder { try? FileManager.default.removeItem(at: folder) } }

    /// Raw SQL, as another tool (or an older rapidscan) would write: from a second
    /// connection on a file, through the catalogue's own writer in memory.
    func execute(_ sql: String) throws {
        if folder == nil {
            try catalogue.writer.write { db in try db.execute(sql: sql) }
        } else {
            try DatabaseQueue(path: path).write { db in try db.execute(sql: sql) }
        }
    }
}

func edition(
    _ title: String, by author: String = "Adam Grant", isbn13: String? = nil, description: String? = nil,
    cover: String? = nil, categories: [String] = [], pages: Int? = nil, date: String? = nil,
    publisher: String? = nil, format: String? = nil, source: String = "googleBooks"
) -> EditionMetadata {
    EditionMetadata(
        isbn13: isbn13, title: title, authors: [author], description: description, coverImageUrl: cover,
        categories: categories, pageCount: pages, publishDate: date, publisher: publisher, format: format,
        apiSource: source)
}

