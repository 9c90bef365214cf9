import Foundation
import RapidScanConfig
import Testing
import TestSupport

@Suite struct RapidScanSettingsTests {
    static let fullConfig = """
        # rapidscan configuration
        database = "~/books/library.sqlite"

        [sources]
        order = ["openLibrary", "googleBooks"]

        [sources.googleBooks]
        enabled = true
        baseURL = "https://books.example.com/"
        apiKeyEnv = "MY_BOOKS_KEY"

        [sources.openLibrary]
        enabled = true
        baseURL = "https://ol.example.com"
        coversBaseURL = "https://covers.example.com"
        contact = "you@example.com"

        [http]
        timeoutSeconds = 2.5
        retries = 4
        maxConcurrentRequests = 8
        retryBaseDelaySeconds = 0.25
        maxRetryDelaySeconds = 12
        """

    /// The example given for the README: every key, at its default value (contact aside).
    static let documentedExample = """
        # database = "~/.local/share/rapidscan/library.sqlite"

        [sources]
        order = ["localDump", "googleBooks", "openLibrary"]

        [sources.localDump]
        enabled = true
        # path = "~/.local/share/rapidscan/openlibrary-dump.sqlite"

        [sources.googleBooks]
        enabled = true
        baseURL = "https://www.googleapis.com"
        apiKeyEnv = "GOOGLE_BOOKS_API_KEY"
        # apiKey = "..."

        [sources.openLibrary]
        enabled = true
        baseURL = "https://openlibrary.org"
        coversBaseURL = "https://covers.openlibrary.org"
        contact = "you@example.com"

        [http]
        timeoutSeconds = 10
        retries = 2
        maxConcurrentRequests = 4
        retryBaseDelaySeconds = 0.5
        maxRetryDelaySeconds = 30
        """

    @Test func documentedExampleMatchesTheDefaults() throws {
        var expected = RapidScanSettings()
        expected.contact = "you@example.com"
        #expect(try RapidScanSettings.parse(toml: Self.documentedExample) == expected)
    }

    /// Issue 33: the Library of Congress is asked only when enabled, after Open Library.
    @Test func libraryOfCongressIsOffUntilEnabledThenAskedAfterOpenLibrary() throws {
        let defaults = RapidScanSettings()
        #expect(defaults.source(.libraryOfCongress)?.enabled == false)
        #expect(defaults.source(.libraryOfCongress)?.baseURL.absoluteString == "http://lx2.loc.gov:210")

        let enabled = try RapidScanSettings.parse(toml: "[sources.libraryOfCongress]\nenabled = true\nbaseURL = \"http://127.0.0.1:9\"\n")
        #expect(enabled.enabledSources.map(\.name) == ["localDump", "googleBooks", "openLibrary", "libraryOfCongress"])
        #expect(enabled.source(.libraryOfCongress)?.baseURL.absoluteString == "http://127.0.0.1:9")
        #expect(throws: ConfigError.self) { try RapidScanSettings.parse(toml: "[sources.libraryOfCongress]\ncontact = \"x\"\n") }

        try withTemporaryDirectory { directory in
            let environment = ["HOME": directory.path, "XDG_CONFIG_HOME": directory.appendingPathComponent("cfg").path,
                               "RAPIDSCAN_LIBRARY_OF_CONGRESS_URL": "http://127.0.0.1:8083"]
            let settings = try RapidScanSettings.load(environment: environment)
            #expect(settings.source(.libraryOfCongress)?.baseURL.absoluteString == "http://127.0.0.1:8083")
            #expect(!settings.enabledSources.map(\.name).contains("libraryOfCongress"), "a URL alone does not enable it")
            let listed = try RapidScanSettings.load(environment: environment.merging(["RAPIDSCAN_SOURCES": "libraryOfCongress"]) { $1 })
            #expect(listed.enabledSources.map(\.name) == ["libraryOfCongress"])
        }
    }

    @Test func defaultsWithoutAConfigFile() throws {
        try withTemporaryDirectory { directory in
            let environment = ["HOME": directory.path, "XDG_CONFIG_HOME": directory.appendingPathComponent("cfg").path]
            let settings = try RapidScanSettings.load(environment: environment)
            #expect(settings.configFile == nil)
            #expect(settings.enabledSources.map(\.name) == ["localDump", "googleBooks", "openLibrary"])
            #expect(settings.source(.googleBooks)?.baseURL.absoluteString == "https://www.googleapis.com")
            #expect(settings.source(.openLibrary)?.baseURL.absoluteString == "https://openlibrary.org")
            #expect(settings.openLibraryCoversURL.absoluteString == "https://covers.openlibrary.org")
            #expect(settings.googleBooksAPIKey == nil)
            #expect(settings.contact == nil)
            #expect(settings.effectiveOpenLibraryRequestsPerSecond == 1)
            #expect(settings.http.timeoutSeconds == 10)
            #expect(settings.http.retries == 2)
            #expect(settings.http.maxConcurrentRequests == 4)
            #expect(settings.databaseURL(paths: XDGPaths(environment: environment)).path
                == directory.path + "/.local/share/rapidscan/library.sqlite")
        }
    }

    @Test func xdgPaths() {
        let paths = XDGPaths(environment: ["HOME": "/home/u", "XDG_DATA_HOME": "/data", "XDG_CONFIG_HOME": "relative/ignored"])
        #expect(paths.dataHome.path == "/data")
        #expect(paths.configHome.path == "/home/u/.config")
        #expect(paths.cacheHome.path == "/home/u/.cache")
        #expect(paths.defaultDatabase.path == "/data/rapidscan/library.sqlite")
        #expect(paths.defaultConfigFile.path == "/home/u/.config/rapidscan/config.toml")
    }

    @Test func everyKeyOfTheConfigFileIsRead() throws {
        try withTemporaryDirectory { directory in
            let configHome = directory.appendingPathComponent("config")
            let file = configHome.appendingPathComponent("rapidscan/config.toml")
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Self.fullConfig.write(to: file, atomically: true, encoding: .utf8)

            let settings = try RapidScanSettings.load(
                environment: ["HOME": directory.path, "XDG_CONFIG_HOME": configHome.path, "MY_BOOKS_KEY": "k-from-env"])
            #expect(settings.configFile?.path == file.path)
            // `~` is $HOME from the environment (here the temporary folder), not the password database's.
            #expect(settings.database == directory.path + "/books/library.sqlite")
            // Sources the order does not name come after the ones it does.
            #expect(settings.enabledSources.map(\.name) == ["openLibrary", "googleBooks", "localDump"])
            #expect(settings.source(.googleBooks)?.baseURL.absoluteString == "https://books.example.com")
            #expect(settings.source(.openLibrary)?.baseURL.absoluteString == "https://ol.example.com")
            #expect(settings.openLibraryCoversURL.absoluteString == "https://covers.example.com")
            #expect(settings.contact == "you@example.com")
            #expect(settings.effectiveOpenLibraryRequestsPerSecond == 3)
            #expect(settings.googleBooksAPIKeyVariable == "MY_BOOKS_KEY")
            #expect(settings.googleBooksAPIKey?.revealed == "k-from-env")
            #expect(settings.http.timeoutSeconds == 2.5)
            #expect(settings.http.retries == 4)
            #expect(settings.http.maxConcurrentRequests == 8)
            #expect(settings.http.retryBaseDelaySeconds == 0.25)
            #expect(settings.http.maxRetryDelaySeconds == 12)
        }
    }

    @Test func environmentOverridesTheFile() throws {
        let toml = """
            database = "/from/config.sqlite"
            [sources.googleBooks]
            apiKey = "key-in-config"
            baseURL = "https://config.example.com"
            [sources.openLibrary]
            contact = "config@example.com"
            """
        let fromFile = try RapidScanSettings.parse(toml: toml)
        #expect(fromFile.googleBooksAPIKey?.revealed == "key-in-config")
        #expect(fromFile.googleBooksAPIKeyOrigin == "config file")

        let settings = try RapidScanSettings.parse(toml: toml, environment: [
            "GOOGLE_BOOKS_API_KEY": "key-in-env",
            "RAPIDSCAN_GOOGLE_BOOKS_URL": "http://127.0.0.1:8080/",
            "RAPIDSCAN_OPEN_LIBRARY_URL": "http://127.0.0.1:8081",
            "RAPIDSCAN_OPEN_LIBRARY_COVERS_URL": "http://127.0.0.1:8082",
            "RAPIDSCAN_DB": "/tmp/override.sqlite",
            "RAPIDSCAN_CONTACT": "env@example.com",
            "RAPIDSCAN_SOURCES": "openLibrary",
            "RAPIDSCAN_HTTP_TIMEOUT": "0.5",
            "RAPIDSCAN_HTTP_RETRIES": "0",
            "RAPIDSCAN_HTTP_RETRY_DELAY": "0.01",
            "RAPIDSCAN_DEBUG": "1",
        ])
        #expect(settings.googleBooksAPIKey?.revealed == "key-in-env")
        #expect(settings.googleBooksAPIKeyOrigin == "GOOGLE_BOOKS_API_KEY")
        #expect(settings.source(.googleBooks)?.baseURL.absoluteString == "http://127.0.0.1:8080")
        #expect(settings.source(.openLibrary)?.baseURL.absoluteString == "http://127.0.0.1:8081")
        #expect(settings.openLibraryCoversURL.absoluteString == "http://127.0.0.1:8082")
        #expect(settings.database == "/tmp/override.sqlite")
        #expect(settings.contact == "env@example.com")
        #expect(settings.enabledSources.map(\.name) == ["openLibrary"])
        #expect(settings.http.timeoutSeconds == 0.5)
        #expect(settings.http.retries == 0)
        #expect(settings.http.retryBaseDelaySeconds == 0.01)
        #expect(settings.debugLogging)
    }

    @Test func configFileNamedByVariableMustExist() throws {
        try withTemporaryDirectory { directory in
            let missing = directory.appendingPathComponent("nope.toml").path
            #expect(throws: ConfigError.fileNotFound(path: missing)) {
                try RapidScanSettings.load(environment: ["RAPIDSCAN_CONFIG": missing])
            }
            let file = directory.appendingPathComponent("custom.toml")
            try "[http]\nretries = 0\n".write(to: file, atomically: true, encoding: .utf8)
            let settings = try RapidScanSettings.load(environment: ["RAPIDSCAN_CONFIG": file.path])
            #expect(settings.http.retries == 0)
            #expect(settings.configFile == file)
        }
    }

    @Test(arguments: [
        ("[http]\ntimeoutSeconds = 10\nretries = \"three\"\n",
         "config.toml:3: http.retries: expected a whole number from 0 to 10, got \"three\""),
        ("[http]\nmaxConcurrentRequests = 0\n",
         "config.toml:2: http.maxConcurrentRequests: expected a whole number from 1 to 64, got 0"),
        ("[sources.googleBooks]\nbaseUrl = \"https://x.example\"\n",
         "config.toml:2: unknown key 'sources.googleBooks.baseUrl' (did you mean 'baseURL'?)"),
        ("[sources.openLibrary]\nbaseURL = \"ftp://x.example\"\n",
         "config.toml:2: sources.openLibrary.baseURL: expected an http:// or https:// URL, got \"ftp://x.example\""),
        ("[sources]\norder = [\"googleBooks\", \"amazon\"]\n",
         "config.toml:2: sources.order: \"amazon\" is not a source; known sources: localDump, googleBooks, openLibrary, libraryOfCongress"),
        ("[sources.openLibrary]\nenabled = \"yes\"\n",
         "config.toml:2: sources.openLibrary.enabled: expected true or false, got \"yes\""),
        ("http = 5\n", "config.toml:1: http: expected a table, got 5"),
    ])
    func badValuesNameFileLineKeyAndProblem(toml: String, message: String) {
        #expect(throws: ConfigError.self) { try RapidScanSettings.parse(toml: toml) }
        do {
            _ = try RapidScanSettings.parse(toml: toml)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func syntaxErrorNamesFileLineAndColumn() throws {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("config.toml")
            try "[http]\ntimeoutSeconds = 10\nretries = = 2\n".write(to: file, atomically: true, encoding: .utf8)
            do {
                _ = try RapidScanSettings.load(configFile: file, environment: [:])
                Issue.record("a broken file must not load")
            } catch let error as ConfigError {
                guard case .syntax(let path, let line, _, _) = error else {
                    Issue.record("expected a syntax error, got \(error)")
                    return
                }
                #expect(path == file.path)
                #expect(line == 3)
                #expect(error.description.hasPrefix("\(file.path):3:"))
                #expect(error.description.contains("invalid TOML"))
            }
        }
    }

    @Test func badEnvironmentValuesNameTheVariable() {
        #expect(throws: ConfigError.invalidEnvironment(
            variable: "RAPIDSCAN_GOOGLE_BOOKS_URL", message: "expected an http:// or https:// URL, got \"localhost:8080\"")) {
            try RapidScanSettings.parse(toml: "", environment: ["RAPIDSCAN_GOOGLE_BOOKS_URL": "localhost:8080"])
        }
        #expect(throws: ConfigError.self) {
            try RapidScanSettings.parse(toml: "", environment: ["RAPIDSCAN_SOURCES": "googleBooks,bing"])
        }
        #expect(throws: ConfigError.self) {
            try RapidScanSettings.parse(toml: "", environment: ["RAPIDSCAN_HTTP_RETRIES": "1.5"])
        }
    }

    @Test func apiKeyNeverAppearsInOutputOrErrors() throws {
        let secret = "AIzaSy-very-secret-key"
        let settings = try RapidScanSettings.parse(toml: "", environment: ["GOOGLE_BOOKS_API_KEY": secret])
        #expect(settings.googleBooksAPIKey?.revealed == secret)
        #expect(!settings.description.contains(secret))
        #expect(settings.description.contains("set from GOOGLE_BOOKS_API_KEY"))
        #expect(!String(reflecting: settings).contains(secret))
        var dumped = ""
        dump(settings, to: &dumped)
        #expect(!dumped.contains(secret))
        #expect("\(settings.googleBooksAPIKey!)" == "<redacted>")

        // A key of the wrong type is reported without echoing anything.
        do {
            _ = try RapidScanSettings.parse(toml: "[sources.googleBooks]\napiKey = [\"\(secret)\"]\n")
            Issue.record("a list is not a key")
        } catch {
            #expect(error.description == "config.toml:2: sources.googleBooks.apiKey: expected a string")
        }
    }
}
