import Foundation
import RapidScanConfig
import Testing

/// `[vision]` and its environment overrides.
@Suite struct VisionConfigTests {
    static let toml = """
        [vision]
        provider = "gemini"
        baseURL = "https://europe-west4-aiplatform.googleapis.com/v1/projects/p/locations/europe-west4"
        model = "gemini-2.0-flash"
        apiKeyEnv = "VERTEX_TOKEN"
        temperature = 0.2
        timeoutSeconds = 90
        maxTokens = 3000
        maxConcurrentRequests = 3
        maxImageSide = 1600
        prompt = "spines.mustache"
        """

    @Test func everyKeyIsRead() throws {
        let vision = try RapidScanSettings.parse(toml: Self.toml, path: "/etc/rapidscan/config.toml").vision
        #expect(vision.provider == "gemini")
        #expect(vision.baseURL?.absoluteString == "https://europe-west4-aiplatform.googleapis.com/v1/projects/p/locations/europe-west4")
        #expect(vision.model == "gemini-2.0-flash")
        #expect(vision.apiKeyEnv == "VERTEX_TOKEN")
        #expect(vision.temperature == 0.2)
        #expect(vision.timeoutSeconds == 90)
        #expect(vision.maxTokens == 3000)
        #expect(vision.maxConcurrentRequests == 3)
        #expect(vision.maxImageSide == 1600)
        // A path value: relative to the config file's folder (ConfigPath).
        #expect(vision.prompt == "/etc/rapidscan/spines.mustache")
    }

    @Test func environmentWinsOverTheFile() throws {
        let vision = try RapidScanSettings.parse(toml: Self.toml, environment: [
            "RAPIDSCAN_VISION_PROVIDER": "ollama", "RAPIDSCAN_VISION_URL": "http://127.0.0.1:11434",
            "RAPIDSCAN_VISION_MODEL": "qwen2.5vl:7b", "RAPIDSCAN_VISION_API_KEY_ENV": "OTHER_KEY",
        ]).vision
        #expect(vision.provider == "ollama")
        #expect(vision.baseURL?.absoluteString == "http://127.0.0.1:11434")
        #expect(vision.model == "qwen2.5vl:7b")
        #expect(vision.apiKeyEnv == "OTHER_KEY")
    }

    @Test func ppocrTurnedIsReadAndOnlyABoolean() throws {
        #expect(try RapidScanSettings.parse(toml: Self.toml).vision.ppocrTurned == nil)
        #expect(try RapidScanSettings.parse(toml: "[vision]\nppocrTurned = false").vision.ppocrTurned == false)
        do {
            _ = try RapidScanSettings.parse(toml: "[vision]\nppocrTurned = \"yes\"")
            Issue.record("accepted ppocrTurned \"yes\"")
        } catch {
            #expect("\(error)".contains("vision.ppocrTurned") && "\(error)".contains("true or false"))
        }
        #expect(try RapidScanSettings.parse(toml: Self.toml).vision.ppocrStrips == nil)
        #expect(try RapidScanSettings.parse(toml: "[vision]\nppocrStrips = false").vision.ppocrStrips == false)
        #expect(throws: (any Error).self) { _ = try RapidScanSettings.parse(toml: "[vision]\nppocrStrips = 16") }
    }

    @Test func badValuesNameTheKey() {
        #expect(throws: ConfigError.self) { try RapidScanSettings.parse(toml: "[vision]\nprovider = \"clippy\"") }
        do {
            _ = try RapidScanSettings.parse(toml: "[vision]\nmaxImageSide = 10")
            Issue.record("accepted maxImageSide 10")
        } catch {
            #expect("\(error)".contains("vision.maxImageSide"))
        }
        do {
            _ = try RapidScanSettings.parse(toml: "[vision]\nmodle = \"x\"")
            Issue.record("accepted an unknown key")
        } catch {
            #expect("\(error)".contains("modle"))
        }
        #expect(throws: ConfigError.self) { try RapidScanSettings.parse(toml: "", environment: ["RAPIDSCAN_VISION_PROVIDER": "clippy"]) }
    }
}
