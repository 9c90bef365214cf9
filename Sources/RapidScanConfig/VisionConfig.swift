import Foundation

/// `[vision]` in config.toml, after `RAPIDSCAN_VISION_*` overrides; unset keys are nil and
/// take the provider's defaults. The key itself is never stored here: only the name of the
/// variable holding it.
public struct VisionConfig: Sendable, Hashable {
    public static let providers: Set<String> = ["openai", "ollama", "gemini", "anthropic", "tesseract"]

    public var provider: String?
    public var baseURL: URL?
    public var model: String?
    public var apiKeyEnv: String?
    public var temperature: Double?
    public var timeoutSeconds: Double?
    public var maxTokens: Int?
    public var maxConcurrentRequests: Int?
    public var maxImageSide: Int?
    /// A Mustache prompt template file.
    public var prompt: String?
    /// provider "tesseract": traineddata names (["eng", "spa"]), page segmentation mode, turns read.
    public var languages: [String]?
    public var psm: Int?
    public var rotations: [Int]?
    /// Local reading's PP-OCR worker: "auto" (.ppocr-venv when installed), "off", or a Python's path.
    public var ppocr: String?
    /// PP-OCR also reads the photo turned 90° clockwise where no sure line was read (bottom-to-top spines); nil = off.
    public var ppocrTurned: Bool?

    public init() {}
}

extension EnvironmentVariable {
    public static let visionProvider = "RAPIDSCAN_VISION_PROVIDER"
    public static let visionURL = "RAPIDSCAN_VISION_URL"
    public static let visionModel = "RAPIDSCAN_VISION_MODEL"
    public static let visionAPIKeyEnv = "RAPIDSCAN_VISION_API_KEY_ENV"
}
