import Foundation

/// Environment variables that override the config file (empty values are ignored, except
/// the URL variables: an empty one is an error naming it).
public enum EnvironmentVariable {
    public static let config = "RAPIDSCAN_CONFIG"
    public static let database = "RAPIDSCAN_DB"
    public static let station = "RAPIDSCAN_STATION"
    public static let googleBooksURL = "RAPIDSCAN_GOOGLE_BOOKS_URL"
    public static let openLibraryURL = "RAPIDSCAN_OPEN_LIBRARY_URL"
    public static let openLibraryCoversURL = "RAPIDSCAN_OPEN_LIBRARY_COVERS_URL"
    public static let libraryOfCongressURL = "RAPIDSCAN_LIBRARY_OF_CONGRESS_URL"
    /// Comma-separated source names: only these are used, in this order.
    public static let sources = "RAPIDSCAN_SOURCES"
    public static let localDump = "RAPIDSCAN_LOCAL_DUMP"
    public static let contact = "RAPIDSCAN_CONTACT"
    public static let timeout = "RAPIDSCAN_HTTP_TIMEOUT"
    public static let retries = "RAPIDSCAN_HTTP_RETRIES"
    public static let retryDelay = "RAPIDSCAN_HTTP_RETRY_DELAY"
    public static let debug = "RAPIDSCAN_DEBUG"
}

struct EnvironmentOverrides {
    let environment: [String: String]

    func apply(to settings: inout RapidScanSettings) throws(ConfigError) {
        typealias Variable = EnvironmentVariable
        // The key variable named in the config wins over an `apiKey` written in the file.
        if let key = environment.nonEmpty(settings.googleBooksAPIKeyVariable) {
            settings.googleBooksAPIKey = Secret(key)
            settings.googleBooksAPIKeyOrigin = settings.googleBooksAPIKeyVariable
        }
        if let database = environment.nonEmpty(Variable.database), DatabaseURL.isURL(database) {
            settings.database = database
        } else if let database = environment.nonEmpty(Variable.database) {
            // Like a path on the command line: `~`/`$VAR` expanded (a service manager may not
            // have), a relative path taken from the current directory.
            do {
                settings.database = try ConfigPath.resolve(database, environment: environment, relativeTo: nil)
            } catch {
                throw .invalidEnvironment(variable: Variable.database, message: "\(error)")
            }
        }
        if let station = environment.nonEmpty(Variable.station) {
            guard let name = RapidScanSettings.stationName(station) else {
                throw .invalidEnvironment(variable: Variable.station, message: RapidScanSettings.stationRule)
            }
            settings.station = name
        }
        if let url = try url(Variable.googleBooksURL) { settings.updateSource(.googleBooks) { $0.baseURL = url } }
        if let url = try url(Variable.openLibraryURL) { settings.updateSource(.openLibrary) { $0.baseURL = url } }
        if let url = try url(Variable.openLibraryCoversURL) { settings.openLibraryCoversURL = url }
        if let url = try url(Variable.libraryOfCongressURL) { settings.updateSource(.libraryOfCongress) { $0.baseURL = url } }
        if let contact = environment.nonEmpty(Variable.contact) { settings.contact = contact }
        if let path = environment.nonEmpty(Variable.localDump) { settings.localDump = path }
        if let list = environment.nonEmpty(Variable.sources) { try applySourceList(list, to: &settings) }
        if let value = try number(Variable.timeout, in: 0.001...3600) { settings.http.timeoutSeconds = value }
        if let value = try number(Variable.retries, in: 0...10) {
            guard value == value.rounded() else {
                throw .invalidEnvironment(variable: Variable.retries, message: "expected a whole number from 0 to 10")
            }
            settings.http.retries = Int(value)
        }
        if let value = try number(Variable.retryDelay, in: 0...600) { settings.http.retryBaseDelaySeconds = value }
        if let provider = environment.nonEmpty(Variable.visionProvider) {
            guard VisionConfig.providers.contains(provider) else {
                throw .invalidEnvironment(variable: Variable.visionProvider, message: "expected one of \(VisionConfig.providers.sorted().joined(separator: ", "))")
            }
            settings.vision.provider = provider
        }
        if let url = try url(Variable.visionURL) { settings.vision.baseURL = url }
        if let model = environment.nonEmpty(Variable.visionModel) { settings.vision.model = model }
        if let variable = environment.nonEmpty(Variable.visionAPIKeyEnv) { settings.vision.apiKeyEnv = variable }
        if let debug = environment.nonEmpty(Variable.debug) {
            settings.debugLogging = !["0", "false", "no", "off"].contains(debug.lowercased())
        }
    }

    private func applySourceList(_ list: String, to settings: inout RapidScanSettings) throws(ConfigError) {
        var names: [SourceName] = []
        for part in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !part.isEmpty {
            guard let name = SourceName(rawValue: part) else {
                let known = SourceName.allCases.map(\.rawValue).joined(separator: ", ")
                throw .invalidEnvironment(variable: EnvironmentVariable.sources, message: "unknown source \"\(part)\"; known: \(known)")
            }
            if !names.contains(name) { names.append(name) }
        }
        settings.reorder(first: names)
        for name in SourceName.allCases {
            settings.updateSource(name) { $0.enabled = names.contains(name) }
        }
    }

    /// A URL variable set to nothing is an error, not "unset": falling back to the real host
    /// would send requests (and keys) where the user meant not to.
    private func url(_ variable: String) throws(ConfigError) -> URL? {
        guard environment[variable] != nil else { return nil }
        guard let text = environment.nonEmpty(variable) else {
            throw .invalidEnvironment(variable: variable, message: "is set but empty; unset it to use the configured URL, or give an http:// or https:// URL")
        }
        guard let url = HTTPBaseURL.parse(text) else {
            throw .invalidEnvironment(variable: variable, message: "expected an http:// or https:// URL, got \"\(text)\"")
        }
        return url
    }

    private func number(_ variable: String, in range: ClosedRange<Double>) throws(ConfigError) -> Double? {
        guard let text = environment.nonEmpty(variable) else { return nil }
        guard let value = Double(text), range.contains(value) else {
            throw .invalidEnvironment(
                variable: variable, message: "expected a number from \(range.lowerBound) to \(range.upperBound), got \"\(text)\"")
        }
        return value
    }
}
