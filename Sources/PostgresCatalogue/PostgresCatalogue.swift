import BookCodes
import Catalogue
import Foundation
import Synchronization

/// The catalogue on a PostgreSQL server, shared by several stations: every role of
/// `CatalogueStore`, each rule decided inside the server's transaction (owned once per user
/// and work, the free plan's limit exact: the user's row is locked `FOR UPDATE` while an add
/// decides), so it holds however many processes add at once.
///
/// Connections come from a small pool: a caller's thread takes one for one operation (one
/// transaction), so concurrent tasks of one process run concurrently on the server.
public final class PostgresCatalogue: Sendable {
    public let userId: String
    public let damage = DamageLog()
    public let address: PostgresAddress
    private let idle = Mutex<[PostgresConnection]>([])
    /// Set when a connection could not be opened or the server dropped one; cleared by the next operation that works.
    private let loss = Mutex<String?>(nil)
    /// Connections kept for reuse; more may be open briefly under load.
    private static let keptConnections = 8

    public var location: String { address.location }
    public var defaultListId: String { "\(userId)_\(ListType.toRead.rawValue)" }

    /// Connects (an unreachable server is an error naming its host and port), applies the
    /// schema's migrations under the advisory lock, and creates the local user with the
    /// default lists if this database has none.
    public init(address: PostgresAddress, userId: String = "local", displayName: String = "Local user") throws(CatalogueError) {
        self.address = address
        self.userId = userId
        let connection = try PostgresConnection(address)
        // Every command on a database already set up: one statement, not two locked transactions.
        if !PostgresSchema.isCurrent(connection, withUser: userId) {
            try PostgresSchema.migrate(connection)
            let now = Date()
            do {
                try connection.transaction { db in try Self.createLocalUser(db, id: userId, displayName: displayName, now: now) }
            } catch { throw Self.catalogueError(error, location: address.location) }
        }
        idle.withLock { $0.append(connection) }
    }

    public convenience init(url: String, configPassword: String? = nil, userId: String = "local") throws(CatalogueError) {
        let address: PostgresAddress
        do { address = try PostgresAddress(url: url, configPassword: configPassword) } catch {
            throw .cannotOpen(path: PostgresAddress.withoutUserInfo(url), reason: error.description)
        }
        try self.init(address: address, userId: userId)
    }

    private static func createLocalUser(_ db: PostgresConnection, id: String, displayName: String, now: Date) throws {
        // Two stations opening a new database at once: the second finds the user made.
        _ = try db.run("SELECT pg_advisory_xact_lock($1)", [String(PostgresSchema.migrationLockKey)])
        guard try db.record(User.self, "WHERE id = $1", [id]) == nil else { return }
        try db.save(User(
            id: id, email: nil, displayName: displayName, photoURL: nil, authProvider: "local",
            isPro: false, createdAt: now, updatedAt: now, booksRead: 0, currentlyReading: 0,
            hasCompletedOnboarding: false, scanCount: 0, reviewCount: 0, subscriptionUpdatedAt: nil), upsert: false)
        for (type, name) in [(ListType.toRead, "Want to Read"), (.completed, "Finished")] {
            try db.save(BookList(
                id: "\(id)_\(type.rawValue)", name: name, ownerId: id, ownerName: displayName,
                description: nil, bannerImageUrl: nil, isPublic: false, shareCode: try uniqueShareCode(db),
                listType: type, isDefault: true, itemCount: 0, createdAt: now, updatedAt: now), upsert: false)
        }
    }

    static func uniqueShareCode(_ db: PostgresConnection) throws -> String {
        while true {
            let code = BookList.randomShareCode()
            if try db.count("SELECT count(*) FROM lists WHERE \"shareCode\" = $1", [code]) == 0 { return code }
        }
    }

    // MARK: Connections and transactions

    private func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection: PostgresConnection
        do { connection = try idle.withLock { $0.popLast() } ?? PostgresConnection(address) } catch {
            if case let .cannotOpen(_, reason)? = error as? CatalogueError { lost(reason) }
            throw error
        }
        let value: T
        do { value = try body(connection) } catch {
            if connection.isBroken || Self.isServerGone(error) {
                lost("lost the connection to PostgreSQL at host \(address.host) port \(address.port): "
                     + ((error as? PostgresConnection.Failure)?.message ?? "\(error)"))
            }
            keep(connection)
            throw error
        }
        loss.withLock { $0 = nil }
        keep(connection)
        return value
    }

    private func lost(_ reason: String) {
        // The pooled connections went with the server.
        idle.withLock { $0.removeAll() }
        // libpq's message spans lines ("…\n\tIs the server running…"): one line for the user.
        let line = reason.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        loss.withLock { $0 = address.redact(line) }
    }

    /// SQLSTATE class 08 (connection exception) and 57P01-57P03 (the server shutting down or starting).
    static func isServerGone(_ error: any Error) -> Bool {
        guard let failure = error as? PostgresConnection.Failure else { return false }
        return failure.state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(failure.state)
    }

    private func keep(_ connection: PostgresConnection) {
        // A connection the server dropped is not reused: the next operation opens a new one.
        guard !connection.isBroken else { return }
        idle.withLock { if $0.count < Self.keptConnections { $0.append(connection) } }
    }

    /// One transaction; the server's errors become `CatalogueError` naming the library.
    func write<T>(_ body: (PostgresConnection) throws -> T) throws(CatalogueError) -> T {
        do { return try withConnection { connection in try connection.transaction(body) } } catch {
            throw Self.catalogueError(error, location: location)
        }
    }

    /// Reads run in a transaction too: one consistent snapshot for the statements of one call.
    func read<T>(_ body: (PostgresConnection) throws -> T) throws(CatalogueError) -> T { try write(body) }

    /// A read of one statement, which is its own snapshot: no BEGIN … COMMIT around it (two round trips fewer).
    func readStatement<T>(_ body: (PostgresConnection) throws -> T) throws(CatalogueError) -> T {
        do { return try withConnection(body) } catch { throw Self.catalogueError(error, location: location) }
    }

    func libraryWrite<T>(_ body: (PostgresConnection) throws -> T) throws(LibraryError) -> T {
        do { return try withConnection { connection in try connection.transaction(body) } } catch let error as LibraryError {
            throw error
        } catch {
            throw .catalogue(Self.catalogueError(error, location: location))
        }
    }

    func libraryRead<T>(_ body: (PostgresConnection) throws -> T) throws(LibraryError) -> T { try libraryWrite(body) }

    /// `readStatement` for the library's roles.
    func libraryReadStatement<T>(_ body: (PostgresConnection) throws -> T) throws(LibraryError) -> T {
        do { return try withConnection(body) } catch let error as LibraryError {
            throw error
        } catch {
            throw .catalogue(Self.catalogueError(error, location: location))
        }
    }

    static func catalogueError(_ error: any Error, location: String) -> CatalogueError {
        switch error {
        case let error as CatalogueError: error
        case let error as LibraryError:
            if case let .catalogue(inner) = error { inner } else { .database(error.description) }
        case let failure as PostgresConnection.Failure: .database("\(location): \(failure.message)")
        default: .database("\(location): \(error)")
        }
    }
}

extension PostgresCatalogue: ServerConnection {
    public var serverLoss: String? { loss.withLock { $0 } }
}
