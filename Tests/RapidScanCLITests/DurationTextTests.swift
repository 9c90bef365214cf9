@testable import RapidScanCLI
import Testing

/// `--debounce 3s`: the CLI's duration syntax (parsed once, through the option's transform).
@Suite struct DurationTextTests {
    @Test(arguments: [("3s", 3.0), ("2.5", 2.5), ("500ms", 0.5), ("1.5s", 1.5), ("2m", 120.0), (" 0 ", 0.0)])
    func parsesDurations(text: String, seconds: Double) throws {
        #expect(try DurationText.seconds(from: text) == seconds)
    }

    @Test(arguments: ["", "s", "three", "-1s", "3x", "1e3"])
    func rejectsBadDurations(text: String) {
        #expect(throws: DurationText.ParseError.invalid(text)) { try DurationText.seconds(from: text) }
    }

    @Test func durationErrorNamesTheValue() {
        #expect(DurationText.ParseError.invalid("3x").description.contains("'3x'"))
    }
}
