import BookCodes
import Testing

/// A scanned EAN-13 under a prefix nobody holds is a misread, refused with a reason.
@Suite struct GS1PrefixTests {
    @Test func assignedPrefixesAreKept() throws {
        // Bookland, US/UPC, restricted circulation (in-store), coupons, Germany, Japan, China, Norway.
        for code in ["9780596008574", "0036000291452", "2000000000008", "0500000000005", "4006381333931", "4901234567894", "6901234567892", "7044610873466"] {
            #expect(GS1Prefix.isAssigned(gtin13: code), "\(code.prefix(3))")
            #expect(throws: Never.self) { try CodeValidator.validate(symbology: .ean13, text: code) }
        }
    }

    @Test func aMisreadUnderAnUnassignedPrefixIsRefused() {
        // The webcam misread of 9780596008574: a valid check digit, prefix 678 held by nobody.
        #expect(!GS1Prefix.isAssigned(gtin13: "6780186008574"))
        #expect(throws: BookCodeError.unassignedGS1Prefix("678")) {
            try CodeValidator.validate(symbology: .ean13, text: "6780186008574")
        }
        #expect(BookCodeError.unassignedGS1Prefix("678").description.contains("678"))
        // Typed codes (import, lookup) go through GTIN and are not second-guessed.
        #expect(throws: Never.self) { try GTIN(validating: "6780186008574") }
    }

    @Test func theTableLeavesMostPrefixesAssigned() {
        let unassigned = (0..<1000).filter { !GS1Prefix.isAssigned(gtin13: String(format: "%03d", $0) + "0000000000") }
        #expect(unassigned.count > 100 && unassigned.count < 500)
        #expect(!unassigned.contains(978) && !unassigned.contains(979) && !unassigned.contains(0))
        #expect(!GS1Prefix.isAssigned(gtin13: "12345"))
    }
}
