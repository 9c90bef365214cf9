import Foundation
import GRDB
import Synchronization

/// A stored value its column cannot hold (a damaged page, another tool's write, a crafted
/// backup an older rapidscan restored): named so the user can find the row and fix it.
public struct DamagedValue: Sendable, Hashable, CustomStringConvertible {
    public var table: String
    /// SQLite's rowid when the query read it.
    public var rowid: Int64?
    /// The row's key (id, workKey, isbn) when it could be read.
    public var key: String?
    public var column: String
    /// The stored value as text, cut to 60 characters.
    public var value: String
    /// What is wrong with it.
    public var problem: String
    /// True when the whole row was left out (the value was one the row cannot do
    /// without); false when only this field was.
    public var rowSkipped: Bool

    public init(table: String, rowid: Int64? = nil, key: String? = nil, column: String, value: String, problem: String, rowSkipped: Bool) {
        self.table = table
        self.rowid = rowid
        self.key = key
        self.column = column
        self.value = value
        self.problem = problem
        self.rowSkipped = rowSkipped
    }

    public var description: String {
        let row = [rowid.map { "rowid \($0)" }, key.map { "'\($0)'" }].compactMap { $0 }.joined(separator: ", ")
        return "\(table) row \(row.isEmpty ? "?" : row): \(column) = \(value) \(problem); "
            + (rowSkipped ? "row skipped" : "read without this field")
    }
}

/// The damaged values a catalogue has met, each reported once (a `library list` that reads
/// a row twice warns once). The CLI prints each as it is found; tests read `found`.
public final class DamageLog: Sendable {
    private let state = Mutex<(seen: Set<DamagedValue>, found: [DamagedValue])>(([], []))
    private let report: (@Sendable (DamagedValue) -> Void)?

    public init(report: (@Sendable (DamagedValue) -> Void)? = nil) {
        self.report = report
    }

    /// Every damaged value found so far, in the order found.
    public var found: [DamagedValue] { state.withLock { $0.found } }

    public func record(_ damage: DamagedValue) {
        let isNew = state.withLock { state in
            guard state.seen.insert(damage).inserted else { return false }
            state.found.append(damage)
            return true
        }
        if isNew { report?(damage) }
    }
}

/// A stored row decoded field by field where every read can fail: a value its column cannot
/// hold is noted (never a trap), a required one marks the row to be skipped, an optional
/// one is left out. GRDB's non-optional `row[...]` traps on such values, so nothing here
/// uses it.
struct StoredRow {
    let row: Row
    let table: String
    let rowid: Int64?
    var key: String?
    private(set) var problems: [DamagedValue] = []
    private(set) var skipped = false

    init(_ row: Row, table: String, keyColumn: String?) {
        self.row = row
        self.table = table
        rowid = (try? row.decode(DatabaseValue?.self, forColumn: "rowid")).flatMap { Int64.fromDatabaseValue($0) }
        key = keyColumn.flatMap { column in try? row.decode(DatabaseValue?.self, forColumn: column) }.flatMap { String.fromDatabaseValue($0) }
    }

    /// The column's stored value (NULL when the query did not select it).
    func value(_ column: String) -> DatabaseValue {
        (try? row.decode(DatabaseValue?.self, forColumn: column)) ?? .null
    }

    mutating func note(_ column: String, _ value: DatabaseValue, _ problem: String, required: Bool) {
        problems.append(DamagedValue(table: table, rowid: rowid, key: key, column: column, value: Self.shown(value),
                                     problem: problem, rowSkipped: required))
        if required { skipped = true }
    }

    static func shown(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "NULL"
        case let .int64(number): return String(number)
        case let .double(number): return String(number)
        case let .string(text):
            let cut = text.count > 60 ? String(text.prefix(59)) + "…" : text
            // Stored text is outside data: no terminal escapes in the warning.
            return "'" + String(String.UnicodeScalarView(cut.unicodeScalars.map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "?" : $0 })) + "'"
        case let .blob(data): return "a \(data.count)-byte blob"
        }
    }

    // MARK: Text

    mutating func text(_ column: String) -> String {
        optionalText(column, required: true) ?? ""
    }

    mutating func optionalText(_ column: String, required: Bool = false) -> String? {
        let stored = value(column)
        switch stored.storage {
        case let .string(text): return text
        case .null:
            if required { note(column, stored, "is missing", required: true) }
            return nil
        // A number in a text column reads as its text (SQLite's own affinity would have stored it so).
        case let .int64(number): return String(number)
        case .double, .blob:
            note(column, stored, "is not text", required: required)
            return nil
        }
    }

    // MARK: Numbers

    mutating func int(_ column: String) -> Int {
        optionalInt(column, required: true) ?? 0
    }

    /// An integer in `range` (when given); out of it, or not an integer, it is noted.
    mutating func optionalInt(_ column: String, in range: ClosedRange<Int>? = nil, required: Bool = false) -> Int? {
        let stored = value(column)
        let number: Int?
        switch stored.storage {
        case .null:
            if required { note(column, stored, "is missing", required: true) }
            return nil
        case let .int64(value): number = Int(exactly: value)
        case let .double(value): number = value.rounded() == value ? Int(exactly: value) : nil
        case let .string(text): number = Int(text)
        case .blob: number = nil
        }
        guard let number else {
            note(column, stored, "is not a whole number", required: required)
            return nil
        }
        if let range, !range.contains(number) {
            note(column, stored, "is outside \(range.lowerBound)...\(range.upperBound)", required: required)
            return nil
        }
        return number
    }

    /// A stored counter (list item counts, reading counters): a negative or unreadable one is
    /// noted and read as 0 (counters are derived, and 0 is what a fresh count starts from).
    mutating func count(_ column: String) -> Int {
        guard let number = optionalInt(column) else { return 0 }
        guard number >= 0 else {
            note(column, value(column), "is negative", required: false)
            return 0
        }
        return number
    }

    mutating func optionalDouble(_ column: String, in range: ClosedRange<Double>? = nil, required: Bool = false) -> Double? {
        let stored = value(column)
        let number: Double?
        switch stored.storage {
        case .null:
            if required { note(column, stored, "is missing", required: true) }
            return nil
        case let .int64(value): number = Double(value)
        case let .double(value): number = value.isFinite ? value : nil
        case let .string(text): number = Double(text).flatMap { $0.isFinite ? $0 : nil }
        case .blob: number = nil
        }
        guard let number else {
            note(column, stored, "is not a number", required: required)
            return nil
        }
        if let range, !range.contains(number) {
            note(column, stored, "is outside \(range.lowerBound)...\(range.upperBound)", required: required)
            return nil
        }
        return number
    }

    mutating func double(_ column: String) -> Double {
        optionalDouble(column, required: true) ?? 0
    }

    // MARK: Booleans, dates, enumerations, lists

    mutating func bool(_ column: String) -> Bool {
        let stored = value(column)
        switch stored.storage {
        case let .int64(value) where value == 0 || value == 1: return value == 1
        default:
            note(column, stored, "is not a boolean (0 or 1)", required: true)
            return false
        }
    }

    mutating func date(_ column: String) -> Date {
        optionalDate(column, required: true) ?? Date(timeIntervalSince1970: 0)
    }

    mutating func optionalDate(_ column: String, required: Bool = false) -> Date? {
        let stored = value(column)
        if stored.isNull {
            if required { note(column, stored, "is missing", required: true) }
            return nil
        }
        guard let date = Date.fromDatabaseValue(stored) else {
            note(column, stored, "is not a date", required: required)
            return nil
        }
        return date
    }

    mutating func choice<Value: RawRepresentable>(_ column: String, _ type: Value.Type, required: Bool = true) -> Value? where Value.RawValue == String {
        let stored = value(column)
        if stored.isNull {
            if required { note(column, stored, "is missing", required: true) }
            return nil
        }
        guard let text = String.fromDatabaseValue(stored), let value = Value(rawValue: text) else {
            note(column, stored, "is not one of the values this column takes", required: required)
            return nil
        }
        return value
    }

    /// A JSON array of strings; an unreadable one is noted and read as empty.
    mutating func strings(_ column: String) -> [String] {
        optionalStrings(column) ?? []
    }

    mutating func optionalStrings(_ column: String) -> [String]? {
        let stored = value(column)
        guard !stored.isNull else { return nil }
        guard let text = String.fromDatabaseValue(stored), let strings = try? JSONColumn.strings(text) else {
            note(column, stored, "is not a JSON list of strings", required: false)
            return nil
        }
        return strings
    }

    /// ISBN-13 digits (the key the library and the cache use).
    mutating func isbn13(_ column: String, required: Bool = true) -> String? {
        guard let text = optionalText(column, required: required) else { return nil }
        guard Self.isISBN13(text) else {
            note(column, value(column), "is not an ISBN-13", required: required)
            return nil
        }
        return text
    }

    static func isISBN13(_ text: String) -> Bool {
        let digits = Array(text.utf8)
        guard digits.count == 13, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        let sum = digits.prefix(12).enumerated().reduce(0) { sum, pair in sum + Int(pair.1 - 0x30) * (pair.0 % 2 == 0 ? 1 : 3) }
        return (10 - sum % 10) % 10 == Int(digits[12] - 0x30)
    }
}

/// A record read through `StoredRow`: every stored value decoded as a value that can fail.
protocol StoredRecord {
    static var storedTable: String { get }
    /// The column that names a row in a warning.
    static var storedKey: String { get }
    init(stored: inout StoredRow)
}

extension StoredRecord {
    /// Strict decoding, for GRDB's fetch methods: any damaged value is an error naming it.
    static func strictly(_ row: Row) throws -> Self {
        var stored = StoredRow(row, table: storedTable, keyColumn: storedKey)
        let record = Self(stored: &stored)
        if let problem = stored.problems.first { throw CatalogueError.damaged(problem) }
        return record
    }
}

extension Catalogue {
    /// The records a statement selects, each row decoded on its own: a row holding a value
    /// it cannot do without is named in `damage` and skipped, one with a bad optional value
    /// is read without it (and named). Never traps, and never fails the whole read for one row.
    func stored<Record: StoredRecord>(_ type: Record.Type, _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), cached: Bool = false) throws -> [Record] {
        let statement = cached ? try db.cachedStatement(sql: sql) : try db.makeStatement(sql: sql)
        statement.arguments = arguments
        var records: [Record] = []
        let rows = try Row.fetchCursor(statement)
        while let row = try rows.next() {
            if let record = decoded(Record.self, row) { records.append(record) }
        }
        return records
    }

    /// One row, decoded as `stored` does; nil when there is none or it was skipped.
    /// `orThrow`: a write that must not mistake a damaged row for a missing one throws instead.
    func storedOne<Record: StoredRecord>(_ type: Record.Type, _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), cached: Bool = false, orThrow: Bool = false) throws -> Record? {
        let statement = cached ? try db.cachedStatement(sql: sql) : try db.makeStatement(sql: sql)
        statement.arguments = arguments
        guard let row = try Row.fetchOne(statement) else { return nil }
        var stored = StoredRow(row, table: Record.storedTable, keyColumn: Record.storedKey)
        let record = Record(stored: &stored)
        stored.problems.forEach(damage.record)
        if stored.skipped {
            if orThrow, let problem = stored.problems.first(where: \.rowSkipped) { throw CatalogueError.damaged(problem) }
            return nil
        }
        return record
    }

    func decoded<Record: StoredRecord>(_ type: Record.Type, _ row: Row) -> Record? {
        var stored = StoredRow(row, table: Record.storedTable, keyColumn: Record.storedKey)
        let record = Record(stored: &stored)
        stored.problems.forEach(damage.record)
        return stored.skipped ? nil : record
    }
}

/// Dates as the database stores them: GRDB's "yyyy-MM-dd HH:mm:ss.SSS" in UTC, written here
/// without its DateFormatter (a tenth of the time; formatting was 7% of a warm import's CPU).
/// The text is GRDB's to the byte (StoredDateTests compare them): the milliseconds rounded
/// as its formatter rounds them (half up), and GRDB's own formatter outside the years where
/// the proleptic Gregorian arithmetic here and ICU's calendar (Julian before 1582) agree.
enum StoredDate {
    /// 1600-01-01 and 10000-01-01 00:00:00 UTC, in seconds since 1970.
    static let fastRange: ClosedRange<Double> = -11_676_096_000 ... 253_402_300_799

    static func text(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        guard fastRange.contains(seconds) else { return String.fromDatabaseValue(date.databaseValue) ?? "" }
        let millis = Int64((seconds * 1000 + 0.5).rounded(.down))
        let days = millis >= 0 ? millis / 86_400_000 : (millis - 86_399_999) / 86_400_000
        let inDay = Int(millis - days * 86_400_000)
        let (year, month, day) = civil(daysSince1970: days)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 23) { out in
            func put(_ value: Int, width: Int, at start: Int) {
                var value = value
                for index in stride(from: start + width - 1, through: start, by: -1) {
                    out[index] = UInt8(48 + value % 10)
                    value /= 10
                }
            }
            put(year, width: 4, at: 0); out[4] = 0x2D
            put(month, width: 2, at: 5); out[7] = 0x2D
            put(day, width: 2, at: 8); out[10] = 0x20
            put(inDay / 3_600_000, width: 2, at: 11); out[13] = 0x3A
            put(inDay / 60_000 % 60, width: 2, at: 14); out[16] = 0x3A
            put(inDay / 1000 % 60, width: 2, at: 17); out[19] = 0x2E
            put(inDay % 1000, width: 3, at: 20)
            return String(decoding: UnsafeBufferPointer(out), as: UTF8.self)
        }
    }

    /// The stored text as a database value (a SQL argument, a record's column).
    static func value(_ date: Date) -> DatabaseValue { text(date).databaseValue }
    static func value(_ date: Date?) -> DatabaseValue { date.map(value) ?? .null }

    /// `date` as reading it back from the database gives it (whole milliseconds): a record
    /// made with it equals the stored row, so an add need not read its row back.
    static func asStored(_ date: Date) -> Date { Date.fromDatabaseValue(value(date)) ?? date }

    /// Year, month, day of the proleptic Gregorian calendar (H. Hinnant's civil_from_days).
    private static func civil(daysSince1970: Int64) -> (Int, Int, Int) {
        let shifted = daysSince1970 + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
        let month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
        return (Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0), month, day)
    }
}
