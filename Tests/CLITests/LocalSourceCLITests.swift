import Foundation
import Testing
import TestSupport

/// `rapidscan sources load`, `sources` and lookups answered by the loaded dump, through the
/// real binary, with both network sources pointed at a port nothing listens on.
@Suite struct LocalSourceCLITests {
    /// A harness whose sources point at a stopped server: any network request fails.
    static func offlineHarness() async throws -> CLIHarness {
        let harness = try await CLIHarness.started()
        await harness.server.stop()
        return harness
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped))
    func aLoadedDumpAnswersLookupsWithTheNetworkDownAndOffline() async throws {
        try SharedFiles.requireShared()
        let harness = try await Self.offlineHarness()
        let dump = try await GeneratedDump.generate(
            ["--catalogue", GeneratedDump.catalogue, "--limit", "30", "--filler", "20", "--malformed", "--gzip"],
            to: harness.directory.appendingPathComponent("ol_dump_2024-02-01.txt.gz"))

        let load = try await harness.run("sources", "load", dump.file.path)
        // Malformed rows are input errors (1); every other row is loaded.
        #expect(load.status == 1, "\(load.stderr)")
        for (line, _) in dump.malformed {
            #expect(load.stderr.contains("ol_dump_2024-02-01.txt.gz:\(line): malformed row skipped"), "line \(line): \(load.stderr)")
        }
        #expect(load.stderr.contains("not UTF-8") && load.stderr.contains("broken JSON") && load.stderr.contains("4 tab-separated columns"))
        #expect(load.stdout.contains("5 malformed"), "\(load.stdout)")

        let again = try await harness.run("sources", "load", dump.file.path)
        #expect(again.status == 0 && again.stdout.contains("already loaded"), "\(again.stdout)\(again.stderr)")

        let listed = try await harness.run("sources")
        #expect(listed.status == 0, "\(listed.stderr)")
        let lines = listed.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("1. localDump") == true, "\(listed.stdout)")
        #expect(lines.contains { $0.hasPrefix("2. googleBooks") } && lines.contains { $0.hasPrefix("3. openLibrary") })
        #expect(listed.stdout.contains("dump of 2024-02-01: "), "\(listed.stdout)")
        let json = try await harness.run("sources", "--json")
        let local = try #require(json.jsonLines.first)
        #expect(local["name"] as? String == "localDump" && local["network"] as? Bool == false)
        let counts = try #require(local["local"] as? [String: Any])
        #expect((counts["editions"] as? Int ?? 0) >= 50)

        // Goodbooks row 0 is in the dump under its ISBN-10 only, its author on the work only.
        let online = try await harness.run("lookup", "9780439023481")
        #expect(online.status == 0, "\(online.stdout)\(online.stderr)")
        #expect(online.stdout.contains("The Hunger Games (The Hunger Games, #1) — Suzanne Collins"), "\(online.stdout)")
        #expect(online.stdout.contains("from the local Open Library dump"), "\(online.stdout)")
        let offline = try await harness.run("lookup", "--offline", "--json", "9781594480003")
        #expect(offline.status == 0, "\(offline.stdout)\(offline.stderr)")
        let work = try #require(offline.jsonLines.first?["work"] as? [String: Any])
        #expect(work["title"] as? String == "The Kite Runner")
        #expect(work["authors"] as? [String] == ["Khaled Hosseini"])
        // Not in the dump, offline: unavailable, never "not found".
        let missing = try await harness.run("lookup", "--offline", "9780306406157")
        #expect(missing.stdout.contains("Not in the local cache"), "\(missing.stdout)")
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped))
    func aLoadKilledPartWayGoesOnFromWhereItStopped() async throws {
        try SharedFiles.requireShared()
        let harness = try await Self.offlineHarness()
        let dump = try await GeneratedDump.generate(["--filler", "12000"], to: harness.directory.appendingPathComponent("filler.txt"))

        let running = try await harness.start(["sources", "load", "--batch-size", "100", dump.file.path])
        // Wait for the first batches to be stored, then kill -9.
        var stored = 0
        for _ in 0..<600 where stored == 0 {
            let state = try await harness.run("sources", "--json")
            let local = state.jsonLines.first?["local"] as? [String: Any]
            stored = local?["editions"] as? Int ?? 0
            if stored == 0 { try await Task.sleep(for: .milliseconds(100)) }
        }
        running.signal(SIGKILL)
        let killed = await running.finish(within: .seconds(60))
        #expect(killed.result.status == SIGKILL, "the load ended before it was killed: \(killed.result.stdout)")
        #expect(stored > 0 && stored < 12_003)

        let resumed = try await harness.run("sources", "load", dump.file.path)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.contains("12006 lines (resumed after line "), "\(resumed.stdout)")
        // Every edition with an ISBN once: the 3 real ones and the 12,000 filler editions.
        let state = try await harness.run("sources", "--json")
        let local = try #require(state.jsonLines.first?["local"] as? [String: Any])
        #expect(local["editions"] as? Int == 12_003)
        let lookup = try await harness.run("lookup", "--offline", "0-7432-7356-7")
        #expect(lookup.stdout.contains("The Great Gatsby"), "\(lookup.stdout)")
    }
}
