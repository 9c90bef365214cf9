import Foundation
import Testing
import TestSupport

/// `rapidscan spines` and `review` end to end: the loopback server plays the vision model
/// (OpenAI-compatible) and Google Books; a real shelf photo is sent.
@Suite struct SpinesCommandTests {
    static let chat = "/v1/chat/completions"
    static let volumes = "/books/v1/volumes"

    static let modelAnswer = """
        {"spines": [
          {"text": "THE FIFTH ELEMENT  TERRY BISSON", "title": "The Fifth Element", "author": "Terry Bisson", "series": null, "volume": null, "position": 0, "confidence": 0.9, "unreadable": false},
          {"text": "THE FIFTH ELEMENT", "title": "The Fifth Element", "author": null, "series": null, "volume": null, "position": 1, "confidence": 0.7, "unreadable": false},
          {"text": "THE SILENT ORCHARD  MARGOT HALE", "title": "The Silent Orchard", "author": "Margot Hale", "series": null, "volume": null, "position": 2, "confidence": 0.8, "unreadable": false},
          {"text": "", "title": null, "author": null, "series": null, "volume": null, "position": 3, "confidence": 0.0, "unreadable": true}
        ]}
        """

    /// The model's reply (OpenAI chat completions) carrying `modelAnswer`.
    static func chatResponse() throws -> FixtureResponse {
        let content = String(data: try JSONSerialization.data(withJSONObject: [Self.modelAnswer]), encoding: .utf8)!.dropFirst().dropLast()
        return .json(
            #"{"choices":[{"index":0,"message":{"role":"assistant","content":\#(content),"refusal":null},"finish_reason":"stop"}],"usage":{"prompt_tokens":1500,"completion_tokens":120}}"#)
    }

    func prepare(_ harness: CLIHarness) throws -> String {
        harness.server.route(Self.chat, method: "POST", response: try Self.chatResponse())
        let fifth = try FixtureResponse.fixture("googlebooks/volumes_search_intitle_the_fifth_element_10_items.json")
        let none = try FixtureResponse.fixture("googlebooks/volumes_zero_results_no_items_key.json")
        harness.server.route(Self.volumes) { request in
            (request.query("q") ?? "").contains("Fifth Element") ? fifth : none
        }
        harness.extraEnvironment = [
            "RAPIDSCAN_VISION_PROVIDER": "openai",
            "RAPIDSCAN_VISION_URL": harness.server.baseURL.appendingPathComponent("v1").absoluteString,
            "RAPIDSCAN_VISION_MODEL": "shelf-test-model",
            "RAPIDSCAN_VISION_API_KEY_ENV": "SHELF_TEST_KEY",
            "SHELF_TEST_KEY": "sk-e2e-secret-value",
            "RAPIDSCAN_SOURCES": "googleBooks",
        ]
        let photo = try #require(SharedFiles.fixture("shelves/minhan_img1346_top_shelf.jpg"))
        let copy = harness.directory.appendingPathComponent("shelf.jpg")
        if !FileManager.default.fileExists(atPath: copy.path) { try FileManager.default.copyItem(at: photo, to: copy) }
        return copy.path
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func booksLandOnceAndARerunSendsNothing() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        let photo = try prepare(harness)

        let first = try await harness.run("spines", "--json", photo)
        // Unmatched readings (an invented title, an unreadable spine) outrank review: exit 2.
        #expect(first.status == 2, "\(first.stderr)")
        let events = first.jsonLines
        #expect(events.allSatisfy { $0["schema"] as? Int == 1 })
        let added = events.filter { $0["event"] as? String == "added" }
        #expect(added.count == 1)
        #expect(added.first?["isbn13"] as? String == "9780006483465")
        #expect(added.first?["title"] as? String == "The Fifth Element")
        #expect(added.first?["authors"] as? [String] == ["Terry Bisson"])
        #expect(added.first?["decision"] as? String == "strong")
        #expect(added.first?["reading"] as? String == "THE FIFTH ELEMENT  TERRY BISSON")
        #expect(events.filter { $0["event"] as? String == "review" }.count == 1)
        let unmatched = events.filter { $0["event"] as? String == "unmatched" }
        #expect(unmatched.count == 2)
        #expect(unmatched.contains { $0["reading"] as? String == "THE SILENT ORCHARD  MARGOT HALE" && $0["decision"] as? String == "none" })
        let summary = try #require(events.last)
        #expect(summary["event"] as? String == "summary")
        #expect(summary["inputTokens"] as? Int == 1500 && summary["outputTokens"] as? Int == 120)
        #expect(summary["sent"] as? Int == 1)
        #expect(harness.server.requests(to: Self.chat).count == 1)
        let modelRequest = try #require(harness.server.requests(to: Self.chat).first)
        #expect(modelRequest.header("authorization") == "Bearer sk-e2e-secret-value")
        #expect(!first.stdout.contains("sk-e2e-secret-value") && !first.stderr.contains("sk-e2e-secret-value"))
        #expect(try await harness.ownedCount() == 1)

        harness.server.clearRequests()
        let second = try await harness.run("spines", "--json", photo)
        #expect(second.status == 2, "\(second.stderr)")
        #expect(harness.server.requests.isEmpty, "a re-run sent \(harness.server.requests.map(\.path))")
        #expect(second.jsonLines.filter { $0["event"] as? String == "added" }.isEmpty)
        #expect(second.jsonLines.filter { $0["event"] as? String == "alreadyOwned" }.count == 1)
        #expect(second.jsonLines.last?["fromCache"] as? Int == 1)
        #expect(try await harness.ownedCount() == 1)

        let list = try await harness.run("review", "--json")
        #expect(list.status == 6)
        #expect(list.jsonLines.count == 1)
        #expect(list.jsonLines.first?["reading"] as? String == "THE FIFTH ELEMENT")
        let accepted = try await harness.run("review", "--accept-all", "--json")
        #expect([0, 6].contains(accepted.status), "\(accepted.stderr)")
        #expect(try await harness.run("review").status == 0)
        #expect(try await harness.ownedCount() >= 1)
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func dryRunAddsNothingAndBadFlagsAreUsageErrors() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        let photo = try prepare(harness)
        let dry = try await harness.run("spines", "--dry-run", photo)
        #expect(dry.stdout.contains("Would Add"), "\(dry.stdout)\(dry.stderr)")
        #expect(try await harness.ownedCount() == 0)
        #expect(try await harness.run("spines", "--tiles", "0", photo).status == 64)
        #expect(try await harness.run("spines", "--temperature", "3", photo).status == 64)
        #expect(try await harness.run("spines", "--provider", "clippy", photo).status == 64)
        let missing = try await harness.run("spines", "--json", harness.directory.appendingPathComponent("nope.jpg").path)
        #expect(missing.status == 1)
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func exhaustedQuotaStopsAndKeepsPhotosQueued() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        let photo = try prepare(harness)
        harness.server.route(Self.chat, method: "POST", response: try FixtureResponse.fixture("vision/openai/error_429_insufficient_quota.json", status: 429))
        var more: [String] = []
        for name in ["minhan_img1539_bottom_shelf.jpg", "minhan_img1538_top_shelf_dense.jpg"] {
            let copy = harness.directory.appendingPathComponent(name)
            try FileManager.default.copyItem(at: try #require(SharedFiles.fixture("shelves/\(name)")), to: copy)
            more.append(copy.path)
        }
        // Two photos go out at once (maxConcurrentRequests 2); the third is never sent.
        let result = try await harness.run(["spines", "--json", photo] + more)
        #expect(result.status == 3, "\(result.stderr)")
        #expect(harness.server.requests(to: Self.chat).count == 2)
        let summary = try #require(result.jsonLines.last)
        #expect((summary["notSent"] as? [String])?.count == 3)
        #expect(result.jsonLines.filter { $0["event"] as? String == "queued" }.count == 3)
        #expect((summary["stopReason"] as? String)?.contains("quota") == true)
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func ctrlCWhileTheModelThinksExits130AndNothingIsLost() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        let photo = try prepare(harness)
        harness.server.neverAnswer(Self.chat, method: "POST")
        let running = try await harness.start(["spines", "--json", photo])
        try await running.waitFor("the model request") { _ in !harness.server.requests(to: Self.chat).isEmpty }
        running.signal(SIGINT)
        let result = await running.finish()
        #expect(result.status == 130, "\(result.stderr)")
        let summary = try #require(result.jsonLines.last)
        #expect(summary["interrupted"] as? Bool == true)
        #expect(result.jsonLines.filter { $0["event"] as? String == "failed" }.isEmpty, "an interrupted request is no failure")
        // The photo was not answered: the next run sends it.
        harness.server.removeAllRoutes()
        _ = try prepare(harness)
        harness.server.clearRequests()
        let again = try await harness.run("spines", "--json", photo)
        #expect(harness.server.requests(to: Self.chat).count == 1)
        #expect(again.jsonLines.filter { $0["event"] as? String == "added" }.count == 1)
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func anOfflineRunDoesNotSettleWhatItCouldNotSearch() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        let photo = try prepare(harness)
        let offline = try await harness.run("spines", "--json", "--offline", photo)
        #expect(offline.status == 2)
        #expect(harness.server.requests(to: Self.volumes).isEmpty)
        #expect(offline.jsonLines.filter { $0["event"] as? String == "added" }.isEmpty)
        let online = try await harness.run("spines", "--json", photo)
        #expect(online.jsonLines.filter { $0["event"] as? String == "added" }.count == 1)
        #expect(harness.server.requests(to: Self.chat).count == 1, "the reply came from the cache the second time")
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func readingsNoSourceCouldSearchAreQueuedAndTheSameCommandSettlesThemLater() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        let photo = try prepare(harness)
        try harness.server.replay(Self.volumes, fixture: "googlebooks/error_503_backend_failed.json", status: 503)
        let down = try await harness.run("spines", photo)
        #expect(down.status == 3, "\(down.stderr)")
        #expect(down.stdout.contains("Queued"))
        #expect(down.stderr.contains("queued: no source could answer; run `rapidscan spines` on the same photos again"), "\(down.stderr)")
        _ = try prepare(harness)
        let up = try await harness.run("spines", "--json", photo)
        #expect(up.jsonLines.filter { $0["event"] as? String == "added" }.count == 1)
        #expect(harness.server.requests(to: Self.chat).count == 1, "the photo's reading was kept")
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aPromptTemplateIsSentAndANewPromptIsANewCacheKey() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        let photo = try prepare(harness)
        let template = harness.directory.appendingPathComponent("spines.mustache")
        try "Shelf photo {{imageName}}: list every spine in {{languages}} as JSON {{{schema}}}".write(to: template, atomically: true, encoding: .utf8)
        _ = try await harness.run("spines", "--json", "--prompt", template.path, "--languages", "German,English", photo)
        let body = try #require(harness.server.requests(to: Self.chat).first?.body)
        let sent = String(decoding: body, as: UTF8.self)
        #expect(sent.contains("Shelf photo shelf.jpg: list every spine in German or English as JSON"))
        // Same photo, same prompt: from the cache. Another prompt (the built-in one): sent again.
        _ = try await harness.run("spines", "--json", "--prompt", template.path, "--languages", "German,English", photo)
        #expect(harness.server.requests(to: Self.chat).count == 1)
        _ = try await harness.run("spines", "--json", photo)
        #expect(harness.server.requests(to: Self.chat).count == 2)
        let broken = harness.directory.appendingPathComponent("broken.mustache")
        try "{{#open}} never closed".write(to: broken, atomically: true, encoding: .utf8)
        let bad = try await harness.run("spines", "--prompt", broken.path, photo)
        #expect(bad.status == 70)
        #expect(bad.stderr.contains("broken.mustache"))
    }
}
