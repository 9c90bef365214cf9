import BookMetadata
import Foundation
import TestSupport
import Testing
@testable import Vision
@testable import Imaging

/// Each provider over real HTTP against the loopback server, with every recorded reply and failure.
@Suite(.serialized) struct ProviderTests {
    static let paths: [VisionProvider: String] = [
        .openai: "/v1/chat/completions", .ollama: "/api/chat",
        .gemini: "/v1beta/models/gemini-2.0-flash:generateContent", .anthropic: "/v1/messages",
    ]

    func withHarness(_ body: (VisionHarness) async throws -> Void) async throws {
        try SharedFiles.requireShared()
        let harness = try VisionHarness()
        try await harness.start()
        do { try await body(harness) } catch { await harness.stop(); throw error }
        await harness.stop()
    }

    @Test(arguments: VisionProvider.allCases)
    func aShelfAnswerBecomesReadings(provider: VisionProvider) async throws {
        try await withHarness { h in
            h.route(Self.paths[provider]!, provider: provider, responses: [VisionHarness.envelope(provider, text: VisionHarness.shelfAnswer)])
            let shelf = try await h.reader(provider).readSpines(in: h.photo)
            #expect(shelf.readings.count == 3)
            #expect(shelf.readings[0].title == "Dune")
            #expect(shelf.readings[0].author == "Frank Herbert")
            #expect(shelf.readings[1].unreadable)
            #expect(shelf.readings[2].volume == "7")
            #expect(shelf.usage == TokenUsage(input: 900, output: 80))
            #expect(!shelf.truncated)
            #expect(h.server.requests.count == 1)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func tilesAreSentSeparatelyAndMerged() async throws {
        try await withHarness { h in
            let left = #"{"spines": [{"text": "DUNE", "title": "Dune", "position": 0}, {"text": "EMMA", "title": "Emma", "position": 1}]}"#
            let right = #"{"spines": [{"text": "EMMA", "title": "Emma", "position": 0}, {"text": "ULYSSES", "title": "Ulysses", "position": 1, "box": [[0.5, 0.1], [0.5, 0.9], [0.45, 0.9], [0.45, 0.1]]}]}"#
            // 3000×1200 in two tiles overlapping by a fifth: 1667×1200 each, scaled to 1024×737.
            // Tiles are sent concurrently: answer each by the tile its prompt names.
            h.server.route(Self.paths[.ollama]!, method: "POST") { request in
                if let problem = VisionHarness.problem(with: request, provider: .ollama, size: (1024, 737)) {
                    return .json("{\"error\": \"harness: \(problem)\"}", status: 418)
                }
                let tile = String(decoding: request.body, as: UTF8.self).contains("tile 1 of 2") ? left : right
                return VisionHarness.envelope(.ollama, text: tile)
            }
            let shelf = try await h.reader(.ollama, key: nil, tiles: 2).readSpines(in: h.photo)
            #expect(shelf.readings.map(\.title) == ["Dune", "Emma", "Ulysses"])
            #expect(shelf.usage == TokenUsage(input: 1800, output: 160))
            // A box in the right tile's fractions lands on the whole photo: the tile starts 1333 px
            // into the 3000 px photo, so the spine's first corner is at (1333 + 0.5 × 1667) / 3000.
            let box = try #require(shelf.readings.last?.box)
            #expect(box.height == 737 && abs(Double(box.width) - 3000 * 1024 / 1667) < 1.5, "\(box)")
            #expect(abs(box.corners[0].x / Double(box.width) - (1333 + 0.5 * 1667) / 3000) < 0.002, "\(box)")
            #expect(abs(box.corners[1].y / Double(box.height) - 0.9) < 0.002 && shelf.readings.first?.box == nil, "\(box)")
            #expect(h.server.requests.count == 2)
            let prompts = h.server.requests.compactMap { String(data: $0.body, encoding: .utf8) }
            #expect(prompts.contains { $0.contains("tile 1 of 2") } && prompts.contains { $0.contains("tile 2 of 2") })
        }
    }

    // MARK: OpenAI

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func openAIFencedJSONAndUsage() async throws {
        try await withHarness { h in
            h.route(Self.paths[.openai]!, provider: .openai, responses: [try h.fixture("openai/chat_completions_response_json_in_code_fence.json")])
            let shelf = try await h.reader(.openai).readSpines(in: h.photo)
            #expect(shelf.readings.map(\.title) == ["The Left Hand of Darkness"])
            #expect(shelf.readings.first?.author == "Ursula K. Le Guin")
            #expect(shelf.usage == TokenUsage(input: 1128, output: 54))
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func openAITruncatedKeepsWhatClosedAndSaysSo() async throws {
        try await withHarness { h in
            h.route(Self.paths[.openai]!, provider: .openai, responses: [try h.fixture("openai/chat_completions_response_truncated_finish_length.json")])
            let shelf = try await h.reader(.openai).readSpines(in: h.photo)
            #expect(shelf.truncated)
            #expect(shelf.readings.isEmpty)
            #expect(shelf.usage.output == 20)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func openAIRefusalNamesThePhoto() async throws {
        try await withHarness { h in
            h.route(Self.paths[.openai]!, provider: .openai, responses: [try h.fixture("openai/chat_completions_response_refusal.json")])
            await #expect(throws: VisionError.refused(photo: "photos/shelf-1.jpg", message: "I'm sorry, I cannot assist with that request.")) {
                try await h.reader(.openai).readSpines(in: h.photo)
            }
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func openAIProseIsNoReadingsAndHeadersAreHarmless() async throws {
        try await withHarness { h in
            let headerFile = try JSONSerialization.jsonObject(with: try h.fixture("openai/chat_completions_vision_response_headers.json").body) as! [String: Any]
            var headers: [String: String] = [:]
            for (name, values) in headerFile["headers"] as! [String: [String]] { headers[name] = values.first }
            h.route(Self.paths[.openai]!, provider: .openai, responses: [try h.fixture("openai/chat_completions_vision_response_gpt-4o-2024-08-06.json", headers: headers)])
            do {
                _ = try await h.reader(.openai).readSpines(in: h.photo)
                Issue.record("prose was taken for readings")
            } catch let error as VisionError {
                guard case .noReadings(let photo, let excerpt) = error else { Issue.record("\(error)"); return }
                #expect(photo == "photos/shelf-1.jpg")
                #expect(excerpt.hasPrefix("The image shows a scenic landscape"))
            }
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func openAIQuotaExhaustedStopsWithoutRetrying() async throws {
        try await withHarness { h in
            h.route(Self.paths[.openai]!, provider: .openai, responses: [try h.fixture("openai/error_429_insufficient_quota.json", status: 429)])
            do {
                _ = try await h.reader(.openai).readSpines(in: h.photo)
                Issue.record("quota error not thrown")
            } catch let error as VisionError {
                guard case .quotaExhausted = error else { Issue.record("\(error)"); return }
                #expect(error.stopsRun)
                #expect(!error.description.contains("sk-test-secret"))
            }
            #expect(h.server.requests.count == 1)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func openAIRateLimitIsRetried() async throws {
        try await withHarness { h in
            h.route(Self.paths[.openai]!, provider: .openai, responses: [
                try h.fixture("openai/error_429_rate_limit_exceeded_tokens.json", status: 429, headers: ["Retry-After": "2"]),
                VisionHarness.envelope(.openai, text: VisionHarness.shelfAnswer),
            ])
            let shelf = try await h.reader(.openai).readSpines(in: h.photo)
            #expect(shelf.readings.count == 3)
            #expect(h.server.requests.count == 2)
            #expect(await h.sleeps.all == [2])
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aRetryAfterLongerThanAnyBackOffIsNotWaitedAndStopsTheRun() async throws {
        try await withHarness { h in
            h.route(Self.paths[.openai]!, provider: .openai, responses: [
                try h.fixture("openai/error_429_rate_limit_exceeded_tokens.json", status: 429, headers: ["Retry-After": "999999"]),
            ])
            do {
                _ = try await h.reader(.openai).readSpines(in: h.photo)
                Issue.record("a rate limit asking for days was taken for an answer")
            } catch let error as VisionError {
                guard case .rateLimited(_, let retryAt?) = error else { Issue.record("\(error)"); return }
                #expect(retryAt > Date().addingTimeInterval(999_000))
                #expect(error.stopsRun)
                #expect(error.description.contains("asks to wait 99999"), "\(error)")
            }
            #expect(h.server.requests.count == 1)
            #expect(await h.sleeps.all.isEmpty)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aKeyQuotedBackInAnErrorIsRedacted() async throws {
        try await withHarness { h in
            let escaped = "sk-test-secret".unicodeScalars.map { String(format: "\\u%04x", $0.value) }.joined()
            h.route(Self.paths[.anthropic]!, provider: .anthropic, responses: [
                .json(#"{"error": {"type": "authentication_error", "message": "invalid x-api-key \#(escaped) (sk-test-secret)"}}"#, status: 401),
            ])
            do {
                _ = try await h.reader(.anthropic).readSpines(in: h.photo)
                Issue.record("no error")
            } catch let error as VisionError {
                #expect(error.description == "anthropic: request rejected with HTTP 401 (invalid x-api-key REDACTED (REDACTED))")
            }
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func openAICompatibleServerWithoutSchemaSupportIsAskedAgainWithoutIt() async throws {
        try await withHarness { h in
            // A server that refuses json_schema and answers once it is left out.
            h.server.route(Self.paths[.openai]!, method: "POST") { request in
                let body = (try? JSONSerialization.jsonObject(with: request.body) as? [String: Any]) ?? [:]
                return body["response_format"] == nil
                    ? VisionHarness.envelope(.openai, text: VisionHarness.shelfAnswer)
                    : .json(#"{"error": {"message": "'response_format.type' must be 'json_object' or 'text'"}}"#, status: 400)
            }
            let shelf = try await h.reader(.openai).readSpines(in: h.photo)
            #expect(shelf.readings.count == 3)
            #expect(h.server.requests.count == 2)
        }
    }

    // MARK: Anthropic

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func anthropicTextReply() async throws {
        try await withHarness { h in
            h.route(Self.paths[.anthropic]!, provider: .anthropic, responses: [try h.fixture("anthropic/messages_response_text.json")])
            let shelf = try await h.reader(.anthropic).readSpines(in: h.photo)
            #expect(shelf.readings.map(\.title) == ["The Left Hand of Darkness"])
            #expect(shelf.usage == TokenUsage(input: 1568, output: 31))
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func anthropicMaxTokensIsTruncated() async throws {
        try await withHarness { h in
            h.route(Self.paths[.anthropic]!, provider: .anthropic, responses: [try h.fixture("anthropic/messages_response_max_tokens_truncated_fenced.json")])
            let shelf = try await h.reader(.anthropic).readSpines(in: h.photo)
            #expect(shelf.truncated)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func anthropic429WithRetryAfterThen529ThenSuccess() async throws {
        try await withHarness { h in
            var limited = try h.fixture("anthropic/error_429_headers.http")
            limited.body = try h.fixture("anthropic/error_429_rate_limit_error.json").body
            h.route(Self.paths[.anthropic]!, provider: .anthropic, responses: [
                limited,
                try h.fixture("anthropic/error_529_overloaded_error.json", status: 529),
                VisionHarness.envelope(.anthropic, text: VisionHarness.shelfAnswer),
            ])
            let shelf = try await h.reader(.anthropic).readSpines(in: h.photo)
            #expect(shelf.readings.count == 3)
            #expect(h.server.requests.count == 3)
            let delays = await h.sleeps.all
            #expect(delays.count == 2)
            #expect(delays.first == 12)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func anthropicOverloadedEveryTimeFailsAfterRetries() async throws {
        try await withHarness { h in
            h.route(Self.paths[.anthropic]!, provider: .anthropic, responses: [try h.fixture("anthropic/error_529_overloaded_error.json", status: 529)])
            await #expect(throws: VisionError.server(provider: "anthropic", status: 529, message: "Overloaded")) {
                try await h.reader(.anthropic, retries: 2).readSpines(in: h.photo)
            }
            #expect(h.server.requests.count == 3)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func anthropicImageTooLargeIsARequestError() async throws {
        try await withHarness { h in
            h.route(Self.paths[.anthropic]!, provider: .anthropic, responses: [try h.fixture("anthropic/error_400_image_too_large.json", status: 400)])
            do {
                _ = try await h.reader(.anthropic).readSpines(in: h.photo)
                Issue.record("no error")
            } catch let error as VisionError {
                guard case .request(_, 400, let message) = error else { Issue.record("\(error)"); return }
                #expect(message.contains("image exceeds 5 MB"))
            }
            #expect(h.server.requests.count == 1)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func anthropicWithoutKeyFailsBeforeSending() async throws {
        try await withHarness { h in
            await #expect(throws: VisionError.missingAPIKey(provider: "anthropic", variable: "ANTHROPIC_API_KEY")) {
                try await h.reader(.anthropic, key: nil).readSpines(in: h.photo)
            }
            #expect(h.server.requests.isEmpty)
        }
    }

    // MARK: Gemini

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func geminiProseAndUsage() async throws {
        try await withHarness { h in
            h.route(Self.paths[.gemini]!, provider: .gemini, responses: [try h.fixture("gemini/generateContent_response_gemini-2.0-flash_generativelanguage.json")])
            await #expect(throws: VisionError.noReadings(photo: "photos/shelf-1.jpg", excerpt: "Pong pong")) {
                try await h.reader(.gemini).readSpines(in: h.photo)
            }
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func geminiVertexFormUsesBearerAndProjectPath() async throws {
        try await withHarness { h in
            let base = h.server.baseURL.appendingPathComponent("v1/projects/shelf-project/locations/europe-west4")
            let path = "/v1/projects/shelf-project/locations/europe-west4/publishers/google/models/gemini-1.5-flash:generateContent"
            h.route(path, provider: .gemini, responses: [
                try h.fixture("gemini/error_429_vertex_resource_exhausted_array_wrapped.json", status: 429),
                try h.fixture("gemini/generateContent_response_gemini-1.5-flash_vertexai_safetyRatings.json"),
            ])
            await #expect(throws: VisionError.noReadings(photo: "photos/shelf-1.jpg", excerpt: "Pong! 🏓")) {
                try await h.reader(.gemini, baseURL: base, model: "gemini-1.5-flash").readSpines(in: h.photo)
            }
            #expect(h.server.requests.count == 2)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func geminiTruncatedAndBlocked() async throws {
        try await withHarness { h in
            h.route(Self.paths[.gemini]!, provider: .gemini, responses: [
                try h.fixture("gemini/generateContent_response_max_tokens_truncated_fenced.json"),
                try h.fixture("gemini/generateContent_response_prompt_blocked_no_candidates.json"),
            ])
            let reader = h.reader(.gemini)
            let shelf = try await reader.readSpines(in: h.photo)
            #expect(shelf.truncated)
            #expect(shelf.usage == TokenUsage(input: 283, output: 20))
            await #expect(throws: VisionError.blocked(photo: "photos/shelf-1.jpg", reason: "SAFETY")) {
                try await reader.readSpines(in: h.photo)
            }
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func geminiRetryInfoAndRegionalLimitAreRetried() async throws {
        try await withHarness { h in
            h.route(Self.paths[.gemini]!, provider: .gemini, responses: [
                try h.fixture("gemini/error_429_free_tier_quotafailure_retryinfo.json", status: 429),
                try h.fixture("gemini/error_429_rate_limit_exceeded_errorinfo_per_region.json", status: 429),
                VisionHarness.envelope(.gemini, text: VisionHarness.shelfAnswer),
            ])
            let shelf = try await h.reader(.gemini).readSpines(in: h.photo)
            #expect(shelf.readings.count == 3)
            #expect(h.server.requests.count == 3)
            #expect(await h.sleeps.all.first == 37)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func geminiExhaustedQuotaAndLocationErrors() async throws {
        try await withHarness { h in
            h.route(Self.paths[.gemini]!, provider: .gemini, responses: [
                try h.fixture("gemini/error_429_resource_exhausted_quota_help_only.json", status: 429),
                try h.fixture("gemini/error_400_user_location_not_supported.json", status: 400),
            ])
            let reader = h.reader(.gemini)
            do {
                _ = try await reader.readSpines(in: h.photo)
                Issue.record("no quota error")
            } catch let error as VisionError {
                guard case .quotaExhausted = error else { Issue.record("\(error)"); return }
            }
            await #expect(throws: VisionError.request(provider: "gemini", status: 400, message: "User location is not supported for the API use.")) {
                try await reader.readSpines(in: h.photo)
            }
            #expect(h.server.requests.count == 2)
        }
    }

    // MARK: Ollama

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func ollamaStructuredAndProseReplies() async throws {
        try await withHarness { h in
            h.route(Self.paths[.ollama]!, provider: .ollama, responses: [
                try h.fixture("ollama/api_chat_response_structured_format_content_is_json_string.json"),
                try h.fixture("ollama/api_chat_response_llava_with_images_nonstream.json"),
            ])
            let reader = h.reader(.ollama, key: nil)
            // JSON, but not about spines (a schema from another app): no readings, said clearly.
            await #expect(throws: VisionError.noReadings(photo: "photos/shelf-1.jpg", excerpt: #"{"age": 22, "available": false}"#)) {
                try await reader.readSpines(in: h.photo)
            }
            await #expect(throws: VisionError.self) { try await reader.readSpines(in: h.photo) }
            #expect(h.server.requests.count == 2)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func ollamaUnknownModel() async throws {
        try await withHarness { h in
            h.route(Self.paths[.ollama]!, provider: .ollama, responses: [try h.fixture("ollama/error_404_model_not_found.json", status: 404)])
            await #expect(throws: VisionError.request(provider: "ollama", status: 404, message: "model \"llava\" not found, try pulling it first")) {
                try await h.reader(.ollama, key: nil).readSpines(in: h.photo)
            }
        }
    }

    // MARK: Request shapes match the recorded requests

    @Test(arguments: [
        (VisionProvider.openai, "openai/chat_completions_request_data_uri_json_schema.json"),
        (VisionProvider.ollama, "ollama/api_chat_request_with_images_format_schema.json"),
        (VisionProvider.gemini, "gemini/generateContent_request_image_inline_data_json_schema.json"),
        (VisionProvider.anthropic, "anthropic/messages_request_image_base64.json"),
    ])
    func requestHasTheRecordedShape(provider: VisionProvider, fixture: String) async throws {
        guard let url = SharedFiles.fixture("vision/\(fixture)") else { return }
        let recorded = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        let settings = VisionSettings(provider: provider, apiKey: "k")
        let request = try ProviderAPI(settings: settings).request(prompt: "p", jpeg: Data([0xFF, 0xD8, 0xFF, 0xD9]))
        let ours = try JSONSerialization.jsonObject(with: request.body) as! [String: Any]
        #expect(Self.shape(ours["messages"] ?? ours["contents"]) == Self.shape(recorded["messages"] ?? recorded["contents"]),
                "message structure differs from \(fixture)")
        for key in recorded.keys where !["temperature", "generationConfig", "response_format", "format", "stream", "max_tokens"].contains(key) {
            #expect(ours[key] != nil, "\(fixture) has \(key), our request does not")
        }
    }

    /// Keys and types, not values; arrays by their first element; content order ignored.
    static func shape(_ value: Any?) -> String {
        switch value {
        case let object as [String: Any]:
            return "{" + object.keys.sorted().map { "\($0):\(shape(object[$0]))" }.joined(separator: ",") + "}"
        case let list as [Any]:
            return "[" + Set(list.map { shape($0) }).sorted().joined(separator: "|") + "]"
        case is String: return "s"
        case is NSNumber: return "n"
        default: return "?"
        }
    }
}

@Suite struct ReplyParserTests {
    @Test func prosePartialAndBareLists() {
        let cut = ReplyParser.parse(#"Sure! [{"title": "Dune", "author": "Frank Herbert"}, {"title": "Emma", "auth"#)
        #expect(cut?.incomplete == true)
        #expect(cut?.readings.map(\.title) == ["Dune"])
        let bare = ReplyParser.parse(#"["Dune by Frank Herbert", "Emma"]"#)
        #expect(bare?.readings.map(\.text) == ["Dune by Frank Herbert", "Emma"])
        let nested = ReplyParser.parse(#"I see [two] books: {"books": [{"title": "Emma", "authors": ["Jane Austen"], "confidence": 90}]} done"#)
        #expect(nested?.readings.first?.author == "Jane Austen")
        #expect(nested?.readings.first?.confidence == 0.9)
        #expect(ReplyParser.parse("No books are visible.") == nil)
    }

    /// A spine's box as models give it: four corners in reading order, a rectangle in
    /// fractions, or the pixels of the image sent; anything else is none, never a guess.
    @Test func aSpinesBoxIsReadInEachShapeAModelGivesItAndOtherwiseIsNone() throws {
        let image = (width: 1000, height: 500)
        func box(_ value: String) -> SpineBox? {
            ReplyParser.parse(#"{"spines": [{"text": "DUNE", "box": \#(value)}]}"#, image: image)?.readings.first?.box
        }
        // Four corners of a leaning spine read top to bottom, in fractions: the image's pixels.
        let corners = try #require(box("[[0.52, 0.1], [0.5, 0.9], [0.46, 0.9], [0.48, 0.1]]"))
        #expect(corners.width == 1000 && corners.height == 500)
        #expect(corners.corners == [.init(x: 520, y: 50), .init(x: 500, y: 450), .init(x: 460, y: 450), .init(x: 480, y: 50)])
        // A tall rectangle [x, y, w, h] is taken as read top to bottom: its first corner is its top right.
        let tall = try #require(box("[0.1, 0.2, 0.05, 0.6]"))
        #expect(tall.corners.first == .init(x: 150, y: 100) && tall.corners[2] == .init(x: 100, y: 400))
        #expect(abs(tall.readingWidth - 300) < 0.01 && abs(tall.readingHeight - 50) < 0.01)
        // An object, and pixels of the image sent.
        #expect(box(#"{"x": 100, "y": 50, "width": 300, "height": 40}"#)?.corners.first == .init(x: 100, y: 50))
        // Off the image, too few numbers, no size, text: none.
        for bad in ["[[0.5, 0.1], [0.5, 0.9], [0.4, 0.9]]", "[0.1, 0.2, 0.0, 0.6]", "[100, 50, 3000, 40]", #""left""#, "null",
                    "[[1, 2], [3, 4], [5, 6], [7, \"x\"]]", "[0.1, 0.2, 0.3, true]"] {
            #expect(box(bad) == nil, "\(bad)")
        }
        // Pixels need the image's size; fractions do not.
        #expect(ReplyParser.parse(#"[{"text": "DUNE", "box": [100, 50, 300, 40]}]"#)?.readings.first?.box == nil)
        #expect(ReplyParser.parse(#"[{"text": "DUNE", "box": [0.1, 0.1, 0.3, 0.04]}]"#)?.readings.first?.box != nil)
        // A reply cached with its box reads back with it; one cached before boxes reads as none.
        let reading = SpineReading(text: "DUNE", box: corners)
        #expect(try JSONDecoder().decode(SpineReading.self, from: JSONEncoder().encode(reading)).box == corners)
        #expect(try JSONDecoder().decode(SpineReading.self, from: Data(#"{"text": "DUNE", "unreadable": false}"#.utf8)).box == nil)
    }

    @Test func deepOrEndlessBracketsFailFast() {
        // 200,000 nested "[" (never closed, then closed) and 100,000 empty objects: each byte is
        // looked at a bounded number of times, so these end at once (they took minutes).
        #expect(ReplyParser.parse(String(repeating: "[", count: 200_000)) == nil)
        #expect(ReplyParser.parse(String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000)) == nil)
        #expect(ReplyParser.parse(String(repeating: "{}", count: 100_000)) == nil)
        // A list longer than a shelf: only its first entries are parsed, the rest counted.
        let crowded = ReplyParser.parse("Here: {\"spines\": [" + (0..<1000).map { #"{"title": "Book \#($0)"}"# }.joined(separator: ",") + "]} done")
        #expect(crowded?.readings.count == ReplyLimits.maxReadings && crowded?.dropped == 1000 - ReplyLimits.maxReadings)
        #expect(crowded?.readings.last?.title == "Book \(ReplyLimits.maxReadings - 1)" && crowded?.incomplete == false)
        // Nesting a spine list needs stays readable.
        let nested = ReplyParser.parse(#"{"result": {"shelf": {"spines": [{"title": "Emma", "author": "Jane Austen"}]}}}"#)
        #expect(nested?.readings.first?.title == "Emma")
    }

    @Test func repliesAreBoundedAndWhatWasCutIsCounted() {
        let long = String(repeating: "Title ", count: 10_000)
        var readings = (0..<1000).map { SpineReading(text: "Book \($0)") }
        readings[3] = SpineReading(text: long, title: long, author: "A")
        let bounded = ReplyLimits.apply(ShelfReading(readings: readings))
        #expect(bounded.readings.count == ReplyLimits.maxReadings)
        #expect(bounded.dropped == 1000 - ReplyLimits.maxReadings)
        #expect(bounded.shortened == 1)
        #expect(bounded.readings[3].text.count == ReplyLimits.maxCharacters && bounded.readings[3].title?.count == ReplyLimits.maxCharacters)
        #expect(bounded.readings[3].author == "A" && bounded.readings[4].text == "Book 4")
        // Tiles: each bounded, then the photo.
        let other = ReplyLimits.apply(ShelfReading(readings: (0..<400).map { SpineReading(text: "Other \($0)") }))
        let merged = ReplyLimits.apply(ShelfImage.merge([bounded, other]))
        #expect(merged.readings.count == ReplyLimits.maxReadings)
        #expect(merged.dropped == bounded.dropped + 400 && merged.shortened == 1)
    }

    @Test func tilesMergeSpinesSeenTwice() {
        let left = ShelfReading(readings: [SpineReading(text: "Dune", title: "Dune", position: 0), SpineReading(text: "Emma", title: "Emma", position: 1)],
                                usage: TokenUsage(input: 10, output: 5))
        let right = ShelfReading(readings: [SpineReading(text: "EMMA", title: "Emma", position: 0), SpineReading(text: "Ulysses", position: 1)],
                                 usage: TokenUsage(input: 10, output: 5), truncated: true)
        let merged = ShelfImage.merge([left, right])
        #expect(merged.readings.map(\.text) == ["Dune", "Emma", "Ulysses"])
        // Two copies side by side in one tile are two books.
        let twice = ShelfReading(readings: [SpineReading(text: "Emma", title: "Emma", position: 0), SpineReading(text: "Emma", title: "Emma", position: 1)])
        #expect(ShelfImage.merge([twice, ShelfReading(readings: [])]).readings.count == 2)
        #expect(merged.readings.map(\.position) == [0, 1, 2])
        #expect(merged.usage == TokenUsage(input: 20, output: 10))
        #expect(merged.truncated)
    }

    @Test func promptTemplateRendersVariables() throws {
        let template = try PromptTemplate(source: "test", template: "{{imageName}} in {{languages}}{{#tile}} tile {{tile}}{{/tile}}")
        #expect(template.render(imageName: "a.jpg", languages: ["German", "English"]) == "a.jpg in German or English")
        #expect(template.render(imageName: "a.jpg", languages: ["English"], tile: "1 of 2") == "a.jpg in English tile 1 of 2")
        #expect(PromptTemplate.builtIn.render(imageName: "x.jpg", languages: ["English"]).contains(#""unreadable""#))
    }
}

/// The real shelf photos through the production image preparation: upright, scaled to fit,
/// a JPEG libjpeg can read back at the promised size.
@Suite struct ShelfImageTests {
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func realShelfPhotosArePreparedToFit() throws {
        try SharedFiles.requireShared()
        let folder = try #require(SharedFiles.fixture("shelves"))
        let photos = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".jpg") }.sorted()
        #expect(!photos.isEmpty)
        for name in photos {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            let original = try ImageLoader.load(data: data, name: name).image
            let prepared = try ShelfImage.prepare(ShelfPhoto(path: name, data: data), maxSide: 1024)
            #expect(prepared.count == 1)
            let sent = try ImageLoader.load(data: prepared[0].jpeg, name: "sent").image
            #expect(max(sent.width, sent.height) == min(1024, max(original.width, original.height)), "\(name)")
            // Aspect ratio kept (within a pixel of rounding).
            let expectedHeight = Double(original.height) * Double(sent.width) / Double(original.width)
            #expect(abs(Double(sent.height) - expectedHeight) <= 1.0, "\(name)")
            #expect(sent.width == prepared[0].width && sent.height == prepared[0].height)
        }
    }

    @Test func notAnImageIsAClearError() {
        do {
            _ = try ShelfImage.prepare(ShelfPhoto(path: "notes.jpg", data: Data("hello".utf8)), maxSide: 1024)
            Issue.record("text was prepared as an image")
        } catch {
            guard case .image(let photo, let message) = error else { Issue.record("\(error)"); return }
            #expect(photo == "notes.jpg")
            #expect(message.hasPrefix("cannot be read as an image"))
        }
    }
}

/// Colour JPEGs keep their colour and their EXIF orientation on the way to the model.
@Suite struct ColorPreparationTests {
    /// 300×100: red left half, blue right half.
    static func redBlue() -> [UInt8] {
        (0..<100).flatMap { _ in (0..<300).flatMap { x -> [UInt8] in x < 150 ? [220, 20, 20] : [20, 20, 220] } }
    }

    /// "Exif\0\0" + a little-endian TIFF whose IFD0 holds only the orientation tag.
    static func exif(orientation: UInt8) -> [UInt8] {
        Array("Exif".utf8) + [0, 0] + [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00] + [0x01, 0x00]
            + [0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, orientation, 0x00, 0x00, 0x00] + [0x00, 0x00, 0x00, 0x00]
    }

    @Test func colourSurvivesScaling() throws {
        let jpeg = try ImageEncoder.jpegData(rgb: Self.redBlue(), width: 300, height: 100, quality: 95)
        let prepared = try ShelfImage.prepare(ShelfPhoto(path: "c.jpg", data: jpeg), maxSide: 150)
        let sent = try #require(ColorJPEG.decode(prepared[0].jpeg))
        #expect(sent.width == 150 && sent.height == 50)
        let left = 25 * 150 + 20, right = 25 * 150 + 130
        #expect(sent.red.pixels[left] > 150 && sent.blue.pixels[left] < 90)
        #expect(sent.blue.pixels[right] > 150 && sent.red.pixels[right] < 90)
    }

    @Test func exifOrientationIsApplied() throws {
        let jpeg = Data(try NativeCodecs.encodeJPEG(pixels: Self.redBlue(), width: 300, height: 100, color: .rgb, quality: 95,
                                                    progressive: false, app1: Self.exif(orientation: 6)))
        let prepared = try ShelfImage.prepare(ShelfPhoto(path: "turned.jpg", data: jpeg), maxSide: 1024)
        let sent = try #require(ColorJPEG.decode(prepared[0].jpeg))
        // Rotated a quarter turn clockwise: 100 wide, 300 high, red (the stored left) on top.
        #expect(sent.width == 100 && sent.height == 300)
        #expect(sent.red.pixels[30 * 100 + 50] > 150 && sent.blue.pixels[30 * 100 + 50] < 90)
        #expect(sent.blue.pixels[270 * 100 + 50] > 150 && sent.red.pixels[270 * 100 + 50] < 90)
    }

    @Test func grayAndBrokenJPEGsTakeTheGrayPath() throws {
        let gray = try ImageEncoder.jpegData(GrayImage(width: 64, height: 32, pixels: [UInt8](repeating: 128, count: 64 * 32)))
        #expect(ColorJPEG.decode(gray) == nil)
        #expect(try ShelfImage.prepare(ShelfPhoto(path: "g.jpg", data: gray), maxSide: 32).first?.width == 32)
        #expect(ColorJPEG.decode(Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00])) == nil)
    }
}
