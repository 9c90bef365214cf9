import Foundation
import Testing
import TestSupport

/// `rapidscan spines` says when a source's pacing is what the user waits for: Open Library
/// without a contact answers one request a second, and the progress display and the summary
/// say so and how to triple it. Real binary, real pacing, loopback model and sources.
@Suite struct SpinesPacingCLITests {
    static let answer = """
        {"spines": [
          {"text": "THE SILENT ORCHARD  MARGOT HALE", "title": "The Silent Orchard", "author": "Margot Hale", "series": null, "volume": null, "position": 0, "confidence": 0.9, "unreadable": false},
          {"text": "A QUIET HARBOUR  TOMAS VEGA", "title": "A Quiet Harbour", "author": "Tomas Vega", "series": null, "volume": null, "position": 1, "confidence": 0.9, "unreadable": false},
          {"text": "ERHRKRSERE", "title": null, "author": null, "series": null, "volume": null, "position": 2, "confidence": 0.9, "unreadable": false}
        ]}
        """

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func waitingForOpenLibrarysPaceIsSaid() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        let content = String(data: try JSONSerialization.data(withJSONObject: [Self.answer]), encoding: .utf8)!.dropFirst().dropLast()
        harness.server.route(SpinesCommandTests.chat, method: "POST", response: .json(
            #"{"choices":[{"index":0,"message":{"role":"assistant","content":\#(content),"refusal":null},"finish_reason":"stop"}],"usage":{"prompt_tokens":900,"completion_tokens":80}}"#))
        harness.server.route(SpinesCommandTests.volumes, response: try FixtureResponse.fixture("googlebooks/volumes_zero_results_no_items_key.json"))
        harness.server.route("/search.json", response: .json(#"{"numFound":0,"start":0,"docs":[]}"#))
        harness.extraEnvironment = [
            "RAPIDSCAN_VISION_PROVIDER": "openai",
            "RAPIDSCAN_VISION_URL": harness.server.baseURL.appendingPathComponent("v1").absoluteString,
            "RAPIDSCAN_VISION_MODEL": "shelf-test-model",
            "RAPIDSCAN_SOURCES": "googleBooks,openLibrary",
            "RAPIDSCAN_CONTACT": "",
        ]
        let photo = try #require(SharedFiles.fixture("shelves/minhan_img1346_top_shelf.jpg"))

        let run = try await harness.runOnTerminal(["spines", "--dry-run", photo.path], environment: [:])
        let output = run.stdout + run.stderr
        #expect(output.contains("waiting for Open Library: 1 request/s without a contact; set [sources.openLibrary] contact for 3/s"), "\(output)")
        #expect(output.contains("s for Open Library ("), "\(output)")
        // Each title asked Open Library with its author, then alone (neighbour joins may ask more),
        // each search once; the junk never.
        let searches = harness.server.requests(to: "/search.json")
        #expect(searches.count >= 4, "\(searches.map(\.rawQuery))")
        #expect(Set(searches.map(\.rawQuery)).count == searches.count)
        #expect(!harness.server.requests.contains { $0.rawQuery.localizedCaseInsensitiveContains("erhrk") })
        #expect(searches.allSatisfy { !($0.header("user-agent") ?? "").contains("(") }, "no contact in the User-Agent")
    }
}
