import Foundation
import TOMLKit

extension RapidScanSettings {
    /// Reads the config file, then applies environment overrides.
    ///
    /// The file is `configFile`, else `$RAPIDSCAN_CONFIG`, else
    /// `$XDG_CONFIG_HOME/rapidscan/config.toml`. A missing default file means built-in
    /// defaults; a missing file that was named explicitly is an error.
    public static func load(
        configFile: URL? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigError) -> RapidScanSettings {
        let explicit = configFile ?? environment.nonEmpty("RAPIDSCAN_CONFIG").map { URL(fileURLWithPath: $0) }
        let file = explicit ?? XDGPaths(environment: environment).defaultConfigFile
        var settings = RapidScanSettings()
        if FileManager.default.fileExists(atPath: file.path) {
            let text: String
            do {
                text = try String(contentsOf: file, encoding: .utf8)
            } catch {
                throw .unreadable(path: file.path, reason: error.localizedDescription)
            }
            try ConfigFileReader(path: file.path, text: text, environment: environment).apply(to: &settings)
            settings.configFile = file
        } else if explicit != nil {
            throw .fileNotFound(path: file.path)
        }
        try EnvironmentOverrides(environment: environment).apply(to: &settings)
        return settings
    }

    /// Settings from TOML text (as if read from `path`) plus `environment` overrides.
    public static func parse(
        toml text: String, path: String = "config.toml", environment: [String: String] = [:]
    ) throws(ConfigError) -> RapidScanSettings {
        var settings = RapidScanSettings()
        try ConfigFileReader(path: path, text: text, environment: environment).apply(to: &settings)
        try EnvironmentOverrides(environment: environment).apply(to: &settings)
        return settings
    }
}

extension RapidScanSettings {
    /// The config file and its permission bits when it holds an API key that every user
    /// of the machine can read (mode & 0o004): the CLI warns and says `chmod 600`.
    public var readableKeyFile: (path: String, mode: UInt32)? {
        guard configFileHoldsAPIKey, let file = configFile else { return nil }
        var info = stat()
        guard stat(file.path, &info) == 0, info.st_mode & 0o004 != 0 else { return nil }
        return (file.path, UInt32(info.st_mode & 0o777))
    }
}

/// Walks a parsed TOML document key by key so that errors can name the key and line.
struct ConfigFileReader {
    let path: String
    let text: String
    /// For `~` and `$VAR` in path values.
    let environment: [String: String]

    /// Relative path values are taken from here: the config file's folder.
    private var folder: URL { URL(fileURLWithPath: path).deletingLastPathComponent() }

    private static let topKeys: Set = ["sources", "http", "database", "station", "database_password", "vision"]
    private static let visionKeys: Set = [
        "provider", "baseURL", "model", "apiKeyEnv", "temperature", "timeoutSeconds", "maxTokens",
        "maxConcurrentRequests", "maxImageSide", "prompt", "languages", "psm", "rotations", "ppocr",
        "ppocrTurned", "ppocrStrips",
    ]
    private static let sourcesKeys: Set = ["order", "localDump", "googleBooks", "openLibrary", "libraryOfCongress"]
    private static let localDumpKeys: Set = ["enabled", "path"]
    private static let googleKeys: Set = ["enabled", "baseURL", "apiKeyEnv", "apiKey"]
    private static let openLibraryKeys: Set = ["enabled", "baseURL", "coversBaseURL", "contact"]
    private static let libraryOfCongressKeys: Set = ["enabled", "baseURL"]
    private static let httpKeys: Set = [
        "timeoutSeconds", "retries", "maxConcurrentRequests", "retryBaseDelaySeconds", "maxRetryDelaySeconds",
    ]

    func apply(to settings: inout RapidScanSettings) throws(ConfigError) {
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw .syntax(path: path, line: error.source.begin.line, column: error.source.begin.column, message: error.description)
        } catch {
            throw .syntax(path: path, line: 1, column: 1, message: "\(error)")
        }
        try checkKeys(root, [], allowed: Self.topKeys)
        if let url = try string(root, [], "database"), DatabaseURL.isURL(url) {
            settings.database = url
        } else if let database = try pathValue(root, [], "database") {
            settings.database = database
        }
        if let password = try string(root, [], "database_password") {
            settings.databasePassword = Secret(password)
            settings.configFileHoldsAPIKey = true
        }
        if let station = try string(root, [], "station") {
            guard let name = RapidScanSettings.stationName(station) else {
                throw invalid([], "station", RapidScanSettings.stationRule)
            }
            settings.station = name
        }
        if let http = try table(root, [], "http") { try applyHTTP(http, to: &settings.http) }
        if let vision = try table(root, [], "vision") { try applyVision(vision, to: &settings.vision) }
        guard let sources = try table(root, [], "sources") else { return }
        try checkKeys(sources, ["sources"], allowed: Self.sourcesKeys)
        if let localDump = try table(sources, ["sources"], "localDump") {
            let scope = ["sources", "localDump"]
            try checkKeys(localDump, scope, allowed: Self.localDumpKeys)
            settings.setSource(.localDump, enabled: try bool(localDump, scope, "enabled"))
            if let path = try pathValue(localDump, scope, "path") { settings.localDump = path }
        }
        if let google = try table(sources, ["sources"], "googleBooks") { try applyGoogle(google, to: &settings) }
        if let openLibrary = try table(sources, ["sources"], "openLibrary") { try applyOpenLibrary(openLibrary, to: &settings) }
        if let congress = try table(sources, ["sources"], "libraryOfCongress") {
            try checkKeys(congress, ["sources", "libraryOfCongress"], allowed: Self.libraryOfCongressKeys)
            try applyCommon(congress, ["sources", "libraryOfCongress"], .libraryOfCongress, to: &settings)
        }
        if let order = try sourceOrder(sources) { settings.reorder(first: order) }
    }

    private func applyHTTP(_ http: TOMLTable, to settings: inout HTTPSettings) throws(ConfigError) {
        let scope = ["http"]
        try checkKeys(http, scope, allowed: Self.httpKeys)
        if let value = try number(http, scope, "timeoutSeconds", in: 0.001...3600) { settings.timeoutSeconds = value }
        if let value = try integer(http, scope, "retries", in: 0...10) { settings.retries = value }
        if let value = try integer(http, scope, "maxConcurrentRequests", in: 1...64) { settings.maxConcurrentRequests = value }
        if let value = try number(http, scope, "retryBaseDelaySeconds", in: 0...600) { settings.retryBaseDelaySeconds = value }
        if let value = try number(http, scope, "maxRetryDelaySeconds", in: 0...3600) { settings.maxRetryDelaySeconds = value }
    }

    private func applyVision(_ vision: TOMLTable, to settings: inout VisionConfig) throws(ConfigError) {
        let scope = ["vision"]
        try checkKeys(vision, scope, allowed: Self.visionKeys)
        if let provider = try string(vision, scope, "provider") {
            guard VisionConfig.providers.contains(provider) else {
                throw invalid(scope, "provider", "expected one of \(VisionConfig.providers.sorted().joined(separator: ", ")), got \"\(provider)\"")
            }
            settings.provider = provider
        }
        if let url = try url(vision, scope, "baseURL") { settings.baseURL = url }
        if let model = try string(vision, scope, "model") { settings.model = model }
        if let variable = try string(vision, scope, "apiKeyEnv") { settings.apiKeyEnv = variable }
        if let value = try number(vision, scope, "temperature", in: 0...2) { settings.temperature = value }
        if let value = try number(vision, scope, "timeoutSeconds", in: 1...3600) { settings.timeoutSeconds = value }
        if let value = try integer(vision, scope, "maxTokens", in: 16...200_000) { settings.maxTokens = value }
        if let value = try integer(vision, scope, "maxConcurrentRequests", in: 1...64) { settings.maxConcurrentRequests = value }
        if let value = try integer(vision, scope, "maxImageSide", in: 256...8192) { settings.maxImageSide = value }
        if let prompt = try pathValue(vision, scope, "prompt") { settings.prompt = prompt }
        if let value = try integer(vision, scope, "psm", in: 0...13) { settings.psm = value }
        if let value = vision["languages"] {
            guard let array = value.array, let names = Optional(array.compactMap(\.string)), names.count == array.count, !names.isEmpty
            else { throw invalid(scope, "languages", "expected a list of Tesseract language names such as [\"eng\", \"spa\"], got \(describe(value))") }
            settings.languages = names
        }
        if let value = vision["ppocr"] {
            guard let text = value.string, !text.isEmpty
            else { throw invalid(scope, "ppocr", "expected \"auto\", \"off\" or the path of a Python with rapidocr-onnxruntime, got \(describe(value))") }
            let word = text.lowercased()
            settings.ppocr = word == "auto" || word == "off" ? word
                : text.hasPrefix("/") ? text : folder.appendingPathComponent(text).standardizedFileURL.path
        }
        if let turned = try bool(vision, scope, "ppocrTurned") { settings.ppocrTurned = turned }
        if let strips = try bool(vision, scope, "ppocrStrips") { settings.ppocrStrips = strips }
        if let value = vision["rotations"] {
            guard let array = value.array, let degrees = Optional(array.compactMap(\.int)), degrees.count == array.count,
                  !degrees.isEmpty, degrees.allSatisfy({ [0, 90, 270].contains($0) })
            else { throw invalid(scope, "rotations", "expected a list of 0, 90 and 270 (degrees), got \(describe(value))") }
            settings.rotations = degrees
        }
    }

    private func applyGoogle(_ google: TOMLTable, to settings: inout RapidScanSettings) throws(ConfigError) {
        let scope = ["sources", "googleBooks"]
        try checkKeys(google, scope, allowed: Self.googleKeys)
        try applyCommon(google, scope, .googleBooks, to: &settings)
        if let variable = try string(google, scope, "apiKeyEnv") {
            guard variable.range(of: "^[A-Za-z_][A-Za-z0-9_]*$", options: .regularExpression) != nil else {
                throw invalid(scope, "apiKeyEnv", "expected an environment variable name such as GOOGLE_BOOKS_API_KEY")
            }
            settings.googleBooksAPIKeyVariable = variable
        }
        // Never echo this value in an error.
        if let value = google["apiKey"] {
            guard let key = value.string else { throw invalid(scope, "apiKey", "expected a string") }
            if !key.isEmpty {
                settings.configFileHoldsAPIKey = true
                settings.googleBooksAPIKey = Secret(key)
                settings.googleBooksAPIKeyOrigin = "config file"
            }
        }
    }

    private func applyOpenLibrary(_ openLibrary: TOMLTable, to settings: inout RapidScanSettings) throws(ConfigError) {
        let scope = ["sources", "openLibrary"]
        try checkKeys(openLibrary, scope, allowed: Self.openLibraryKeys)
        try applyCommon(openLibrary, scope, .openLibrary, to: &settings)
        if let covers = try url(openLibrary, scope, "coversBaseURL") { settings.openLibraryCoversURL = covers }
        if let contact = try string(openLibrary, scope, "contact") {
            let trimmed = contact.trimmingCharacters(in: .whitespaces)
            guard !trimmed.contains(where: { $0.isNewline || $0 == "(" || $0 == ")" }) else {
                throw invalid(scope, "contact", "must be one line without parentheses (it goes into the User-Agent header)")
            }
            settings.contact = trimmed.isEmpty ? nil : trimmed
        }
    }

    private func applyCommon(
        _ table: TOMLTable, _ scope: [String], _ name: SourceName, to settings: inout RapidScanSettings
    ) throws(ConfigError) {
        let enabled = try bool(table, scope, "enabled")
        let baseURL = try url(table, scope, "baseURL")
        settings.setSource(name, enabled: enabled, baseURL: baseURL)
    }

    private func sourceOrder(_ sources: TOMLTable) throws(ConfigError) -> [SourceName]? {
        guard let value = sources["order"] else { return nil }
        let known = SourceName.allCases.map(\.rawValue).joined(separator: ", ")
        guard let array = value.array else {
            throw invalid(["sources"], "order", "expected a list of source names (\(known)), got \(describe(value))")
        }
        var names: [SourceName] = []
        for element in array {
            guard let text = element.string, let name = SourceName(rawValue: text) else {
                throw invalid(["sources"], "order", "\(describe(element)) is not a source; known sources: \(known)")
            }
            guard !names.contains(name) else {
                throw invalid(["sources"], "order", "\"\(text)\" is listed twice")
            }
            names.append(name)
        }
        return names
    }

    // MARK: Typed readers

    private func table(_ table: TOMLTable, _ scope: [String], _ key: String) throws(ConfigError) -> TOMLTable? {
        guard let value = table[key] else { return nil }
        guard let result = value.table else { throw invalid(scope, key, "expected a table, got \(describe(value))") }
        return result
    }

    private func string(_ table: TOMLTable, _ scope: [String], _ key: String) throws(ConfigError) -> String? {
        guard let value = table[key] else { return nil }
        guard let result = value.string else { throw invalid(scope, key, "expected a string, got \(describe(value))") }
        return result
    }

    /// A file path: `~`, `$VAR`, `${VAR}` expanded, relative to the config file's folder.
    private func pathValue(_ table: TOMLTable, _ scope: [String], _ key: String) throws(ConfigError) -> String? {
        guard let text = try string(table, scope, key) else { return nil }
        guard !text.isEmpty else { throw invalid(scope, key, "expected a path, got an empty string") }
        do {
            return try ConfigPath.resolve(text, environment: environment, relativeTo: folder)
        } catch {
            throw invalid(scope, key, "\(error) (in \"\(text)\")")
        }
    }

    private func bool(_ table: TOMLTable, _ scope: [String], _ key: String) throws(ConfigError) -> Bool? {
        guard let value = table[key] else { return nil }
        guard let result = value.bool else { throw invalid(scope, key, "expected true or false, got \(describe(value))") }
        return result
    }

    private func integer(
        _ table: TOMLTable, _ scope: [String], _ key: String, in range: ClosedRange<Int>
    ) throws(ConfigError) -> Int? {
        guard let value = table[key] else { return nil }
        guard value.type == .int, let result = value.int, range.contains(result) else {
            throw invalid(scope, key, "expected a whole number from \(range.lowerBound) to \(range.upperBound), got \(describe(value))")
        }
        return result
    }

    private func number(
        _ table: TOMLTable, _ scope: [String], _ key: String, in range: ClosedRange<Double>
    ) throws(ConfigError) -> Double? {
        guard let value = table[key] else { return nil }
        let result: Double? = switch value.type {
        case .int: value.int.map(Double.init)
        case .double: value.double
        default: nil
        }
        guard let result, range.contains(result) else {
            throw invalid(scope, key, "expected a number of seconds from \(range.lowerBound) to \(range.upperBound), got \(describe(value))")
        }
        return result
    }

    private func url(_ table: TOMLTable, _ scope: [String], _ key: String) throws(ConfigError) -> URL? {
        guard let text = try string(table, scope, key) else { return nil }
        guard let url = HTTPBaseURL.parse(text) else {
            throw invalid(scope, key, "expected an http:// or https:// URL, got \"\(text)\"")
        }
        return url
    }

    private func checkKeys(_ table: TOMLTable, _ scope: [String], allowed: Set<String>) throws(ConfigError) {
        for key in table.keys.sorted() where !allowed.contains(key) {
            let suggestion = allowed.first { $0.lowercased() == key.lowercased() }
                ?? allowed.first { editDistance($0.lowercased(), key.lowercased()) <= 2 }
            throw .unknownKey(path: path, line: line(of: key, in: scope), key: dotted(scope, key), suggestion: suggestion)
        }
    }

    private func invalid(_ scope: [String], _ key: String, _ message: String) -> ConfigError {
        .invalidValue(path: path, line: line(of: key, in: scope), key: dotted(scope, key), message: message)
    }

    private func dotted(_ scope: [String], _ key: String) -> String { (scope + [key]).joined(separator: ".") }

    private func describe(_ value: any TOMLValueConvertible) -> String {
        switch value.type {
        case .string:
            let text = value.string ?? ""
            return "\"\(text.count > 40 ? text.prefix(40) + "…" : text)\""
        case .int: return value.int.map(String.init) ?? "an integer"
        case .double: return value.double.map { "\($0)" } ?? "a number"
        case .bool: return value.bool.map { "\($0)" } ?? "a boolean"
        default: return "a \(value.type)"
        }
    }

    /// The 1-based line where `key` is assigned under the `[scope]` header, found in the text
    /// itself because TOMLKit does not report positions of values.
    func line(of key: String, in scope: [String]) -> Int? {
        let header = scope.joined(separator: ".")
        // A key that names a table (`[http]`) is found by its header.
        let wholeTable = (scope + [key]).joined(separator: ".")
        var current = ""
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") {
                current = line.trimmingCharacters(in: CharacterSet(charactersIn: "[] "))
                if current == wholeTable { return index + 1 }
                continue
            }
            guard current == header, let equals = line.firstIndex(of: "=") else { continue }
            let name = line[..<equals].trimmingCharacters(in: CharacterSet(charactersIn: " \"'"))
            if name == key { return index + 1 }
        }
        return nil
    }
}

/// Base URLs for sources: http or https with a host; a trailing "/" is dropped.
enum HTTPBaseURL {
    static func parse(_ text: String) -> URL? {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
        else { return nil }
        return url
    }
}

/// Levenshtein distance: how many letters to insert, delete or replace to turn `a` into `b`
/// (a config key or a command name typed a letter or two off).
public func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    var row = Array(0...b.count)
    for i in 1...max(a.count, 1) where !a.isEmpty {
        var previous = row[0]
        row[0] = i
        for j in stride(from: 1, through: b.count, by: 1) {
            let saved = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
            previous = saved
        }
    }
    return row[b.count]
}

extension [String: String] {
    /// The variable's value, or nil when unset or empty.
    func nonEmpty(_ name: String) -> String? {
        guard let value = self[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }
}
