import BookCodes
import Foundation
import GRDB

/// `watch`'s local journal: the books it confirmed while its library's server could not be
/// reached, held in a small SQLite file of this station's (`XDGPaths.watchJournal`) until the
/// server answers and the intake has stored them. A book is written here before it is
/// reported held and removed only once its outcome is stored, so a watch killed while the
/// server was away loses nothing: the next watch on the same library adds what it left.
public final class WatchJournal: Sendable {
    /// One held book: the code as read, and the frame it was read in.
    public struct Entry: Sendable, Hashable {
        public var id: Int64
        public var isbn13: ISBN13
        public var symbology: Symbology
        public var file: String
        public var capturedAt: Date
    }

    /// The journal file cannot be used: the watch says so and goes on without it.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "the watch journal \(path) cannot be used: \(reason)" }
    }

    public let path: String
    /// The library the books are for (its location, without a password): a journal left for
    /// one library is never added to another.
    public let library: String
    private let queue: DatabaseQueue

    public init(path: URL, library: String) throws(Failure) {
        self.path = path.path
        self.library = library
        do {
            try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            queue = try DatabaseQueue(path: path.path, configuration: configuration)
            try queue.write { db in
                try db.execute(sql: """
                    CREATE TABLE IF NOT EXISTS held (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        library TEXT NOT NULL,
                        isbn13 TEXT NOT NULL,
                        symbology TEXT NOT NULL,
                        file TEXT NOT NULL,
                        capturedAt REAL NOT NULL)
                    """)
            }
        } catch {
            throw Failure(path: path.path, reason: "\(error)")
        }
    }

    /// Writes a confirmed book to the journal (committed before this returns).
    public func hold(_ isbn: ISBN13, symbology: Symbology, file: String, capturedAt: Date) throws(Failure) -> Entry {
        do {
            let id = try queue.write { db in
                try db.execute(sql: "INSERT INTO held (library, isbn13, symbology, file, capturedAt) VALUES (?, ?, ?, ?, ?)",
                               arguments: [library, isbn.digits, symbology.rawValue, file, capturedAt.timeIntervalSince1970])
                return db.lastInsertedRowID
            }
            return Entry(id: id, isbn13: isbn, symbology: symbology, file: file, capturedAt: capturedAt)
        } catch {
            throw Failure(path: path, reason: "\(error)")
        }
    }

    /// The books held for this library, oldest first. A row that cannot be read (the file
    /// edited by hand) is left in place, not guessed at.
    public func held() throws(Failure) -> [Entry] {
        do {
            return try queue.read { db in
                try Row.fetchAll(db, sql: "SELECT id, isbn13, symbology, file, capturedAt FROM held WHERE library = ? ORDER BY id",
                                 arguments: [library]).compactMap { row -> Entry? in
                    guard let digits: String = row["isbn13"], let isbn = try? ISBN13(validating: digits),
                          let symbology = (row["symbology"] as String?).flatMap(Symbology.init(rawValue:)) else { return nil }
                    return Entry(id: row["id"], isbn13: isbn, symbology: symbology, file: row["file"] ?? "",
                                 capturedAt: Date(timeIntervalSince1970: row["capturedAt"] ?? 0))
                }
            }
        } catch {
            throw Failure(path: path, reason: "\(error)")
        }
    }

    /// The book's outcome is stored in the library: it leaves the journal.
    public func release(_ entry: Entry) throws(Failure) {
        do {
            try queue.write { db in try db.execute(sql: "DELETE FROM held WHERE id = ?", arguments: [entry.id]) }
        } catch {
            throw Failure(path: path, reason: "\(error)")
        }
    }
}
