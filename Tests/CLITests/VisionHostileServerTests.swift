import Foundation
import Testing
import TestSupport

/// `rapidscan spines` (and `lookup`, for Google Books' key) against hostile servers on
/// loopback: keys quoted back, redirects to another port, replies without bounds, a 429 asking
/// for days. Each run is bounded (`finish(within:maxResidentBytes:)`): without the fix under
/// test the binary hangs, grows or leaks, and the bound turns that into a failure.
@Suite struct VisionHostileServerTests {
    /// A key with characters that percent- and base64-encode differently from the raw text.
    static let key = "sk-proj_Zx9/Q+r=hostile-secret-7734abcd"
    static let keyVariable = "HOSTILE_TEST_KEY"

    /// The provider setups a user can configure, by name: provider, base URL path, model.
    static let providers: [(name: String, provider: String, basePath: String)] = [
        ("openai", "openai", "/v1"), ("ollama", "ollama", ""), ("gemini", "gemini", ""),
        ("vertex", "gemini", "/v1/projects/shelf-project/locations/europe-west4"), ("anthropic", "anthropic", ""),
    ]

    func photo(in harness: CLIHarness, _ name: String = "minhan_img1346_top_shelf.jpg") throws -> String {
        let copy = harness.directory.appendingPathComponent(name)
        if !FileManager.default.fileExists(atPath: copy.path) {
            try FileManager.default.copyItem(at: try #require(SharedFiles.fixture("shelves/\(name)")), to: copy)
        }
        return copy.path
    }

    /// Points the binary's vision reader at `base` (+ the provider's path) with the hostile key.
    func useVision(_ harness: CLIHarness, provider: String, base: URL, basePath: String = "/v1") {
        harness.extraEnvironment = [
            "RAPIDSCAN_VISION_PROVIDER": provider,
            "RAPIDSCAN_VISION_URL": base.absoluteString + basePath,
            "RAPIDSCAN_VISION_MODEL": "hostile-model",
            "RAPIDSCAN_VISION_API_KEY_ENV": Self.keyVariable,
            Self.keyVariable: Self.key,
            "RAPIDSCAN_SOURCES": "googleBooks",
            "RAPIDSCAN_DEBUG": "1",
        ]
    }

    /// Runs `spines --json` (bounded) and returns the result.
    func spines(_ harness: CLIHarness, _ arguments: [String], within limit: Duration = .seconds(120),
                maxResidentBytes: Int = 1 << 30) async throws -> CommandResult {
        let running = try await harness.start(["spines", "--json"] + arguments)
        let (result, killed) = await running.finish(within: limit, maxResidentBytes: maxResidentBytes)
        #expect(killed == nil, "killed: \(killed ?? "")\n\(result.stderr.suffix(2000))")
        return result
    }

    /// Every form of the key a careless error path could print.
    static let keyForms: [String] = {
        let raw = key
        var forms = [raw, raw.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
                     Data(raw.utf8).base64EncodedString()]
        // The part of the key no encoding changes, long enough to be the key.
        forms.append("hostile-secret-7734abcd")
        return forms
    }()

    static func leaked(_ result: CommandResult) -> [String] {
        keyForms.filter { result.stdout.contains($0) || result.stderr.contains($0) }
    }

    static func openAIEnvelope(text: String) -> FixtureResponse {
        let content = String(data: try! JSONSerialization.data(withJSONObject: [text]), encoding: .utf8)!.dropFirst().dropLast()
        return .json(#"{"choices":[{"index":0,"message":{"role":"assistant","content":\#(content)},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":10}}"#)
    }

    // MARK: 37.2 keys quoted back

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aKeyTheServerQuotesBackIsRedactedForEveryProvider() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        let photo = try photo(in: harness)
        // The key raw, percent-encoded, base64 and as JSON \u escapes (decoded by the parser).
        let escaped = Self.key.unicodeScalars.map { String(format: "\\u%04x", $0.value) }.joined()
        let percent = Self.key.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let base64 = Data(Self.key.utf8).base64EncodedString()
        let forms = [Self.key, escaped, percent, base64]
        for (providerIndex, (name, provider, basePath)) in Self.providers.enumerated() {
            // Two forms per provider in turn (all four are seen); the message is printed the
            // same way by both outputs, so the human one is run once per provider.
            for (index, quoted) in [forms[providerIndex % 4], forms[(providerIndex + 1) % 4]].enumerated() {
                harness.server.removeAllRoutes()
                harness.server.clearRequests()
                harness.server.route("/*", method: "POST", response: .json(
                    #"{"error": {"message": "Incorrect API key provided: \#(quoted)", "type": "invalid_request_error", "code": "invalid_api_key"}}"#,
                    status: 401))
                useVision(harness, provider: provider, base: harness.server.baseURL, basePath: basePath)
                let json = try await spines(harness, [photo])
                #expect(json.status == 3, "\(name) #\(index): \(json.stderr)")
                #expect(harness.server.requests.count == 1, "\(name)")
                let summary = try #require(json.jsonLines.last)
                let reason = try #require(summary["stopReason"] as? String, "\(name)")
                #expect(reason.contains("HTTP 401") && reason.contains("REDACTED"), "\(name) #\(index): \(reason)")
                #expect(Self.leaked(json).isEmpty, "\(name) #\(index) leaked \(Self.leaked(json)): \(json.stdout) \(json.stderr)")
                guard index == 0 else { continue }
                let human = try await harness.run("spines", photo)
                #expect(human.stderr.contains("HTTP 401") && human.stderr.contains("REDACTED"), "\(name): \(human.stderr)")
                #expect(Self.leaked(human).isEmpty, "\(name) leaked \(Self.leaked(human)): \(human.stderr)")
            }
        }
    }

    // MARK: 37.3 redirects

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func credentialsAreNeverSentToAnotherPortOnARedirect() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        try await withFixtureServer { elsewhere in
            elsewhere.route("/*", method: nil, response: .json(#"{"error": "the key reached the wrong host"}"#, status: 200))
            let photo = try photo(in: harness)
            let statuses = [301, 302, 303, 307, 308]
            for (index, (name, provider, basePath)) in Self.providers.enumerated() {
                // Each provider with two statuses in turn, so all five are seen.
                for status in [statuses[index % 5], statuses[(index + 2) % 5]] {
                    harness.server.removeAllRoutes()
                    harness.server.route("/*", method: "POST") { request in
                        FixtureResponse(status: status, headers: ["Location": elsewhere.baseURL.absoluteString + request.path])
                    }
                    useVision(harness, provider: provider, base: harness.server.baseURL, basePath: basePath)
                    let result = try await spines(harness, [photo])
                    #expect(elsewhere.requests.isEmpty, "\(name) \(status): \(elsewhere.requests.map(\.headers))")
                    let failed = result.jsonLines.first { $0["event"] as? String == "failed" }
                    let error = failed?["error"] as? String ?? ""
                    #expect(error.contains("redirected to another port") && error.contains(":\(elsewhere.baseURL.port!)/"),
                            "\(name) \(status): \(result.stdout) \(result.stderr)")
                    #expect(result.status == 1, "\(name) \(status)")
                    #expect(Self.leaked(result).isEmpty)
                }
            }

            // Google Books' key header: a 302 to another port is not followed either.
            harness.extraEnvironment = ["GOOGLE_BOOKS_API_KEY": Self.key, "RAPIDSCAN_SOURCES": "googleBooks"]
            harness.server.removeAllRoutes()
            harness.server.route("/books/v1/volumes") { request in
                FixtureResponse(status: 302, headers: ["Location": elsewhere.baseURL.absoluteString + "/books/v1/volumes?" + request.rawQuery])
            }
            let lookup = try await harness.run("lookup", "--json", "9780990582939")
            #expect(elsewhere.requests.isEmpty, "\(elsewhere.requests.map(\.headers))")
            #expect(harness.server.requests(to: "/books/v1/volumes").first?.header("x-goog-api-key") == Self.key)
            #expect((lookup.stdout + lookup.stderr).contains("redirected to another port"), "\(lookup.stdout) \(lookup.stderr)")
            #expect(Self.leaked(lookup).isEmpty)
        }
    }

    // MARK: 37.4 bounds on replies

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aGzipBombIsCutAtTheReplyLimit() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        let bomb = GzipBomb.zeros(compressedBytes: 1 << 20)
        harness.server.route("/v1/chat/completions", method: "POST", response: FixtureResponse(
            status: 200, headers: ["Content-Type": "application/json", "Content-Encoding": "gzip"], body: bomb))
        useVision(harness, provider: "openai", base: harness.server.baseURL)
        // 1 MB that inflates to 1 GB: without a cap on the decoded bytes the process grows past the bound.
        let result = try await spines(harness, [try photo(in: harness)], maxResidentBytes: 600 << 20)
        #expect(result.status == 1, "\(result.stderr)")
        let error = result.jsonLines.first { $0["event"] as? String == "failed" }?["error"] as? String ?? ""
        #expect(error.contains("over the 8388608-byte limit"), "\(result.stdout) \(result.stderr)")
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func anEndlessReplyIsCutAtTheReplyLimit() async throws {
        try SharedFiles.requireShared()
        let endless = try RawSocketServer { connection in
            guard connection.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n") else { return }
            let chunk = Data(repeating: UInt8(ascii: " "), count: 1 << 16)
            while connection.write(chunk) {}
        }
        defer { endless.stop() }
        let harness = try CLIHarness()
        useVision(harness, provider: "openai", base: endless.baseURL)
        let result = try await spines(harness, [try photo(in: harness)], maxResidentBytes: 600 << 20)
        #expect(result.status == 1, "\(result.stderr)")
        let error = result.jsonLines.first { $0["event"] as? String == "failed" }?["error"] as? String ?? ""
        #expect(error.contains("over the 8388608-byte limit"), "\(result.stdout) \(result.stderr)")
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aReplyTricklingAByteASecondEndsAtTheTimeout() async throws {
        try SharedFiles.requireShared()
        let trickle = try RawSocketServer { connection in
            guard connection.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n") else { return }
            while connection.write(" ") { Thread.sleep(forTimeInterval: 1) }
        }
        defer { trickle.stop() }
        let harness = try CLIHarness()
        useVision(harness, provider: "openai", base: trickle.baseURL)
        // Every byte resets an idle time-out: only a bound on the whole exchange ends this.
        let result = try await spines(harness, ["--timeout", "3", try photo(in: harness)], within: .seconds(90))
        #expect(result.status == 1, "\(result.stderr)")
        let error = result.jsonLines.first { $0["event"] as? String == "failed" }?["error"] as? String ?? ""
        #expect(error.contains("did not answer within 3 s"), "\(result.stdout) \(result.stderr)")
        #expect(trickle.requests.count == 1, "a time-out is not retried")
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aHundredThousandEntriesAreCutToAShelfAndCounted() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        let entries = (0..<100_000).map { #"{"text":"B\#($0)"}"# }.joined(separator: ",")
        harness.server.route("/v1/chat/completions", method: "POST", response: Self.openAIEnvelope(text: #"{"spines":[\#(entries)]}"#))
        useVision(harness, provider: "openai", base: harness.server.baseURL)
        let result = try await spines(harness, ["--offline", try photo(in: harness)])
        let summary = try #require(result.jsonLines.last, "\(result.stderr)")
        #expect(summary["readings"] as? Int == 400)
        #expect(summary["droppedReadings"] as? Int == 99_600)
        let human = try await harness.run("spines", "--offline", try photo(in: harness))
        // The second run reads the bounded reply from the cache: nothing dropped again.
        #expect(human.stderr.contains("400 spines"), "\(human.stderr)")
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aMegabyteTitleIsCutAndCounted() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        let title = String(repeating: "Endless Title ", count: 75_000)
        harness.server.route("/v1/chat/completions", method: "POST",
                             response: Self.openAIEnvelope(text: #"{"spines":[{"text":"\#(title)","title":"\#(title)"}]}"#))
        useVision(harness, provider: "openai", base: harness.server.baseURL)
        let result = try await spines(harness, ["--offline", try photo(in: harness)])
        let summary = try #require(result.jsonLines.last, "\(result.stderr)")
        #expect(summary["shortenedReadings"] as? Int == 1)
        let readings = result.jsonLines.compactMap { $0["reading"] as? String }
        #expect(readings.count == 1)
        #expect(readings.allSatisfy { $0.count <= 300 && $0.hasPrefix("Endless Title") })
        #expect(result.stdout.utf8.count < 10_000)
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func deeplyNestedBracketsFailFast() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        harness.server.route("/v1/chat/completions", method: "POST",
                             response: Self.openAIEnvelope(text: "[" + String(repeating: "{", count: 200_000)))
        useVision(harness, provider: "openai", base: harness.server.baseURL)
        // 200,000 nested brackets never closed: looking for each one's close from each one, as
        // the cut-reply salvage did, was quadratic (minutes); the bound is far above a linear parse.
        let result = try await spines(harness, ["--offline", try photo(in: harness)], within: .seconds(60))
        #expect(result.status == 1, "\(result.stderr)")
        let error = result.jsonLines.first { $0["event"] as? String == "failed" }?["error"] as? String ?? ""
        #expect(error.contains("the reply held no list of spines"), "\(result.stdout) \(result.stderr)")
    }

    // MARK: 37.10 a 429 asking for days; empty URL variables

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func aRateLimitAskingForDaysQueuesThePhotosAndSaysWhenToRetry() async throws {
        try SharedFiles.requireShared()
        let harness = try await CLIHarness.started()
        defer { Task { await harness.server.stop() } }
        harness.server.route("/v1/chat/completions", method: "POST", response: .json(
            #"{"error": {"message": "Rate limit reached for requests", "type": "requests", "code": "rate_limit_exceeded"}}"#,
            status: 429, headers: ["Retry-After": "999999"]))
        useVision(harness, provider: "openai", base: harness.server.baseURL)
        let photos = [try photo(in: harness), try photo(in: harness, "minhan_img1539_bottom_shelf.jpg")]
        // Waiting out 999999 s (or even three 60 s back-offs) ends in the bound instead.
        let result = try await spines(harness, ["--concurrency", "1"] + photos, within: .seconds(60))
        #expect(result.status == 3, "\(result.stderr)")
        #expect(harness.server.requests(to: "/v1/chat/completions").count == 1, "asked once, not retried")
        let queued = result.jsonLines.filter { $0["event"] as? String == "queued" }
        #expect(queued.count == 2)
        #expect((queued.first?["reason"] as? String)?.contains("retry after 20") == true, "\(queued)")
        #expect((queued.first?["reason"] as? String)?.contains("asks to wait 99999") == true, "\(queued)")
        #expect(result.jsonLines.filter { $0["event"] as? String == "failed" }.isEmpty)
        let summary = try #require(result.jsonLines.last)
        #expect((summary["notSent"] as? [String])?.count == 2)
        #expect((summary["stopReason"] as? String)?.contains("rate limited") == true)
    }

    @Test func anEmptyURLVariableIsAnErrorNamingIt() async throws {
        let harness = try CLIHarness()
        for variable in ["RAPIDSCAN_GOOGLE_BOOKS_URL", "RAPIDSCAN_OPEN_LIBRARY_URL", "RAPIDSCAN_VISION_URL"] {
            harness.extraEnvironment = [variable: ""]
            let result = try await harness.run("lookup", "--json", "9780990582939")
            #expect(result.status == 70, "\(variable): \(result.stderr)")
            #expect(result.stderr.contains("\(variable): is set but empty"), "\(result.stderr)")
        }
    }
}

/// A gzip body of zeros that inflates about 1,000-fold: one dynamic-Huffman deflate block
/// whose only length code (258) and distance code (1) take one bit each, so after the first
/// literal every 0x00 byte is four 258-byte copies. Made here in microseconds (gzip itself
/// needs seconds of CPU for the gigabyte).
enum GzipBomb {
    static func zeros(compressedBytes: Int) -> Data {
        var bits = BitWriter()
        bits.number(1, 1)  // last block
        bits.number(2, 2)  // dynamic Huffman
        bits.number(29, 5)  // 286 literal/length codes
        bits.number(1, 5)  // 2 distance codes
        bits.number(15, 4)  // all 19 code-length codes
        // Code lengths' own code: 18 (a run of zeros) one bit, lengths 1 and 2 two bits.
        let codeLengthLengths: [Int: Int] = [18: 1, 1: 2, 2: 2]
        for symbol in [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15] {
            bits.number(codeLengthLengths[symbol] ?? 0, 3)
        }
        // Literal 0: 2 bits; 1-255: none; end of block: 2 bits; 257-284: none; 285 (length 258): 1 bit.
        bits.code("11"); bits.code("0"); bits.number(127, 7); bits.code("0"); bits.number(106, 7)
        bits.code("11"); bits.code("0"); bits.number(17, 7); bits.code("10")
        // Distance codes 0 and 1: one bit each.
        bits.code("10"); bits.code("10")
        bits.code("10")  // the literal 0
        while bits.count % 8 != 0 { bits.code("00") }  // copies of 258 until byte-aligned
        let header: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]
        return Data(header + bits.bytes) + Data(count: max(0, compressedBytes - header.count - bits.bytes.count))
    }

    struct BitWriter {
        private(set) var bytes: [UInt8] = []
        private(set) var count = 0

        /// `value`'s low `width` bits, least significant first (deflate's header fields).
        mutating func number(_ value: Int, _ width: Int) {
            for bit in 0..<width { append((value >> bit) & 1) }
        }

        /// A Huffman code, most significant bit first.
        mutating func code(_ text: String) {
            for character in text { append(character == "1" ? 1 : 0) }
        }

        private mutating func append(_ bit: Int) {
            if count % 8 == 0 { bytes.append(0) }
            bytes[bytes.count - 1] |= UInt8(bit << (count % 8))
            count += 1
        }
    }
}
