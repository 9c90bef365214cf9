import Foundation

/// The version sent in the Open Library User-Agent (`rapidscan/<version> (<contact>)`).
public enum RapidScanVersion {
    public static let current = "0.1.0"
}

/// The metadata sources rapidscan knows, by their config / `apiSource` name.
public enum SourceName: String, Sendable, Hashable, CaseIterable, Codable {
    /// Open Library dumps loaded on this machine (`rapidscan sources load`): no network.
    case localDump
    case googleBooks
    case openLibrary
    /// Off unless enabled: `[sources.libraryOfCongress] enabled = true`.
    case libraryOfCongress
}

/// A value that must never be printed: `description`, `debugDescription` and `dump` show
/// `<redacted>`. Read the real text through `revealed` only where it is sent.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public let revealed: String

    public init(_ value: String) { revealed = value }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// One metadata source as configured.
public struct SourceSettings: Sendable, Hashable {
    public var name: String
    public var enabled: Bool
    public var baseURL: URL
    /// Position in the lookup chain (0 = asked first).
    public var order: Int

    public init(name: String, enabled: Bool, baseURL: URL, order: Int) {
        self.name = name
        self.enabled = enabled
        self.baseURL = baseURL
        self.order = order
    }
}

/// `[http]`: time-outs, retries, concurrency.
public struct HTTPSettings: Sendable, Hashable {
    /// Per-request time-out: no answer (or no further bytes) for this long fails the attempt.
    public var timeoutSeconds: Double = 10
    /// Extra attempts after the first for time-outs, network errors, 429, 5xx and quota answers.
    public var retries: Int = 2
    /// Requests in flight at once across all sources.
    public var maxConcurrentRequests: Int = 4
    /// First back-off delay; doubles each retry, with jitter.
    public var retryBaseDelaySeconds: Double = 0.5
    /// Cap on any single wait, including a server's `Retry-After`.
    public var maxRetryDelaySeconds: Double = 30

    public init() {}
}

/// Everything rapidscan reads from its config file and environment.
///
/// Load with `RapidScanSettings.load(configFile:environment:)`. `description` never shows
/// the Google Books API key.
public struct RapidScanSettings: Sendable, Hashable, CustomStringConvertible {
    public static let defaultGoogleBooksURL = URL(string: "https://www.googleapis.com")!
    public static let defaultOpenLibraryURL = URL(string: "https://openlibrary.org")!
    public static let defaultLibraryOfCongressURL = URL(string: "http://lx2.loc.gov:210")!
    public static let defaultOpenLibraryCoversURL = URL(string: "https://covers.openlibrary.org")!
    public static let defaultAPIKeyVariable = "GOOGLE_BOOKS_API_KEY"

    /// All known sources in configured order, disabled ones included.
    public var sources: [SourceSettings]
    public var googleBooksAPIKey: Secret?
    /// Environment variable the key is read from (`[sources.googleBooks] apiKeyEnv`).
    public var googleBooksAPIKeyVariable: String
    /// Where the key came from: the variable name, "config file", or nil when unset.
    public var googleBooksAPIKeyOrigin: String?
    public var openLibraryCoversURL: URL
    /// Contact (e-mail or URL) sent in the Open Library User-Agent; raises its rate limit.
    public var contact: String?
    public var http: HTTPSettings
    /// `database` in the config (resolved by `ConfigPath`) or `RAPIDSCAN_DB`; nil = `XDGPaths.defaultDatabase`.
    /// A `postgresql://` (or `postgres://`) URL is kept as written: the PostgreSQL catalogue.
    public var database: String?
    /// `station` in the config or `RAPIDSCAN_STATION` (`--station` wins); nil = the host name.
    public var station: String?
    /// `database_password` in the config: a PostgreSQL catalogue's password when neither the
    /// URL, PGPASSWORD nor ~/.pgpass gives one.
    public var databasePassword: Secret?
    /// The config file that was read, if any.
    public var configFile: URL?
    /// The config file holds an API key (`[sources.googleBooks] apiKey`), whatever overrides it.
    public var configFileHoldsAPIKey = false
    /// `RAPIDSCAN_DEBUG=1`: log every HTTP request (key redacted) to standard error.
    public var debugLogging: Bool
    /// Requests per second allowed to Open Library; nil = its policy (1/s, or 3/s with a contact).
    /// Not a config key: only code (tests against a local server) may raise it.
    public var openLibraryRequestsPerSecond: Double?
    /// `[vision]`: the spine reader (`rapidscan spines`).
    public var vision = VisionConfig()
    /// `[sources.localDump] path` (resolved by `ConfigPath`) or `RAPIDSCAN_LOCAL_DUMP`; nil = `XDGPaths.defaultLocalDump`.
    public var localDump: String?

    /// Built-in defaults: every source enabled, the local dump (when one was loaded) first, then Google Books.
    public init() {
        sources = [
            // Its location is `localDump`; the URL is only the file's default name.
            SourceSettings(name: SourceName.localDump.rawValue, enabled: true, baseURL: URL(fileURLWithPath: "openlibrary-dump.sqlite"), order: 0),
            SourceSettings(name: SourceName.googleBooks.rawValue, enabled: true, baseURL: Self.defaultGoogleBooksURL, order: 1),
            SourceSettings(name: SourceName.openLibrary.rawValue, enabled: true, baseURL: Self.defaultOpenLibraryURL, order: 2),
            SourceSettings(name: SourceName.libraryOfCongress.rawValue, enabled: false, baseURL: Self.defaultLibraryOfCongressURL, order: 3),
        ]
        googleBooksAPIKey = nil
        googleBooksAPIKeyVariable = Self.defaultAPIKeyVariable
        googleBooksAPIKeyOrigin = nil
        openLibraryCoversURL = Self.defaultOpenLibraryCoversURL
        contact = nil
        http = HTTPSettings()
        database = nil
        configFile = nil
        debugLogging = false
        openLibraryRequestsPerSecond = nil
    }

    /// A station name as given, trimmed; nil when it is empty, over 64 characters or holds
    /// a control character (it is printed in summaries and stored on every item).
    public static func stationName(_ text: String) -> String? {
        let name = text.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.count <= 64, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return nil }
        return name
    }

    public static let stationRule = "a station name is 1 to 64 characters without control characters"

    /// Enabled sources in lookup order.
    public var enabledSources: [SourceSettings] { sources.filter(\.enabled).sorted { $0.order < $1.order } }

    public func source(_ name: SourceName) -> SourceSettings? {
        sources.first { $0.name == name.rawValue }
    }

    /// Open Library's rate: 3 requests/s when identified by a contact, else 1.
    public var effectiveOpenLibraryRequestsPerSecond: Double {
        openLibraryRequestsPerSecond ?? (contact == nil ? 1 : 3)
    }

    /// The database file to open: `database` or the XDG default. (`~`, `$VAR` and a path
    /// relative to the config file were resolved when the config was read: `ConfigPath`.)
    public func databaseURL(paths: XDGPaths) -> URL {
        guard let database, !database.isEmpty else { return paths.defaultDatabase }
        return URL(fileURLWithPath: database)
    }

    /// The local source's file: `localDump` or the XDG default.
    public func localDumpURL(paths: XDGPaths) -> URL {
        guard let localDump, !localDump.isEmpty else { return paths.defaultLocalDump }
        return URL(fileURLWithPath: localDump)
    }

    /// Turns a source on or off or points it elsewhere (tests use a local server).
    public mutating func setSource(_ name: SourceName, enabled: Bool? = nil, baseURL: URL? = nil) {
        updateSource(name) { source in
            if let enabled { source.enabled = enabled }
            if let baseURL { source.baseURL = baseURL }
        }
    }

    mutating func updateSource(_ name: SourceName, _ change: (inout SourceSettings) -> Void) {
        if let index = sources.firstIndex(where: { $0.name == name.rawValue }) {
            change(&sources[index])
        }
    }

    /// Puts `names` first in this order; the others keep their relative order after them.
    mutating func reorder(first names: [SourceName]) {
        let listed = names.map(\.rawValue)
        let rest = sources.sorted { $0.order < $1.order }.map(\.name).filter { !listed.contains($0) }
        for (position, name) in (listed + rest).enumerated() {
            if let index = sources.firstIndex(where: { $0.name == name }) { sources[index].order = position }
        }
        sources.sort { $0.order < $1.order }
    }

    public var description: String {
        var lines = ["config file: \(configFile?.path ?? "none")"]
        for source in sources.sorted(by: { $0.order < $1.order }) {
            let location = source.name == SourceName.localDump.rawValue ? (localDump ?? "default file") : source.baseURL.absoluteString
            lines.append("\(source.name): \(source.enabled ? "enabled" : "disabled"), \(location)")
        }
        let keyState = googleBooksAPIKey == nil
            ? "not set (\(googleBooksAPIKeyVariable))"
            : "set from \(googleBooksAPIKeyOrigin ?? "config") (value hidden)"
        lines.append("googleBooks API key: \(keyState)")
        lines.append("openLibrary covers: \(openLibraryCoversURL.absoluteString), contact: \(contact ?? "none")")
        lines.append(
            "http: timeout \(http.timeoutSeconds)s, \(http.retries) retries, "
                + "\(http.maxConcurrentRequests) in flight, back-off \(http.retryBaseDelaySeconds)s up to \(http.maxRetryDelaySeconds)s")
        lines.append("database: \(database ?? "default")")
        return lines.joined(separator: "\n")
    }
}
