import Foundation
import RapidScanConfig

public enum MetadataSources {
    /// The enabled sources in configured order, sharing one HTTP client (so the bound on
    /// requests in flight holds across them).
    public static func make(
        settings: RapidScanSettings, clock: any PacingClock = SystemPacingClock(), logger: RequestLogger? = nil
    ) -> [any MetadataSource] {
        let client = HTTPClient(
            policy: HTTPClient.Policy(settings.http), clock: clock,
            logger: logger ?? (settings.debugLogging ? .standardError : .disabled))
        return settings.enabledSources.compactMap { source -> (any MetadataSource)? in
            switch SourceName(rawValue: source.name) {
            case .googleBooks: GoogleBooksSource(settings: settings, client: client)
            case .openLibrary: OpenLibrarySource(settings: settings, client: client)
            case nil: nil
            }
        }
    }
}
