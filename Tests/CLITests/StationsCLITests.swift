import Foundation
import TestSupport
import Testing

/// Several stations, one library (issue 32): the real binary on a real SQLite file, each run
/// naming its station by `--station`, `RAPIDSCAN_STATION` or config `station`.
@Suite(.serialized) struct StationsCLITests {
    private static let books = ["isbn-9780990582939-noprice.png", "isbn-9781250313188-usd.png"]

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func eachStationResumesItsOwnFilesAndItsBooksAreListedByStation() async throws {
        try SharedFiles.requireShared()
        let harness = try CLIHarness()
        try await harness.startServer()
        defer { Task { await harness.server.stop() } }
        let folder = try harness.photoFolder("photos", Self.books)

        let first = try await harness.run(["scan", "--json", "--station", "front-desk", folder.path])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.events("added").count == 2)
        #expect(first.summary?["station"] as? String == "front-desk")

        // Another station, a folder of the same name: its files are its own to scan, its books already owned.
        harness.extraEnvironment["RAPIDSCAN_STATION"] = "back-room"
        let other = try await harness.run(["scan", "--json", folder.path])
        #expect(other.summary?["alreadyProcessed"] as? Int == 0, "\(other.stdout)")
        #expect(other.events("alreadyOwned").count == 2)
        #expect(other.summary?["station"] as? String == "back-room")
        #expect(try await harness.ownedCount() == 2)

        // Each station resumes its own rows; --station wins over the environment.
        let again = try await harness.run(["scan", "--json", "--station", "front-desk", folder.path])
        #expect(again.summary?["alreadyProcessed"] as? Int == 2)
        let otherAgain = try await harness.run(["scan", "--json", folder.path])
        #expect(otherAgain.summary?["alreadyProcessed"] as? Int == 2)

        let front = try await harness.run(["library", "list", "--json", "station:front-desk"])
        let frontItems = front.jsonLines.filter { $0["event"] as? String == "item" }
        #expect(Set(frontItems.compactMap { $0["isbn13"] as? String }) == ["9780990582939", "9781250313188"], "\(front.stdout)\(front.stderr)")
        #expect(frontItems.allSatisfy { $0["station"] as? String == "front-desk" })
        let back = try await harness.run(["library", "list", "--json", "station:back-room"])
        #expect(back.status == 0 && back.summary?["count"] as? Int == 0, "\(back.stdout)")

        // Config `station`, under the environment's.
        harness.extraEnvironment["RAPIDSCAN_STATION"] = nil
        let config = harness.directory.appendingPathComponent("config/rapidscan/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("station = \"attic\"\n".utf8).write(to: config)
        let attic = try await harness.run(["scan", "--json", folder.path])
        #expect(attic.summary?["station"] as? String == "attic" && attic.summary?["alreadyProcessed"] as? Int == 0, "\(attic.stdout)\(attic.stderr)")
        let human = try await harness.run(["scan", folder.path])
        #expect(human.stdout.contains("Station:            attic"), "\(human.stdout)")
    }

    @Test func aBadStationNameIsRefusedNamingWhereItCameFrom() async throws {
        let harness = try CLIHarness()
        let flag = try await harness.run(["library", "list", "--station", "  "])
        #expect(flag.status != 0 && flag.stderr.contains("--station") && flag.stderr.contains("1 to 64 characters"), "\(flag.stderr)")
        harness.extraEnvironment["RAPIDSCAN_STATION"] = "desk\u{1B}[2J"
        let variable = try await harness.run(["library", "list"])
        #expect(variable.status != 0 && variable.stderr.contains("RAPIDSCAN_STATION"), "\(variable.stderr)")
        #expect(!variable.stderr.contains("\u{1B}"))
    }

    @Test func databaseShowsTheLibraryInUseItsSchemaVersionStationAndCounts() async throws {
        let harness = try CLIHarness()
        let added = try await harness.run(["library", "add", "--offline", "--title", "Dune", "--author", "Frank Herbert", "--station", "desk-9", "9780441013593"])
        #expect(added.status == 0, "\(added.stderr)")
        let json = try await harness.run(["database", "--json", "--station", "desk-9"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(json.jsonLines.first)
        #expect(object["event"] as? String == "database" && object["database"] as? String == harness.database.path)
        #expect(object["schemaVersion"] as? String == "v4-spine-boxes" && object["current"] as? Bool == true)
        #expect(object["station"] as? String == "desk-9")
        let stats = try #require(object["stats"] as? [String: Any])
        #expect(stats["ownedItems"] as? Int == 1 && stats["works"] as? Int == 1)
        let text = try await harness.run(["database"])
        #expect(text.stdout.contains("database        \(harness.database.path)") && text.stdout.contains("schema          v4-spine-boxes (current)"), "\(text.stdout)")
        #expect(text.stdout.contains("owned books     1 (of 1 items)"))
        let list = try await harness.run(["library", "list", "--json", "station:desk-9"])
        #expect(list.summary?["count"] as? Int == 1, "\(list.stdout)")
    }
}
