import Foundation
import GRDB
@testable import LocalSource
import Testing
import TestSupport

/// What bounds a load's memory whatever the dump's size (issue 33: 45 million editions):
/// SQLite's settings on the loader's own connection, read back after a load used it.
@Suite struct LoadMemoryBudgetTests {
    @Test func theLoadersConnectionKeepsSQLitesMemoryToItsCacheAndSortsOnDisk() async throws {
        let directory = try makeTemporaryDirectory(prefix: "local-source")
        defer { try? FileManager.default.removeItem(at: directory) }
        let dump = directory.appendingPathComponent("ol_dump.txt")
        let row = "/type/edition\t/books/OL1M\t1\t2024-03-01T00:00:00.000000\t" + #"{"title": "Mort", "isbn_13": ["9780552131063"]}"#
        try (row + "\n").write(to: dump, atomically: true, encoding: .utf8)
        let loader = try DumpLoader(path: directory.appendingPathComponent("dump.sqlite").path)
        #expect(try await loader.load(file: dump.path).editions == 1)

        let settings = try await loader.store.writer.write { db in
            (cache: try Int.fetchOne(db, sql: "PRAGMA cache_size"), tempStore: try Int.fetchOne(db, sql: "PRAGMA temp_store"),
             mmap: try Int.fetchOne(db, sql: "PRAGMA mmap_size"))
        }
        // Negative: KiB. The sorter's in-memory run is capped at this too (then it spills to a file).
        #expect(settings.cache == -LocalDumpStore.cacheKiB && LocalDumpStore.cacheKiB == 65_536)
        #expect(settings.tempStore == 1, "temporary tables and sorts in files (1: FILE), not memory (2)")
        #expect(settings.mmap == 0, "no database pages mapped into the process")
    }
}
