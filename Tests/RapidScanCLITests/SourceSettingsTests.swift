import Foundation
import MetadataSources
@testable import RapidScanCLI
import RapidScanConfig
import Testing

/// The one mapping from the app's configuration to the metadata sources' own settings.
@Suite struct SourceSettingsTests {
    @Test func makeBuildsEnabledSourcesInConfiguredOrder() throws {
        let both = try RapidScanSettings.parse(toml: #"[sources]\#norder = ["openLibrary", "googleBooks"]"#)
        #expect(MetadataSources.make(settings: both).map(\.name) == ["openLibrary", "googleBooks"])
        let one = try RapidScanSettings.parse(toml: "[sources.openLibrary]\nenabled = false")
        #expect(MetadataSources.make(settings: one).map(\.name) == ["googleBooks"])
        // The Library of Congress: appended after Open Library once enabled, with rapidscan's User-Agent.
        let congress = try RapidScanSettings.parse(toml: "[sources.libraryOfCongress]\nenabled = true")
        #expect(MetadataSources.make(settings: congress).map(\.name) == ["googleBooks", "openLibrary", "libraryOfCongress"])
        #expect(congress.libraryOfCongress.userAgent == "rapidscan/\(RapidScanVersion.current)")
        #expect(congress.libraryOfCongress.requestsPerSecond == 1)
    }

    @Test func environmentMovesTheSourcesAndSetsTheirIdentity() throws {
        let settings = try RapidScanSettings.parse(toml: "", environment: [
            EnvironmentVariable.googleBooksURL: "http://127.0.0.1:9/g",
            EnvironmentVariable.openLibraryURL: "http://127.0.0.1:9/o",
            EnvironmentVariable.openLibraryCoversURL: "https://covers.example.org",
            EnvironmentVariable.contact: "you@example.com",
            "GOOGLE_BOOKS_API_KEY": "AIzaTEST-secret-0123456789",
        ])
        let google = settings.googleBooks
        #expect(google.baseURL.absoluteString == "http://127.0.0.1:9/g")
        #expect(google.apiKey?.revealed == "AIzaTEST-secret-0123456789")
        #expect(google.userAgent == "rapidscan/\(RapidScanVersion.current)")
        #expect(!String(describing: google).contains("AIzaTEST"))
        #expect(!String(describing: settings).contains("AIzaTEST"))
        let openLibrary = settings.openLibrary
        #expect(openLibrary.baseURL.absoluteString == "http://127.0.0.1:9/o")
        #expect(openLibrary.coversURL.absoluteString == "https://covers.example.org")
        #expect(openLibrary.userAgent == "rapidscan/\(RapidScanVersion.current) (you@example.com)")
        #expect(openLibrary.effectiveRequestsPerSecond == 3)
    }

    @Test func httpSettingsBecomeTheClientsPolicy() throws {
        let settings = try RapidScanSettings.parse(toml: "", environment: [
            EnvironmentVariable.retries: "5", EnvironmentVariable.timeout: "2.5",
        ])
        let policy = HTTPClient.Policy(settings.http)
        #expect(policy.retries == 5)
        #expect(policy.timeout == 2.5)
        #expect(policy.maxConcurrentRequests == settings.http.maxConcurrentRequests)
        #expect(policy.baseDelay == settings.http.retryBaseDelaySeconds)
        #expect(policy.maxDelay == settings.http.maxRetryDelaySeconds)
    }
}
