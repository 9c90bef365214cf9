import BookCodes
import BookMetadata
import Catalogue
import Foundation
import GRDB

/// A catalogue on a real SQLite file in its own temp folder, removed when released.
final class TemporaryCatalogue {
    let folder: URL
    let catalogue: Catalogue
    var path: String { catalogue.path }

    init(userId: String = "local") throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalogue-tests-\(UUID().uuidString)")
        // A nested path: the catalogue creates its folders on first use.
        catalogue = try Catalogue(path: folder.appendingPathComponent("data/rapidscan/library.sqlite").path, userId: userId)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Raw SQL from a second connection, as another tool (or an older rapidscan) would write.
    func execute(_ sql: String) throws {
        try DatabaseQueue(path: path).write { db in try db.execute(sql: sql) }
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

