import Foundation

/// An API key: `description`, `debugDescription` and `dump` show `<redacted>`. Read the
/// real text through `revealed` only where it is sent (a request header).
public struct APIKey: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public let revealed: String

    public init(_ value: String) { revealed = value }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

public enum MetadataSources {
    /// One source to ask, with its own settings. The app maps its configuration to these
    /// (so this module knows nothing of config files or the environment).
    public enum Source: Sendable, Hashable {
        case googleBooks(GoogleBooksSource.Settings)
        case openLibrary(OpenLibrarySource.Settings)
        case libraryOfCongress(LibraryOfCongressSource.Settings)
    }

    /// `sources` in lookup order, sharing one HTTP client (so the bound on requests in
    /// flight holds across them).
    public static func make(
        _ sources: [Source], policy: HTTPClient.Policy = HTTPClient.Policy(), clock: any PacingClock = SystemPacingClock(),
        logger: RequestLogger = .disabled
    ) -> [any MetadataSource] {
        let client = HTTPClient(policy: policy, clock: clock, logger: logger)
        return sources.map { source -> any MetadataSource in
            switch source {
            case .googleBooks(let settings): GoogleBooksSource(settings, client: client)
            case .openLibrary(let settings): OpenLibrarySource(settings, client: client)
            case .libraryOfCongress(let settings): LibraryOfCongressSource(settings, client: client)
            }
        }
    }
}
