import Foundation

/// Why a photo got no readings. Messages name the photo or the provider, never a key.
public enum VisionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The model declined (OpenAI `refusal`, Anthropic `refusal` stop reason).
    case refused(photo: String, message: String)
    /// The provider blocked the prompt or answer (Gemini `promptFeedback.blockReason`, `SAFETY`).
    case blocked(photo: String, reason: String)
    /// The account's quota or credit is used up: nothing more can be sent in this run.
    case quotaExhausted(provider: String, message: String)
    /// Still rate limited after every retry.
    case rateLimited(provider: String, retryAfter: TimeInterval?)
    /// 5xx / 529 after every retry.
    case server(provider: String, status: Int, message: String)
    /// The provider refused the request itself (bad image, unknown model, location, auth).
    case request(provider: String, status: Int, message: String)
    case network(provider: String, message: String)
    /// The reply held no JSON list or object of spines.
    case noReadings(photo: String, excerpt: String)
    case image(photo: String, message: String)
    case missingAPIKey(provider: String, variable: String)

    /// Errors that make sending further photos pointless in this run (they stay queued).
    public var stopsRun: Bool {
        switch self {
        case .quotaExhausted, .missingAPIKey: true
        case .request(_, let status, _): status == 401 || status == 403
        default: false
        }
    }

    public var description: String {
        switch self {
        case .refused(let photo, let message): "\(photo): the model refused to read it (\(message))"
        case .blocked(let photo, let reason): "\(photo): the provider blocked the request (\(reason))"
        case .quotaExhausted(let provider, let message): "\(provider): quota exhausted, stopping (\(message))"
        case .rateLimited(let provider, let after):
            "\(provider): still rate limited after retries" + (after.map { " (retry after \(Int($0)) s)" } ?? "")
        case .server(let provider, let status, let message): "\(provider): server error \(status) after retries (\(message))"
        case .request(let provider, let status, let message): "\(provider): request rejected with HTTP \(status) (\(message))"
        case .network(let provider, let message): "\(provider): \(message)"
        case .noReadings(let photo, let excerpt): "\(photo): the reply held no list of spines (\"\(excerpt)\")"
        case .image(let photo, let message): "\(photo): \(message)"
        case .missingAPIKey(let provider, let variable): "\(provider): no API key: set \(variable) or [vision] apiKeyEnv"
        }
    }
}
