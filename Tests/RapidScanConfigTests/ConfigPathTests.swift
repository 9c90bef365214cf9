import Foundation
import RapidScanConfig
import Testing
import TestSupport

/// Path values in config.toml read as other tools read them (issue 8): `~` and `$VAR` from
/// the environment, relative paths from the config file's folder.
@Suite struct ConfigPathTests {
    /// Writes `toml` to `<dir>/etc/rapidscan.toml` and loads it from another working directory.
    private func load(_ toml: String, in directory: URL, environment extra: [String: String] = [:]) throws -> RapidScanSettings {
        let file = directory.appendingPathComponent("etc/rapidscan.toml")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try toml.write(to: file, atomically: true, encoding: .utf8)
        var environment = ["HOME": directory.appendingPathComponent("home").path]
        environment.merge(extra) { _, new in new }
        return try RapidScanSettings.load(configFile: file, environment: environment)
    }

    @Test func tildeIsHomeFromTheEnvironment() throws {
        try withTemporaryDirectory { directory in
            let settings = try load(#"database = "~/books/lib.sqlite""#, in: directory)
            #expect(settings.database == directory.path + "/home/books/lib.sqlite")
            let paths = XDGPaths(environment: ["HOME": "/elsewhere"])
            #expect(settings.databaseURL(paths: paths).path == directory.path + "/home/books/lib.sqlite")
        }
    }

    @Test func variablesWithAndWithoutBracesAreExpanded() throws {
        try withTemporaryDirectory { directory in
            let plain = try load(#"database = "$HOME/books/lib.sqlite""#, in: directory)
            #expect(plain.database == directory.path + "/home/books/lib.sqlite")
            let braces = try load(#"database = "${LIBRARY_ROOT}/x_${NAME}.sqlite""#, in: directory,
                                  environment: ["LIBRARY_ROOT": "/srv/books", "NAME": "main"])
            #expect(braces.database == "/srv/books/x_main.sqlite")
        }
    }

    @Test func relativePathIsTakenFromTheConfigFilesFolder() throws {
        try withTemporaryDirectory { directory in
            let settings = try load(#"database = "data/../lib.sqlite""#, in: directory)
            #expect(settings.database == directory.path + "/etc/lib.sqlite")
            #expect(FileManager.default.currentDirectoryPath != directory.path + "/etc")
        }
    }

    @Test func theLocalDumpIsAPathTooAndDefaultsToTheDataFolder() throws {
        try withTemporaryDirectory { directory in
            let settings = try load("[sources.localDump]\npath = \"dumps/ol.sqlite\"", in: directory)
            #expect(settings.localDumpURL(paths: XDGPaths(environment: ["HOME": "/h"])).path == directory.path + "/etc/dumps/ol.sqlite")
            let defaults = try load("", in: directory)
            #expect(defaults.localDumpURL(paths: XDGPaths(environment: ["HOME": "/h"])).path == "/h/.local/share/rapidscan/openlibrary-dump.sqlite")
        }
    }

    @Test func visionPromptIsAPathToo() throws {
        try withTemporaryDirectory { directory in
            let settings = try load("[vision]\nprompt = \"prompts/spine.mustache\"", in: directory)
            #expect(settings.vision.prompt == directory.path + "/etc/prompts/spine.mustache")
        }
    }

    @Test func anUnsetVariableIsAnErrorNamingKeyAndLine() throws {
        try withTemporaryDirectory { directory in
            do {
                _ = try load("# library\ndatabase = \"$NO_SUCH_VARIABLE_X/lib.sqlite\"", in: directory)
                Issue.record("an unset variable was accepted")
            } catch {
                let text = "\(error)"
                #expect(text.contains("rapidscan.toml:2"))
                #expect(text.contains("database"))
                #expect(text.contains("$NO_SUCH_VARIABLE_X is not set"))
            }
        }
    }

    @Test func tildeWithoutHomeAndOtherUsersHomeAreErrors() throws {
        #expect(throws: ConfigPath.Failure.homeNotSet) {
            try ConfigPath.resolve("~/x", environment: [:], relativeTo: nil)
        }
        #expect(throws: ConfigPath.Failure.otherUsersHome("~bob")) {
            try ConfigPath.resolve("~bob/x", environment: ["HOME": "/h"], relativeTo: nil)
        }
        #expect(throws: ConfigPath.Failure.unclosedBrace) {
            try ConfigPath.resolve("${HOME/x", environment: ["HOME": "/h"], relativeTo: nil)
        }
    }

    @Test func aDollarThatIsNotAVariableStaysAsWritten() throws {
        let env = ["HOME": "/h", "A": "1"]
        #expect(try ConfigPath.resolve("/x/$5/a$/b$-c/$A", environment: env, relativeTo: nil) == "/x/$5/a$/b$-c/1")
        #expect(try ConfigPath.resolve("~", environment: env, relativeTo: nil) == "/h")
        // A `$` inside $HOME or inside a variable's value is not expanded again.
        #expect(try ConfigPath.resolve("~/$A", environment: ["HOME": "/u$A/", "A": "$x"], relativeTo: nil) == "/u$A/$x")
        #expect(try ConfigPath.resolve("a~/b", environment: env, relativeTo: URL(fileURLWithPath: "/base")) == "/base/a~/b")
    }

    @Test func environmentDatabaseExpandsButStaysRelativeToTheWorkingDirectory() throws {
        let settings = try RapidScanSettings.parse(toml: "", environment: ["HOME": "/h", "RAPIDSCAN_DB": "~/lib.sqlite"])
        #expect(settings.database == "/h/lib.sqlite")
        let relative = try RapidScanSettings.parse(toml: "", environment: ["RAPIDSCAN_DB": "here.sqlite"])
        #expect(relative.database == "here.sqlite")
        #expect(throws: ConfigError.self) {
            try RapidScanSettings.parse(toml: "", environment: ["RAPIDSCAN_DB": "$UNSET_FOR_TEST/x"])
        }
    }
}
