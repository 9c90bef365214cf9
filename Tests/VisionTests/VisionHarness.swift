import Foundation
import Imaging
import MetadataSources
import TestSupport
import Testing
@testable import Vision

/// A vision provider played by the fixture server on 127.0.0.1: the production reader with
/// only its base URL changed. Every request is checked (method, path, headers, that the
/// image decodes as a JPEG of the expected size, the prompt) before the canned reply goes out.
final class VisionHarness: Sendable {
    let server = FixtureServer()
    let photo: ShelfPhoto
    /// A 3000×1200 shelf-like photo; sent with maxImageSide 1024 it must arrive as 1024×410.
    static let expectedSize = (width: 1024, height: 410)
    let sleeps = Delays()

    init() throws {
        var pixels = [UInt8](repeating: 0, count: 3000 * 1200)
        for y in 0..<1200 { for x in 0..<3000 { pixels[y * 3000 + x] = UInt8((x / 60 % 2) * 160 + (y % 50)) } }
        let jpeg = try ImageEncoder.jpegData(GrayImage(width: 3000, height: 1200, pixels: pixels), quality: 80)
        photo = ShelfPhoto(path: "photos/shelf-1.jpg", data: jpeg)
    }

    func start() async throws { try await server.start() }
    func stop() async { await server.stop() }

    func reader(_ provider: VisionProvider, baseURL: URL? = nil, model: String? = nil, key: String? = "sk-test-secret",
                retries: Int = 3, tiles: Int = 1) -> VisionReader {
        let settings = VisionSettings(provider: provider, baseURL: baseURL ?? (provider == .openai ? server.baseURL.appendingPathComponent("v1") : server.baseURL),
                                      model: model, apiKey: key, timeoutSeconds: 20, maxTokens: 2000, maxImageSide: 1024,
                                      retries: retries, retryBaseDelaySeconds: 0.5, maxRetryDelaySeconds: 60)
        return VisionReader(settings: settings, tiles: tiles, clock: sleeps)
    }

    /// Answers `path` (POST) with `responses` in turn after checking each request.
    func route(_ path: String, provider: VisionProvider, responses: [FixtureResponse],
               size: (width: Int, height: Int) = VisionHarness.expectedSize) {
        let queue = ResponseQueue(responses)
        server.route(path, method: "POST") { request in
            if let problem = Self.problem(with: request, provider: provider, size: size) {
                return FixtureResponse.json("{\"error\": {\"message\": \"harness: \(problem)\"}}", status: 418)
            }
            return await queue.next()
        }
    }

    func fixture(_ path: String, status: Int = 200, headers: [String: String] = [:]) throws -> FixtureResponse {
        try FixtureResponse.fixture("vision/\(path)", status: status, headers: headers)
    }

    /// Why a request is not what the provider expects, or nil.
    static func problem(with request: RecordedRequest, provider: VisionProvider,
                        size: (width: Int, height: Int) = expectedSize) -> String? {
        guard request.method == "POST" else { return "method \(request.method)" }
        guard request.header("content-type")?.hasPrefix("application/json") == true else { return "content type" }
        guard let body = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any] else { return "body is not JSON" }
        var imageBase64: String?
        var prompt: String?
        switch provider {
        case .openai:
            guard request.header("authorization") == "Bearer sk-test-secret" else { return "authorization" }
            let content = ((body["messages"] as? [[String: Any]])?.first?["content"] as? [[String: Any]]) ?? []
            prompt = content.first { $0["type"] as? String == "text" }?["text"] as? String
            let url = (content.first { $0["type"] as? String == "image_url" }?["image_url"] as? [String: Any])?["url"] as? String
            guard let url, url.hasPrefix("data:image/jpeg;base64,") else { return "image data URI" }
            imageBase64 = String(url.dropFirst("data:image/jpeg;base64,".count))
            guard (body["response_format"] as? [String: Any])?["type"] as? String == "json_schema" else { return "response_format" }
        case .ollama:
            let message = (body["messages"] as? [[String: Any]])?.first ?? [:]
            prompt = message["content"] as? String
            imageBase64 = (message["images"] as? [String])?.first
            guard body["format"] is [String: Any], body["stream"] as? Bool == false else { return "format/stream" }
        case .gemini:
            let vertex = request.path.contains("/projects/")
            if vertex {
                guard request.header("authorization") == "Bearer sk-test-secret" else { return "vertex bearer" }
            } else {
                guard request.header("x-goog-api-key") == "sk-test-secret", request.query("key") == nil else { return "api key header" }
            }
            let parts = ((body["contents"] as? [[String: Any]])?.first?["parts"] as? [[String: Any]]) ?? []
            prompt = parts.compactMap { $0["text"] as? String }.first
            let inline = parts.compactMap { $0["inline_data"] as? [String: Any] }.first
            guard inline?["mime_type"] as? String == "image/jpeg" else { return "inline_data" }
            imageBase64 = inline?["data"] as? String
            guard (body["generationConfig"] as? [String: Any])?["responseSchema"] != nil else { return "responseSchema" }
        case .anthropic:
            guard request.header("x-api-key") == "sk-test-secret", request.header("anthropic-version") == "2023-06-01" else { return "anthropic headers" }
            let content = ((body["messages"] as? [[String: Any]])?.first?["content"] as? [[String: Any]]) ?? []
            prompt = content.first { $0["type"] as? String == "text" }?["text"] as? String
            let source = content.first { $0["type"] as? String == "image" }?["source"] as? [String: Any]
            guard source?["type"] as? String == "base64", source?["media_type"] as? String == "image/jpeg" else { return "image block" }
            imageBase64 = source?["data"] as? String
            guard body["max_tokens"] as? Int == 2000 else { return "max_tokens" }
        }
        guard let prompt, prompt.contains("shelf-1.jpg"), prompt.contains("unreadable"), prompt.contains("\"spines\"") else { return "prompt" }
        guard let imageBase64, let jpeg = Data(base64Encoded: imageBase64) else { return "image is not base64" }
        guard jpeg.starts(with: [0xFF, 0xD8]), let image = try? ImageLoader.load(data: jpeg, name: "sent").image else { return "image is not a JPEG" }
        guard image.width == size.width, image.height == size.height else { return "image is \(image.width)x\(image.height)" }
        return nil
    }

    /// A reply in the provider's own envelope whose text is `text`.
    static func envelope(_ provider: VisionProvider, text: String) -> FixtureResponse {
        let escaped = String(data: try! JSONSerialization.data(withJSONObject: [text]), encoding: .utf8)!.dropFirst().dropLast()
        switch provider {
        case .openai:
            return .json(#"{"choices":[{"index":0,"message":{"role":"assistant","content":\#(escaped),"refusal":null},"finish_reason":"stop"}],"usage":{"prompt_tokens":900,"completion_tokens":80}}"#)
        case .ollama:
            return .json(#"{"model":"qwen2.5vl","message":{"role":"assistant","content":\#(escaped)},"done_reason":"stop","done":true,"prompt_eval_count":900,"eval_count":80}"#)
        case .gemini:
            return .json(#"{"candidates":[{"content":{"parts":[{"text":\#(escaped)}],"role":"model"},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":900,"candidatesTokenCount":80}}"#)
        case .anthropic:
            return .json(#"{"type":"message","content":[{"type":"text","text":\#(escaped)}],"stop_reason":"end_turn","usage":{"input_tokens":900,"output_tokens":80}}"#)
        }
    }

    static let shelfAnswer = """
        Here are the spines I can read:
        ```json
        {"spines": [
          {"text": "DUNE FRANK HERBERT", "title": "Dune", "author": "Frank Herbert", "series": null, "volume": null, "position": 0, "confidence": 0.95, "unreadable": false},
          {"text": "", "title": null, "author": null, "series": null, "volume": null, "position": 1, "confidence": 0.1, "unreadable": true},
          {"text": "NARUTO 7 KISHIMOTO", "title": "Naruto", "author": "Masashi Kishimoto", "series": "Naruto", "volume": "7", "position": 2, "confidence": 0.8, "unreadable": false}
        ]}
        ```
        """
}

/// Responses handed out in turn; the last repeats.
actor ResponseQueue {
    private var responses: [FixtureResponse]
    init(_ responses: [FixtureResponse]) { self.responses = responses }
    func next() -> FixtureResponse { responses.count > 1 ? responses.removeFirst() : responses[0] }
}

/// Back-off delays the reader asked for (the test does not wait them out).
actor Delays: PacingClock {
    private(set) var all: [TimeInterval] = []
    nonisolated var now: TimeInterval { SystemPacingClock().now }
    func sleep(seconds: TimeInterval) { all.append(seconds) }
}
