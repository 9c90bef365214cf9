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
    /// PP-OCR also reads the photo turned 90° clockwise where no sure line was read (bottom-to-top spines);
    /// nil = `ppocrTurnedByDefault`.
    public var ppocrTurned: Bool?
    /// On: on the rendered hard shelves' checking half it read 94 -> 97 of 136 (never read 11 -> 8), 0 wrong,
    /// for ~3 s more CPU a photo; the real checking half 57 -> 57 (docs/PERFORMANCE.md, stop 37, lead).
    public static let ppocrTurnedByDefault = true
    /// PP-OCR also reads, each on its own (cut out, 64 px across), the spine strips where its passes read a
    /// line but no sure one; nil = `ppocrStripsByDefault`.
    public var ppocrStrips: Bool?
    /// On since stop 41, when the pass was asked for beside Tesseract's: real checking half offline 64 -> 65 of 99,
    /// tuning 61 -> 63 of 100, rendered hard checking 110 -> 112 of 136, 0 wrong, +0.2-0.7 s CPU a photo and the wall
    /// within the runs' noise (docs/PERFORMANCE.md, "Stop 41: the merged tree"; stop 40 it cost ~8 s wall, off).
    public static let ppocrStripsByDefault = true

    public init() {}
}

extension EnvironmentVariable {
    public static let visionProvider = "RAPIDSCAN_VISION_PROVIDER"
    public static let visionURL = "RAPIDSCAN_VISION_URL"
    public static let visionModel = "RAPIDSCAN_VISION_MODEL"
    public static let visionAPIKeyEnv = "RAPIDSCAN_VISION_API_KEY_ENV"
}
