import RapidScanConfig

extension FixtureServer {
    /// The environment variables a user sets to move the metadata sources, pointing both
    /// Google Books and Open Library at this server, so the production code path (URLs,
    /// headers, retries, parsing) is the one under test. The time-out is generous by
    /// default: the whole suite shares two busy cores, so the server may answer late
    /// (never wrongly).
    public func sourcesEnvironment(retries: Int = 0, timeout: Double = 30,
                                   contact: String? = "tests@example.org") -> [String: String] {
        var environment = [
            EnvironmentVariable.googleBooksURL: baseURL.absoluteString,
            EnvironmentVariable.openLibraryURL: baseURL.absoluteString,
            EnvironmentVariable.retries: String(retries),
            EnvironmentVariable.timeout: String(timeout),
        ]
        if let contact { environment[EnvironmentVariable.contact] = contact }
        return environment
    }
}
