import Foundation
import MetadataSources

/// Why a photo got no readings. Messages name the photo or the provider, never a key.
public enum VisionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The model declined (OpenAI `refusal`, Anthropic `refusal` stop reason).
    case refused(photo: String, message: String)
    /// The provider blocked the prompt or answer (Gemini `promptFeedback.blockReason`, `SAFETY`).
    case blocked(photo: String, reason: String)
    /// The account's quota or credit is used up: nothing more can be sent in this run.
    case quotaExhausted(provider: String, message: String)
    /// Rate limited (HTTP 429) after every retry, or asked to wait longer than a retry would
    /// (`retryAt`: when the provider said to ask again).
    case rateLimited(provider: String, retryAt: Date?)
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
        // A rate limit that outlasts the retries holds for the photos after this one too.
        case .quotaExhausted, .missingAPIKey, .rateLimited: true
        case .request(_, let status, _): status == 401 || status == 403
        default: false
        }
    }

    public var description: String {
        switch self {
        case .refused(let photo, let message): "\(photo): the model refused to read it (\(message))"
        case .blocked(let photo, let reason): "\(photo): the provider blocked the request (\(reason))"
        case .quotaExhausted(let provider, let message): "\(provider): quota exhausted, stopping (\(message))"
        case .rateLimited(let provider, let retryAt?):
            "\(provider): rate limited (HTTP 429); the provider asks to wait \(max(0, Int(retryAt.timeIntervalSinceNow.rounded(.up)))) s: "
                + "retry after \(Self.utc(retryAt))"
        case .rateLimited(let provider, nil): "\(provider): still rate limited (HTTP 429) after retries: retry later"
        case .server(let provider, let status, let message): "\(provider): server error \(status) after retries (\(message))"
        case .request(let provider, let status, let message): "\(provider): request rejected with HTTP \(status) (\(message))"
        case .network(let provider, let message): "\(provider): \(message)"
        case .noReadings(let photo, let excerpt): "\(photo): the reply held no list of spines (\"\(excerpt)\")"
        case .image(let photo, let message): "\(photo): \(message)"
        case .missingAPIKey(let provider, let variable): "\(provider): no API key: set \(variable) or [vision] apiKeyEnv"
        }
    }

    static func utc(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
        return formatter.string(from: date)
    }

    /// The same error with `redaction` applied to every text a server could have written.
    func redacting(_ redaction: SecretRedaction) -> VisionError {
        guard !redaction.isEmpty else { return self }
        let clean = redaction.redact
        return switch self {
        case .refused(let photo, let message): .refused(photo: photo, message: clean(message))
        case .blocked(let photo, let reason): .blocked(photo: photo, reason: clean(reason))
        case .quotaExhausted(let provider, let message): .quotaExhausted(provider: provider, message: clean(message))
        case .server(let provider, let status, let message): .server(provider: provider, status: status, message: clean(message))
        case .request(let provider, let status, let message): .request(provider: provider, status: status, message: clean(message))
        case .network(let provider, let message): .network(provider: provider, message: clean(message))
        case .noReadings(let photo, let excerpt): .noReadings(photo: photo, excerpt: clean(excerpt))
        case .image(let photo, let message): .image(photo: photo, message: clean(message))
        case .rateLimited, .missingAPIKey: self
        }
    }
}
