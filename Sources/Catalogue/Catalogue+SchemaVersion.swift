import GRDB

extension Catalogue {
    /// The newest migration this rapidscan knows ("v3-stations"): a library that has applied it is current.
    public static var schemaVersion: String { Schema.migrator.migrations.last ?? "" }

    /// The migrations this library has applied, oldest first (`rapidscan doctor`).
    public func appliedMigrations() throws(CatalogueError) -> [String] {
        try read { db in try Schema.migrator.appliedMigrations(db) }
    }

    public var latestSchemaVersion: String { Self.schemaVersion }

    /// The newest migration this library has applied.
    public func schemaVersion() throws(CatalogueError) -> String { try appliedMigrations().last ?? "" }
}
