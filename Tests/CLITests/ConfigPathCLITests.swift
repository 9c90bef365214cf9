import Foundation
import Testing
import TestSupport

/// `database` in config.toml as other tools read paths, and a library on a read-only
/// location, through the built binary (issue 8).
@Suite struct ConfigPathCLITests {
    /// The harness's environment with `config` as the config file and no RAPIDSCAN_DB, so
    /// the config's `database` is the one used.
    private func environment(_ harness: CLIHarness, config: String, extra: [String: String] = [:]) throws -> [String: String] {
        let file = harness.directory.appendingPathComponent("config/rapidscan/config.toml")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try config.write(to: file, atomically: true, encoding: .utf8)
        var environment = harness.environment
        environment["RAPIDSCAN_DB"] = nil
        environment.merge(extra) { _, new in new }
        return environment
    }

    private func databasePath(_ result: CommandResult) throws -> String {
        try #require(result.jsonLines.first?["database"] as? String, "\(result.stdout) \(result.stderr)")
    }

    @Test func tildeAndVariablesComeFromTheEnvironment() async throws {
        let harness = try CLIHarness()
        let workDir = harness.directory.appendingPathComponent("cwd")
        try FileManager.default.createDirectory(at: workDir, withIntermediateDirectories: true)

        let tilde = try environment(harness, config: #"database = "~/books/lib.sqlite""#)
        let first = try await runRapidScan(["account", "--json"], environment: tilde, currentDirectory: workDir)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try databasePath(first) == harness.directory.path + "/books/lib.sqlite")
        #expect(FileManager.default.fileExists(atPath: harness.directory.path + "/books/lib.sqlite"))

        let variable = try environment(harness, config: #"database = "$HOME/shelf/${LIB_NAME}.sqlite""#, extra: ["LIB_NAME": "mine"])
        let second = try await runRapidScan(["account", "--json"], environment: variable, currentDirectory: workDir)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try databasePath(second) == harness.directory.path + "/shelf/mine.sqlite")
        // The bug this replaces: a literal `./$HOME/` folder in the working directory.
        #expect(try FileManager.default.contentsOfDirectory(atPath: workDir.path).isEmpty)
    }

    @Test func relativeDatabaseIsBesideTheConfigFileFromAnyDirectory() async throws {
        let harness = try CLIHarness()
        let env = try environment(harness, config: #"database = "lib.sqlite""#)
        let expected = harness.directory.path + "/config/rapidscan/lib.sqlite"
        for folder in ["a", "b/c"] {
            let cwd = harness.directory.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: cwd, withIntermediateDirectories: true)
            let result = try await runRapidScan(["account", "--json"], environment: env, currentDirectory: cwd)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try databasePath(result) == expected)
            #expect(try FileManager.default.contentsOfDirectory(atPath: cwd.path).filter { $0.hasSuffix(".sqlite") }.isEmpty)
        }
    }

    @Test func anUnsetVariableIsAConfigErrorWithExit70() async throws {
        let harness = try CLIHarness()
        let env = try environment(harness, config: "database = \"$RAPIDSCAN_TEST_UNSET_ROOT/lib.sqlite\"")
        let result = try await runRapidScan(["cache", "stats"], environment: env)
        #expect(result.status == 70)
        #expect(result.stderr.hasPrefix("rapidscan: "))
        #expect(result.stderr.contains("config.toml:1: database: $RAPIDSCAN_TEST_UNSET_ROOT is not set"))
        #expect(result.stdout.isEmpty)
    }

    /// Reading commands work on a read-only library; writing ones say why they cannot.
    @Test(.enabled(if: ReadOnlyLibrary.howToMake != nil, ReadOnlyLibrary.unavailableReason))
    func readOnlyLibraryIsOpenedReadOnlyForReadingCommands() async throws {
        let harness = try CLIHarness()
        let folder = harness.directory.appendingPathComponent("ro")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var env = harness.environment
        env["RAPIDSCAN_DB"] = folder.appendingPathComponent("library.sqlite").path
        // A library with something to read back: the Pro plan.
        let setUp = try await runRapidScan(["account", "--pro"], environment: env)
        #expect(setUp.status == 0, "\(setUp.stderr)")
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(before == ["library.sqlite"])  // closed cleanly: no -wal, no -shm to read through

        let read = try await ReadOnlyLibrary.run(folder, ["account", "--json"], environment: env)
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.jsonLines.first?["plan"] as? String == "pro")
        let stats = try await ReadOnlyLibrary.run(folder, ["cache", "stats", "--json"], environment: env)
        #expect(stats.status == 0, "\(stats.stderr)")
        let list = try await ReadOnlyLibrary.run(folder, ["library", "list"], environment: env)
        #expect(list.status == 0, "\(list.stderr)")
        let pending = try await ReadOnlyLibrary.run(folder, ["pending", "list", "--json"], environment: env)
        #expect(pending.status == 0, "\(pending.stderr)")

        let write = try await ReadOnlyLibrary.run(folder, ["account", "--free"], environment: env)
        #expect(write.status == 70)
        #expect(write.stderr.contains("rapidscan: the library \(folder.path)/library.sqlite is on a read-only location"))
        #expect(write.stderr.components(separatedBy: "\n").filter { !$0.isEmpty }.count == 1)
        // Nothing was written: the plan is still Pro, and no -wal/-shm appeared.
        let after = try await runRapidScan(["account", "--json"], environment: env)
        #expect(after.jsonLines.first?["plan"] as? String == "pro")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == before)
    }
}
