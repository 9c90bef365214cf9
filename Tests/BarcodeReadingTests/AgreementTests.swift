import BookCodes
import Testing
@testable import BarcodeReading

/// Which reads are reported: confirmed, not contradicted, shadows dropped.
@Suite struct AgreementTests {
    func read(_ symbology: Symbology, _ text: String, quality: Int,
              at box: BoundingBox = BoundingBox(x: 100, y: 100, width: 200, height: 80)) -> Detection {
        Detection(symbology: symbology, text: text, quality: quality, bounds: box)
    }

    @Test func aCodeReadByManyLinesIsReported() {
        var agreement = Agreement()
        agreement.record(read(.ean13, "9780306406157", quality: 40), attempt: "1/4 scale")
        #expect(agreement.verdict.codes.map(\.text) == ["9780306406157"])
    }

    @Test func aWeakSingleReadIsNotReportedUntilAnotherAttemptAgrees() {
        var agreement = Agreement()
        agreement.record(read(.ean13, "9780306406157", quality: 2), attempt: "1/4 scale")
        #expect(agreement.verdict.codes.isEmpty)
        #expect(agreement.verdict.unconfirmed == 1)
        agreement.record(read(.ean13, "9780306406157", quality: 1), attempt: "full size")
        #expect(agreement.verdict.codes.map(\.text) == ["9780306406157"])
    }

    @Test func twoTurnsOfOneCopyAreOneAttempt() {
        // The doubled copy turned -6° and +6° misread a soft symbol alike: together they confirm nothing.
        var agreement = Agreement()
        agreement.record(read(.ean13, "9781061206099", quality: 2), attempt: "doubled, turned -6°")
        agreement.record(read(.ean13, "9781061206099", quality: 3), attempt: "doubled, turned 6°")
        #expect(agreement.verdict.codes.isEmpty)
        #expect(agreement.verdict.unconfirmed == 1)
        // Another kind of copy agreeing does confirm.
        agreement.record(read(.ean13, "9781061206099", quality: 1), attempt: "equalised")
        #expect(agreement.verdict.codes.map(\.text) == ["9781061206099"])
        #expect(Agreement.family(of: "region 2, level") == "region 2, level")
    }

    @Test func aShortCodeNeedsManyLinesEvenWhenRepeated() {
        var agreement = Agreement()
        agreement.record(read(.upcE, "02212166", quality: 4), attempt: "full size")
        agreement.record(read(.upcE, "02212166", quality: 4), attempt: "region doubled")
        #expect(agreement.verdict.codes.isEmpty)
    }

    @Test func aUPCEInsideAUPCAIsItsShadow() {
        var agreement = Agreement()
        agreement.record(read(.upcA, "625034201058", quality: 30), attempt: "1/4 scale")
        agreement.record(read(.upcE, "00870340", quality: 12,
                              at: BoundingBox(x: 150, y: 120, width: 60, height: 20)), attempt: "1/4 scale")
        let verdict = agreement.verdict
        #expect(verdict.codes.map(\.text) == ["625034201058"])
        #expect(verdict.shadows == 1)
        #expect(verdict.ambiguities == 0)
    }

    @Test func twoStrongDifferentCodesAtOnePlaceAreAnAmbiguityAndNeitherIsReported() {
        var agreement = Agreement()
        agreement.record(read(.upcA, "066121070995", quality: 20), attempt: "1/4 scale")
        agreement.record(read(.upcA, "066721010995", quality: 15), attempt: "full size")
        let verdict = agreement.verdict
        #expect(verdict.codes.isEmpty)
        #expect(verdict.ambiguities == 1)
    }

    @Test func aWeakReadBesideAFarStrongerOneLoses() {
        var agreement = Agreement()
        agreement.record(read(.upcA, "752050200137", quality: 36), attempt: "1/4 scale")
        agreement.record(read(.ean13, "9711010200137", quality: 5,
                              at: BoundingBox(x: 170, y: 95, width: 70, height: 7)), attempt: "1/4 scale")
        let verdict = agreement.verdict
        #expect(verdict.codes.map(\.text) == ["752050200137"])
        #expect(verdict.ambiguities == 0)
    }

    @Test func twoCodesFarApartAreBothReported() {
        var agreement = Agreement()
        agreement.record(read(.ean13, "9780306406157", quality: 30), attempt: "1/4 scale")
        agreement.record(read(.ean13, "9781861972712", quality: 30,
                              at: BoundingBox(x: 900, y: 700, width: 200, height: 80)), attempt: "1/4 scale")
        #expect(agreement.verdict.codes.count == 2)
    }

    @Test func linesOfASharpenedCopyAloneDoNotConfirm() {
        // Blurred bars sharpened read 9781467688437 as 9181461688431 (three 7s as 1s, check
        // digit still valid) on every line of that copy.
        var agreement = Agreement()
        agreement.record(read(.ean13, "9181461688431", quality: 146), attempt: "doubled and sharpened", sharpened: true)
        #expect(agreement.verdict.codes.isEmpty)
        #expect(agreement.verdict.unconfirmed == 1)
        agreement.record(read(.ean13, "9181461688431", quality: 3), attempt: "equalised")
        #expect(agreement.verdict.codes.map(\.text) == ["9181461688431"])
    }

    @Test func aCodeReadOneWayOnlyIsNeverConfirmed() {
        var oneWay = read(.ean13, "6781188298079", quality: 7)
        oneWay.readBothWays = false
        var agreement = Agreement()
        agreement.record(oneWay, attempt: "full size")
        agreement.record(oneWay, attempt: "1/2 scale")
        #expect(agreement.verdict.codes.isEmpty)
        var bothWays = oneWay
        bothWays.readBothWays = true
        agreement.record(bothWays, attempt: "reduced 1/2")
        #expect(agreement.verdict.codes.map(\.text) == ["6781188298079"])
    }
}
