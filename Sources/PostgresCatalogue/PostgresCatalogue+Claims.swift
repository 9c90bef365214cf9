import Catalogue
import Foundation

// `pending retry` at several stations at once: each due row is claimed by one process.
extension PostgresCatalogue: PendingClaims {
    /// Claims the due rows no other process holds: `FOR UPDATE SKIP LOCKED` passes over rows
    /// being written this instant, and a session advisory lock per ISBN, taken on a connection
    /// of the claim's own, holds each claimed row for the whole run (network lookups included)
    /// without a transaction left open: the run's own writes to those rows never wait on it.
    /// A process that dies drops its connection, and with it its claims.
    public func claimPending(dueBefore: Date?) throws(CatalogueError) -> PendingClaim {
        let connection = try PostgresConnection(address)
        let rows: [PendingLookup]
        do {
            rows = try connection.transaction { db in
                // Locks only the rows the CTE selected (materialized: the filter runs first).
                let claimed = try db.run("""
                    WITH due AS MATERIALIZED (
                        SELECT isbn FROM pending_lookups WHERE $1::double precision IS NULL OR "nextRetryAt" <= $1
                        ORDER BY "nextRetryAt", isbn FOR UPDATE SKIP LOCKED)
                    SELECT isbn FROM due WHERE pg_try_advisory_lock(hashtextextended('rapidscan pending ' || isbn, 0))
                    """, [dueBefore.map(RecordCoding.text)]).compactMap { $0.first ?? nil }
                return try db.records(PendingLookup.self, "WHERE isbn = ANY($1::text[]) ORDER BY \"nextRetryAt\", isbn", [Self.textArray(claimed)])
            }
        } catch {
            throw Self.catalogueError(error, location: location)
        }
        return PendingClaim(rows: rows) {
            // Closing the connection would release them too; said outright for a reader.
            _ = try? connection.run("SELECT pg_advisory_unlock_all()", [])
        }
    }
}
