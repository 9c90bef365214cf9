import Foundation

/// The HTTP APIs a vision model can be reached through.
public enum VisionProvider: String, Sendable, Hashable, CaseIterable, Codable {
    /// `/v1/chat/completions`: OpenAI, and the OpenAI endpoints of Ollama, vLLM, llama.cpp server, LM Studio.
    case openai
    /// Ollama's native `/api/chat`.
    case ollama
    /// Google Gemini `generateContent` (API key), or Vertex AI (bearer token) when the base URL names a project.
    case gemini
    /// Anthropic `/v1/messages`.
    case anthropic

    public var defaultBaseURL: URL {
        switch self {
        case .openai: URL(string: "https://api.openai.com/v1")!
        case .ollama: URL(string: "http://localhost:11434")!
        case .gemini: URL(string: "https://generativelanguage.googleapis.com")!
        case .anthropic: URL(string: "https://api.anthropic.com")!
        }
    }

    public var defaultModel: String {
        switch self {
        case .openai: "gpt-4o-mini"
        case .ollama: "qwen2.5vl"
        case .gemini: "gemini-2.0-flash"
        case .anthropic: "claude-sonnet-4-5"
        }
    }

    /// The variable the API key is read from unless `apiKeyEnv` names another.
    public var defaultAPIKeyEnv: String? {
        switch self {
        case .openai: "OPENAI_API_KEY"
        case .ollama: nil
        case .gemini: "GEMINI_API_KEY"
        case .anthropic: "ANTHROPIC_API_KEY"
        }
    }
}

/// Everything a vision reader needs, resolved from `[vision]`, the environment and flags.
/// `description` never shows the key.
public struct VisionSettings: Sendable, Hashable, CustomStringConvertible {
    public var provider: VisionProvider
    public var baseURL: URL
    public var model: String
    /// The key itself (read from the variable `apiKeyEnv` names); nil for local servers.
    public var apiKey: String?
    public var apiKeyEnv: String?
    public var temperature: Double
    public var timeoutSeconds: Double
    public var maxTokens: Int
    public var maxConcurrentRequests: Int
    /// The long side of the JPEG sent, in pixels.
    public var maxImageSide: Int
    /// Retries of a rate-limited or failed request, and their back-off.
    public var retries: Int
    public var retryBaseDelaySeconds: Double
    public var maxRetryDelaySeconds: Double
    /// Expected language(s) of the spines, for the prompt.
    public var languages: [String]

    public init(provider: VisionProvider, baseURL: URL? = nil, model: String? = nil, apiKey: String? = nil,
                apiKeyEnv: String? = nil, temperature: Double = 0, timeoutSeconds: Double = 120, maxTokens: Int = 4096,
                maxConcurrentRequests: Int = 2, maxImageSide: Int = 2048, retries: Int = 3,
                retryBaseDelaySeconds: Double = 1, maxRetryDelaySeconds: Double = 60, languages: [String] = ["English"]) {
        self.provider = provider
        self.baseURL = baseURL ?? provider.defaultBaseURL
        self.model = model ?? provider.defaultModel
        self.apiKey = apiKey
        self.apiKeyEnv = apiKeyEnv ?? provider.defaultAPIKeyEnv
        self.temperature = temperature
        self.timeoutSeconds = timeoutSeconds
        self.maxTokens = maxTokens
        self.maxConcurrentRequests = maxConcurrentRequests
        self.maxImageSide = maxImageSide
        self.retries = retries
        self.retryBaseDelaySeconds = retryBaseDelaySeconds
        self.maxRetryDelaySeconds = maxRetryDelaySeconds
        self.languages = languages
    }

    /// Gemini through Vertex AI: the base URL already names `/projects/…/locations/…`.
    public var isVertex: Bool { provider == .gemini && baseURL.path.contains("/projects/") }

    public var description: String {
        "\(provider.rawValue) \(model) at \(baseURL.absoluteString) (key \(apiKey == nil ? "none" : "from \(apiKeyEnv ?? "config")"))"
    }
}
