/// A `database` value that names a PostgreSQL server rather than a SQLite file: kept as
/// written (no `~`/`$VAR` expansion, never taken as a path relative to the config file).
public enum DatabaseURL {
    public static func isURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("postgresql://") || lower.hasPrefix("postgres://")
    }
}
