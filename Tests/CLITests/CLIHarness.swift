import Foundation
import TestSupport
import Testing

/// A sandbox for running the built `rapidscan`: a temp folder holding the library and the
/// config and data homes, and a loopback FixtureServer standing in for Google Books and
/// Open Library (through the same environment variables users set). Start the server after
/// adding its routes; tests that need no network never start it.
final class CLIHarness: @unchecked Sendable {
    let directory: URL
    let server: FixtureServer
    /// Set before running a command to add or override environment variables.
    var extraEnvironment: [String: String] = [:]

    init(server: FixtureServer = FixtureServer()) throws {
        self.server = server
        directory = try makeTemporaryDirectory(prefix: "rapidscan-cli")
    }

    /// A harness whose server already listens (routes may be added afterwards).
    static func started() async throws -> CLIHarness {
        let harness = try CLIHarness()
        try await harness.server.start()
        return harness
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    var database: URL { directory.appendingPathComponent("library.sqlite") }

    /// The test's environment without the developer's own rapidscan settings, pointed at
    /// this sandbox.
    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment.filter { key, _ in
            !key.hasPrefix("RAPIDSCAN_") && key != "GOOGLE_BOOKS_API_KEY"
        }
        env["HOME"] = directory.path
        env["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        env["XDG_DATA_HOME"] = directory.appendingPathComponent("data").path
        env["RAPIDSCAN_DB"] = database.path
        env.merge(server.sourcesEnvironment()) { _, new in new }
        env.merge(extraEnvironment) { _, new in new }
        return env
    }

    /// Runs a command to the end.
    func run(_ arguments: [String], input: String? = nil) async throws -> CommandResult {
        try await runRapidScan(arguments, environment: environment, input: input)
    }

    func run(_ arguments: String..., input: String? = nil) async throws -> CommandResult {
        try await run(arguments, input: input)
    }

    /// Runs `arguments` under a pseudo-terminal (`script`), both streams going to it.
    func runOnTerminal(_ arguments: [String], environment extra: [String: String]) async throws -> CommandResult {
        let binary = try RapidScanBinary.url.path
        let command = ([binary] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        var environment = self.environment
        environment.merge(extra) { _, new in new }
        return try await runProcess(URL(fileURLWithPath: "/usr/bin/script"), ["-q", "-e", "-c", command, "/dev/null"],
                                    environment: environment)
    }

    /// Starts a command, for tests that wait for its output and then signal it.
    func start(_ arguments: [String]) async throws -> RunningCommand {
        try await RunningCommand.rapidScan(arguments, environment: environment)
    }

    /// `account --json`: how many books the library owns.
    func ownedCount() async throws -> Int {
        let result = try await run(["account", "--json"])
        let object = try #require(result.jsonLines.first)
        return try #require(object["owned"] as? Int)
    }
}
