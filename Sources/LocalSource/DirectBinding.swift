import GRDB
import GRDBSQLite

/// A GRDB statement run with its values bound through SQLite's C API. GRDB's
/// `StatementArguments` boxes every value into a `DatabaseValue` existential and copies the
/// array; for the loader's edition insert (16 values, once a row) that boxing was 10% of a
/// load's CPU. Only inside a transaction GRDB opened, for statements that return no rows:
/// `bind` each parameter (1-based), then `execute`.
struct DirectBinding {
    private let statement: Statement
    private let handle: SQLiteStatement
    /// SQLite copies the bytes before `bind` returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ statement: Statement) {
        self.statement = statement
        handle = statement.sqliteStatement
        sqlite3_reset(handle)
    }

    func bind(_ number: Int64?, at index: Int32) throws {
        try check(number.map { sqlite3_bind_int64(handle, index, $0) } ?? sqlite3_bind_null(handle, index))
    }

    func bind(_ number: Int?, at index: Int32) throws {
        try bind(number.map(Int64.init), at: index)
    }

    func bind(_ text: String?, at index: Int32) throws {
        guard var text else { return try check(sqlite3_bind_null(handle, index)) }
        try check(text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { characters in
                // An empty buffer may have no address; SQLite wants one for an empty text (not NULL).
                guard let start = characters.baseAddress else { return sqlite3_bind_text(handle, index, "", 0, nil) }
                return sqlite3_bind_text(handle, index, start, Int32(characters.count), Self.transient)
            }
        })
    }

    /// Runs the statement with the values bound, then makes it ready for the next ones.
    func execute() throws {
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else { throw error(code) }
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else { throw error(code) }
    }

    private func error(_ code: Int32) -> DatabaseError {
        let message = sqlite3_db_handle(handle).flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
    }
}
