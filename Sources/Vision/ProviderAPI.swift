import Foundation
import MetadataSources

/// A request ready to send.
struct VisionRequest: Sendable {
    var url: URL
    var headers: [String: String]
    var body: Data
}

/// What a provider's reply says, before the text is parsed.
struct ModelReply: Sendable, Hashable {
    var text: String
    /// Cut by the token limit (`length`, `MAX_TOKENS`, `max_tokens`).
    var truncated: Bool
    var usage: TokenUsage
    /// A refusal or block the model/provider reported instead of text.
    var refusal: String?
    var blocked: String?
}

/// How a failed HTTP answer is handled.
enum FailureKind: Sendable, Hashable {
    case retry(after: TimeInterval?)
    case quota(String)
    case fail(String)
}

/// The four wire formats: building a request and reading a reply or an error body.
struct ProviderAPI: Sendable {
    let settings: VisionSettings

    /// - Parameter structured: ask for the provider's schema-constrained output (off for
    ///   OpenAI-compatible servers that reject `response_format`).
    func request(prompt: String, jpeg: Data, structured: Bool = true) throws(VisionError) -> VisionRequest {
        let image = jpeg.base64EncodedString()
        var headers = ["Content-Type": "application/json"]
        let body: [String: Any]
        let url: URL
        switch settings.provider {
        case .openai:
            url = settings.baseURL.appendingPathComponent("chat/completions")
            if let key = settings.apiKey { headers["Authorization"] = "Bearer \(key)" }
            var openAI: [String: Any] = [
                "model": settings.model,
                "temperature": settings.temperature,
                "max_tokens": settings.maxTokens,
                "messages": [[
                    "role": "user",
                    "content": [
                        ["type": "text", "text": prompt],
                        ["type": "image_url", "image_url": ["url": "data:image/jpeg;base64,\(image)", "detail": "high"]],
                    ] as [[String: Any]],
                ] as [String: Any]],
            ]
            if structured {
                openAI["response_format"] = [
                    "type": "json_schema",
                    "json_schema": ["name": "shelf_spines", "strict": true, "schema": SpineSchema.jsonSchema] as [String: Any],
                ] as [String: Any]
            }
            body = openAI
        case .ollama:
            url = settings.baseURL.appendingPathComponent("api/chat")
            if let key = settings.apiKey { headers["Authorization"] = "Bearer \(key)" }
            body = [
                "model": settings.model,
                "stream": false,
                "messages": [["role": "user", "content": prompt, "images": [image]] as [String: Any]],
                "format": SpineSchema.jsonSchema,
                "options": ["temperature": settings.temperature, "num_predict": settings.maxTokens] as [String: Any],
            ]
        case .gemini:
            if settings.isVertex {
                url = settings.baseURL.appendingPathComponent("publishers/google/models/\(settings.model):generateContent")
                guard let key = settings.apiKey else { throw .missingAPIKey(provider: "gemini", variable: settings.apiKeyEnv ?? "GEMINI_API_KEY") }
                headers["Authorization"] = "Bearer \(key)"
            } else {
                url = settings.baseURL.appendingPathComponent("v1beta/models/\(settings.model):generateContent")
                guard let key = settings.apiKey else { throw .missingAPIKey(provider: "gemini", variable: settings.apiKeyEnv ?? "GEMINI_API_KEY") }
                headers["x-goog-api-key"] = key
            }
            body = [
                "contents": [["role": "user", "parts": [
                    ["inline_data": ["mime_type": "image/jpeg", "data": image]],
                    ["text": prompt],
                ] as [[String: Any]]] as [String: Any]],
                "generationConfig": [
                    "temperature": settings.temperature,
                    "maxOutputTokens": settings.maxTokens,
                    "responseMimeType": "application/json",
                    "responseSchema": SpineSchema.geminiSchema,
                ] as [String: Any],
            ]
        case .anthropic:
            url = settings.baseURL.appendingPathComponent("v1/messages")
            guard let key = settings.apiKey else { throw .missingAPIKey(provider: "anthropic", variable: settings.apiKeyEnv ?? "ANTHROPIC_API_KEY") }
            headers["x-api-key"] = key
            headers["anthropic-version"] = "2023-06-01"
            // No schema mode in the messages API: the prompt carries the schema.
            body = [
                "model": settings.model,
                "max_tokens": settings.maxTokens,
                "temperature": settings.temperature,
                "messages": [["role": "user", "content": [
                    ["type": "image", "source": ["type": "base64", "media_type": "image/jpeg", "data": image]],
                    ["type": "text", "text": prompt],
                ] as [[String: Any]]] as [String: Any]],
            ]
        }
        guard let data = try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]) else {
            throw .image(photo: "request", message: "cannot encode the request")
        }
        return VisionRequest(url: url, headers: headers, body: data)
    }

    /// A 2xx body. Throws `.noReadings` style errors only for bodies that are not the provider's format.
    func reply(_ body: Data, photo: String) throws(VisionError) -> ModelReply {
        guard let json = try? JSONSerialization.jsonObject(with: body) else {
            throw .noReadings(photo: photo, excerpt: Self.excerpt(String(decoding: body, as: UTF8.self), redaction: redaction))
        }
        let object = json as? [String: Any] ?? [:]
        switch settings.provider {
        case .openai:
            let choice = (object["choices"] as? [[String: Any]])?.first ?? [:]
            let message = choice["message"] as? [String: Any] ?? [:]
            let usage = object["usage"] as? [String: Any] ?? [:]
            return ModelReply(
                text: message["content"] as? String ?? "",
                truncated: choice["finish_reason"] as? String == "length",
                usage: TokenUsage(input: Self.int(usage["prompt_tokens"]), output: Self.int(usage["completion_tokens"])),
                refusal: message["refusal"] as? String,
                blocked: choice["finish_reason"] as? String == "content_filter" ? "content filter" : nil)
        case .ollama:
            let message = object["message"] as? [String: Any] ?? [:]
            return ModelReply(
                text: message["content"] as? String ?? "",
                truncated: object["done_reason"] as? String == "length",
                usage: TokenUsage(input: Self.int(object["prompt_eval_count"]), output: Self.int(object["eval_count"])))
        case .gemini:
            let usage = object["usageMetadata"] as? [String: Any] ?? [:]
            let tokens = TokenUsage(input: Self.int(usage["promptTokenCount"]), output: Self.int(usage["candidatesTokenCount"]))
            if let feedback = object["promptFeedback"] as? [String: Any], let reason = feedback["blockReason"] as? String {
                return ModelReply(text: "", truncated: false, usage: tokens, blocked: reason)
            }
            let candidate = (object["candidates"] as? [[String: Any]])?.first ?? [:]
            let parts = (candidate["content"] as? [String: Any])?["parts"] as? [[String: Any]] ?? []
            let finish = candidate["finishReason"] as? String
            let blockedReasons: Set<String> = ["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII"]
            return ModelReply(
                text: parts.compactMap { $0["text"] as? String }.joined(),
                truncated: finish == "MAX_TOKENS", usage: tokens,
                blocked: finish.flatMap { blockedReasons.contains($0) ? $0 : nil })
        case .anthropic:
            let content = object["content"] as? [[String: Any]] ?? []
            let usage = object["usage"] as? [String: Any] ?? [:]
            let stop = object["stop_reason"] as? String
            let text = content.filter { $0["type"] as? String == "text" }.compactMap { $0["text"] as? String }.joined()
            return ModelReply(
                text: text, truncated: stop == "max_tokens",
                usage: TokenUsage(input: Self.int(usage["input_tokens"]), output: Self.int(usage["output_tokens"])),
                refusal: stop == "refusal" ? (text.isEmpty ? "refusal" : text) : nil)
        }
    }

    /// What a non-2xx answer means: retry (with the server's delay), quota gone, or a plain failure.
    func failure(status: Int, headers: [String: String], body: Data) -> FailureKind {
        let message = Self.errorMessage(body, redaction: redaction)
        let retryAfter = Self.retryAfter(headers: headers, body: body)
        switch status {
        case 429:
            let lower = message.lowercased()
            let code = Self.errorCode(body)
            // OpenAI: insufficient_quota; Gemini: "exceeded your current quota" with no RetryInfo
            // and no per-minute quota named. Anything else with 429 is a rate limit: wait, retry.
            if code == "insufficient_quota" { return .quota(message) }
            if lower.contains("exceeded your current quota"), retryAfter == nil, !Self.mentionsPerMinute(body) { return .quota(message) }
            if lower.contains("credit balance") || lower.contains("billing") && retryAfter == nil && code != "rate_limit_exceeded" {
                return .quota(message)
            }
            return .retry(after: retryAfter)
        case 408, 500...599:
            return .retry(after: retryAfter)
        default:
            return .fail(message)
        }
    }

    /// What HTTPClient retries: a rate limit (with the provider's delay) or a server error;
    /// every other answer, success or not, comes back to `failure` and `reply`.
    func retryable(_ response: HTTPResponse) -> SourceError? {
        guard !(200..<300).contains(response.status),
              case .retry(let after) = failure(status: response.status, headers: response.headers, body: response.body)
        else { return nil }
        return response.status == 429 ? .rateLimited(retryAfter: after) : .server(status: response.status)
    }

    /// A 400 from an OpenAI-compatible server that does not know structured output.
    func rejectsStructuredOutput(_ error: VisionError) -> Bool {
        guard settings.provider == .openai, case .request(_, let status, let message) = error, status == 400 || status == 422 else { return false }
        let lower = message.lowercased()
        return lower.contains("response_format") || lower.contains("json_schema")
    }

    static func int(_ value: Any?) -> Int { (value as? NSNumber)?.intValue ?? 0 }

    /// The key in every encoding: removed from what a server wrote before it is cut to an
    /// excerpt (a key cut in half would no longer be found).
    var redaction: SecretRedaction { SecretRedaction(secret: settings.apiKey) }

    static func excerpt(_ text: String, redaction: SecretRedaction = SecretRedaction(secrets: [])) -> String {
        let flat = redaction.redact(text).replacingOccurrences(of: "\n", with: " ").trimmingCharacters(in: .whitespaces)
        return flat.count > 80 ? String(flat.prefix(80)) + "…" : flat
    }

    /// The error object, also when Vertex wraps it in an array.
    static func errorObject(_ body: Data) -> [String: Any]? {
        let json = try? JSONSerialization.jsonObject(with: body)
        let top = (json as? [String: Any]) ?? ((json as? [Any])?.first as? [String: Any])
        if let error = top?["error"] as? [String: Any] { return error }
        return top
    }

    static func errorMessage(_ body: Data, redaction: SecretRedaction = SecretRedaction(secrets: [])) -> String {
        if let error = errorObject(body) {
            if let message = error["message"] as? String { return excerpt(message, redaction: redaction) }
            if let message = error["error"] as? String { return excerpt(message, redaction: redaction) }
        }
        if let json = try? JSONSerialization.jsonObject(with: body) as? [String: Any], let message = json["error"] as? String {
            return excerpt(message, redaction: redaction)
        }
        return excerpt(String(decoding: body.prefix(200), as: UTF8.self), redaction: redaction)
    }

    static func errorCode(_ body: Data) -> String? {
        let error = errorObject(body)
        return (error?["code"] as? String) ?? (error?["type"] as? String)
    }

    static func mentionsPerMinute(_ body: Data) -> Bool {
        String(decoding: body, as: UTF8.self).contains("PerMinute")
    }

    /// `Retry-After` (seconds or HTTP date), else Gemini's `RetryInfo.retryDelay` ("37s").
    static func retryAfter(headers: [String: String], body: Data) -> TimeInterval? {
        if let seconds = HTTPClient.retryAfter(headers["retry-after"]) { return seconds }
        if let details = errorObject(body)?["details"] as? [[String: Any]] {
            for detail in details where (detail["@type"] as? String)?.hasSuffix("RetryInfo") == true {
                if let delay = detail["retryDelay"] as? String, let seconds = Double(delay.trimmingCharacters(in: CharacterSet(charactersIn: "s"))) {
                    return seconds
                }
            }
        }
        return nil
    }
}
