@testable import Catalogue
import Foundation
import GRDB
import Testing
import TestSupport

/// `StoredDate` writes dates without a DateFormatter; what it writes must be GRDB's text to the
/// byte (the migrations and every stored row hold that text), and a date made `asStored` must
/// equal the same date read back, so an add may return its item without reading it again.
@Suite struct StoredDateTests {
    /// GRDB's own text for a date (its DateFormatter).
    static func grdbText(_ date: Date) -> String? { String.fromDatabaseValue(date.databaseValue) }

    /// Random instants from 1589 to 2100 at sub-millisecond resolution, whole and half
    /// milliseconds (the formatter rounds halves up, also before 1970), the ends of the fast
    /// range, and dates outside it (years 1 and 1500: ICU's calendar is Julian there).
    static var samples: [Date] {
        var generator = SeededGenerator(seed: 31)
        var seconds: [Double] = [0, 0.0005, -0.0005, 0.0015, -0.0015, 0.9995, -1, 951_782_400, -2_208_988_800,
                                 StoredDate.fastRange.lowerBound, StoredDate.fastRange.lowerBound - 0.5,
                                 StoredDate.fastRange.upperBound, -62_135_596_800.0004, -14_831_769_600]
        for _ in 0..<20_000 { seconds.append(Double.random(in: -12_000_000_000 ..< 4_102_444_800, using: &generator)) }
        for index in 0..<20_000 {
            let millis = Int64.random(in: -12_000_000_000_000 ..< 4_102_444_800_000, using: &generator)
            seconds.append(Double(millis) / 1000 + Double(index % 4) * 0.00025)
        }
        return seconds.map(Date.init(timeIntervalSince1970:))
    }

    @Test func theTextIsGRDBsToTheByte() {
        var mismatches: [String] = []
        for date in Self.samples where StoredDate.text(date) != Self.grdbText(date) {
            mismatches.append("\(date.timeIntervalSince1970): \(StoredDate.text(date)) vs \(Self.grdbText(date) ?? "nil")")
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) differ, first: \(mismatches.prefix(5))")
    }

    @Test func aDateAsStoredEqualsItsReadBack() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in try db.execute(sql: "CREATE TABLE t (d TEXT)") }
        for date in Self.samples.prefix(2_000) {
            let readBack = try queue.write { db in
                try db.execute(sql: "DELETE FROM t; INSERT INTO t VALUES (?)", arguments: [StoredDate.value(date)])
                return try Date.fetchOne(db, sql: "SELECT d FROM t")
            }
            #expect(StoredDate.asStored(date) == readBack, "\(date.timeIntervalSince1970)")
        }
    }
}
