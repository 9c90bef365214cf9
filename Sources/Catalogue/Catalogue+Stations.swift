import Foundation
import GRDB

/// Where books are scanned: several stations (desks, volunteers' laptops) may share one
/// catalogue. Each item records the station that added it, and resume rows (scanned files,
/// import lines) are kept per station, so two stations scanning folders of the same names
/// do not skip each other's files. The station is passed in by the caller (the intake's
/// settings), never read from a global.
public enum Station {
    /// This machine's host name: the station when none is named (`--station`,
    /// `RAPIDSCAN_STATION`, config `station`).
    public static var hostName: String {
        let name = ProcessInfo.processInfo.hostName
        return name.isEmpty ? "localhost" : name
    }

    /// Resume rows written before stations were recorded: they count for every station
    /// (the one machine the library had then made them).
    static let unrecorded = ""
}

/// "v3-stations" (frozen): `items.station`; `processedFiles` and `importedRows` keyed by
/// station as well. Rows from before keep station "" (`Station.unrecorded`).
enum StationsMigration {
    static func migrate(_ db: Database) throws {
        try db.alter(table: "items") { t in t.add(column: "station", .text) }
        try db.create(index: "items_on_userId_station", on: "items", columns: ["userId", "station"])

        try db.create(table: "processedFilesByStation") { t in
            t.column("station", .text).notNull()
            t.column("path", .text).notNull()
            t.column("size", .integer).notNull()
            t.column("modifiedTime", .double).notNull()
            t.column("outcome", .text).notNull()
            t.column("processedAt", .datetime).notNull()
            t.primaryKey(["station", "path"])
        }
        try db.execute(sql: """
            INSERT INTO processedFilesByStation (station, path, size, modifiedTime, outcome, processedAt)
            SELECT '', path, size, modifiedTime, outcome, processedAt FROM processedFiles
            """)
        try db.drop(table: "processedFiles")
        try db.rename(table: "processedFilesByStation", to: "processedFiles")

        try db.create(table: "importedRowsByStation") { t in
            t.column("station", .text).notNull()
            t.column("fileHash", .text).notNull()
            t.column("line", .integer).notNull()
            t.column("outcome", .text).notNull()
            t.primaryKey(["station", "fileHash", "line"])
        }
        try db.execute(sql: """
            INSERT INTO importedRowsByStation (station, fileHash, line, outcome)
            SELECT '', fileHash, line, outcome FROM importedRows
            """)
        try db.drop(table: "importedRows")
        try db.rename(table: "importedRowsByStation", to: "importedRows")
    }
}
