import Foundation
import LocalSource
import MetadataSources
import RapidScanConfig

// The one place the app's configuration becomes the metadata sources' own settings
// (MetadataSources does not read config files or the environment).

extension MetadataSources {
    /// The enabled sources in configured order, sharing one HTTP client; the local dump
    /// among them where the order puts it, once one was loaded (`rapidscan sources load`).
    static func make(
        settings: RapidScanSettings, clock: any PacingClock = SystemPacingClock(), logger: RequestLogger? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [any MetadataSource] {
        let network = make(settings.metadataSources, policy: HTTPClient.Policy(settings.http), clock: clock,
                           logger: logger ?? (settings.debugLogging ? .standardError : .disabled))
        guard let position = settings.enabledSources.firstIndex(where: { $0.name == SourceName.localDump.rawValue }),
              let local = settings.localDumpSource(environment: environment) else { return network }
        let before = settings.enabledSources[..<position].count
        var sources = network
        sources.insert(local, at: min(before, sources.count))
        return sources
    }
}

extension RequestLogger {
    /// `RAPIDSCAN_DEBUG`: one `debug:` line per request on stderr, whole-line like every diagnostic.
    static let standardError = RequestLogger { Console.error("debug: \($0)") }
}

extension RapidScanSettings {
    /// `rapidscan/<version>`: how rapidscan names itself to the sources.
    static var userAgentProduct: String { "rapidscan/\(RapidScanVersion.current)" }

    /// The enabled sources in lookup order, each with its settings.
    var metadataSources: [MetadataSources.Source] {
        enabledSources.compactMap { source in
            switch SourceName(rawValue: source.name) {
            case .localDump: nil  // a file, not a network source: `localDumpSource`
            case .googleBooks: .googleBooks(googleBooks)
            case .openLibrary: .openLibrary(openLibrary)
            case .libraryOfCongress: .libraryOfCongress(libraryOfCongress)
            case nil: nil
            }
        }
    }

    /// The loaded dump, or nil when none was loaded yet (a missing file is no error: the
    /// network sources answer). A file that cannot be opened is said on stderr once.
    func localDumpSource(environment: [String: String] = ProcessInfo.processInfo.environment) -> LocalDumpSource? {
        let path = localDumpURL(paths: XDGPaths(environment: environment)).path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            return try LocalDumpSource(path: path, coversURL: openLibraryCoversURL)
        } catch {
            Console.error("rapidscan: warning: \(error); asking the network sources without it")
            return nil
        }
    }

    var googleBooks: GoogleBooksSource.Settings {
        GoogleBooksSource.Settings(
            baseURL: source(.googleBooks)?.baseURL ?? Self.defaultGoogleBooksURL,
            apiKey: googleBooksAPIKey.map { APIKey($0.revealed) },
            userAgent: Self.userAgentProduct)
    }

    var openLibrary: OpenLibrarySource.Settings {
        OpenLibrarySource.Settings(
            baseURL: source(.openLibrary)?.baseURL ?? Self.defaultOpenLibraryURL,
            coversURL: openLibraryCoversURL, product: Self.userAgentProduct, contact: contact,
            requestsPerSecond: effectiveOpenLibraryRequestsPerSecond)
    }

    var libraryOfCongress: LibraryOfCongressSource.Settings {
        LibraryOfCongressSource.Settings(
            baseURL: source(.libraryOfCongress)?.baseURL ?? Self.defaultLibraryOfCongressURL, userAgent: Self.userAgentProduct)
    }
}

extension HTTPClient.Policy {
    init(_ http: HTTPSettings) {
        self.init(timeout: http.timeoutSeconds, retries: http.retries, maxConcurrentRequests: http.maxConcurrentRequests,
                  baseDelay: http.retryBaseDelaySeconds, maxDelay: http.maxRetryDelaySeconds)
    }
}
