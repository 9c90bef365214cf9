import BarcodeReading
import Foundation
@testable import RapidScanCLI
import Testing

/// `decode`'s summary says what it refused to report, not only what it read.
@Suite struct DecodeTallyTests {
    private func scan(ambiguities: Int = 0, unconfirmed: Int = 0, contradicted: Int = 0) -> FileScanResult {
        FileScanResult(codes: [], rejected: [], imageWidth: 640, imageHeight: 480,
                       ambiguities: ambiguities, unconfirmed: unconfirmed, contradicted: contradicted)
    }

    @Test func refusedReadsAreCountedInTheSummaryAndItsJSON() throws {
        var tally = DecodeTally()
        tally.record(scan(unconfirmed: 2))
        tally.record(scan(ambiguities: 1, unconfirmed: 1, contradicted: 1))
        tally.record(scan())
        let line = tally.summary(seconds: 1)
        #expect(line.contains("3 without a code"))
        #expect(line.contains("1 ambiguous, not reported"))
        #expect(line.contains("3 unconfirmed, not reported"))
        #expect(line.contains("1 contradicted by the pixels, not reported"))
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(DecodeSummaryRecord(tally))) as? [String: Any]
        #expect(json?["unconfirmed"] as? Int == 3)
        #expect(json?["ambiguous"] as? Int == 1)
        #expect(json?["contradicted"] as? Int == 1)
    }

    @Test func aCleanRunMentionsNoRefusals() {
        var tally = DecodeTally()
        tally.record(scan())
        #expect(!tally.summary(seconds: 1).contains("unconfirmed"))
        #expect(!tally.summary(seconds: 1).contains("contradicted"))
    }
}
