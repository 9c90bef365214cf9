import CLazyLibraries
import CLibPQ
import Catalogue
import Foundation

/// One libpq connection, used by one thread at a time (the store's pool hands it out;
/// hence `@unchecked Sendable`).
/// libpq's calls are synchronous and return errors as values, which suits the catalogue
/// seam (`throws(CatalogueError)`): no event loop, no async bridge. Parameters are always
/// sent apart from the SQL text (PQexecParams), as text.
final class PostgresConnection: @unchecked Sendable {
    private let connection: OpaquePointer
    let address: PostgresAddress

    /// SQLSTATEs after which the whole transaction is tried again.
    static let retryableStates: Set<String> = ["40001", "40P01"]

    init(_ address: PostgresAddress) throws(CatalogueError) {
        self.address = address
        // libpq is opened on first use (CLazyLibraries), not at every command's start.
        if let reason = rs_pq_load() { throw .cannotOpen(path: address.location, reason: String(cString: reason)) }
        // Keywords are applied in order: the config's password first, so a password in the
        // URL (expanded from `dbname`) wins over it; libpq falls back to PGPASSWORD and ~/.pgpass.
        // The server's notices are dropped (below): asked not to send them, in the start-up
        // packet rather than a SET (one round trip fewer); the URL's own `options` win.
        var keywords = ["options", "dbname", "fallback_application_name", "connect_timeout"]
        var values = ["-c client_min_messages=warning", address.connectionURL, "rapidscan", "10"]
        if let password = address.configPassword, !password.isEmpty {
            keywords.insert("password", at: 0)
            values.insert(password, at: 0)
        }
        let connection: OpaquePointer? = Self.withCStrings(keywords) { keywordPointers in
            Self.withCStrings(values) { valuePointers in PQconnectdbParams(keywordPointers, valuePointers, 1) }
        }
        guard let connection else { throw .cannotOpen(path: address.location, reason: "out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let reason = address.redact(Self.message(PQerrorMessage(connection)))
            PQfinish(connection)
            throw .cannotOpen(path: address.location,
                              reason: "cannot connect to PostgreSQL at host \(address.host) port \(address.port): \(reason)")
        }
        self.connection = connection
        // libpq prints the server's notices on stderr itself ("WARNING: terminating connection
        // due to immediate shutdown"): what matters reaches the user as the failure it causes.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
    }

    deinit { PQfinish(connection) }

    var isBroken: Bool { PQstatus(connection) != CONNECTION_OK }

    /// A failed statement: the server's SQLSTATE (retry decisions) and its message, passwords taken out.
    struct Failure: Error {
        let state: String
        let message: String
    }

    /// Runs one statement; rows come back as text (nil for NULL).
    @discardableResult
    func execute(_ sql: String, _ parameters: [String?] = []) throws(CatalogueError) -> [[String?]] {
        do { return try run(sql, parameters) } catch { throw .database(address.location + ": " + error.message) }
    }

    func run(_ sql: String, _ parameters: [String?]) throws(Failure) -> [[String?]] {
        let cStrings = parameters.map { $0.flatMap { strdup($0) } }
        defer { cStrings.forEach { free($0) } }
        let pointers = cStrings.map { UnsafePointer<CChar>($0) }
        let result = pointers.withUnsafeBufferPointer { buffer in
            PQexecParams(connection, sql, Int32(parameters.count), nil, buffer.baseAddress, nil, nil, 0)
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK else {
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            let message = result.map { Self.message(PQresultErrorMessage($0)) } ?? Self.message(PQerrorMessage(connection))
            throw Failure(state: state, message: address.redact(message.isEmpty ? Self.message(PQerrorMessage(connection)) : message))
        }
        let rowCount = PQntuples(result), columnCount = PQnfields(result)
        var rows: [[String?]] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            rows.append((0..<columnCount).map { column in
                PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
            })
        }
        return rows
    }

    /// `body` inside BEGIN … COMMIT, tried again on a serialization failure or deadlock;
    /// rolled back on any error, which is rethrown as it is.
    func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                _ = try run("BEGIN", [])
                let value = try body(self)
                _ = try run("COMMIT", [])
                return value
            } catch {
                _ = try? run("ROLLBACK", [])
                if let failure = error as? Failure, Self.retryableStates.contains(failure.state), attempt < 20 { continue }
                throw error
            }
        }
    }

    private static func message(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "" }
        return String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer<CChar>($0) } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
