import BarcodeReading
import BookCodes
import Foundation
import Imaging
import Testing
import TestSupport
@testable import PrintedISBN

/// The follow-up on a real photo: the digits printed under the bars vouch for the bars'
/// reading or refuse it, and a photo left with no code is read from its printed ISBN.
@Suite(.serialized) struct PrintedISBNFollowUpTests {
    static let source = "barcodes/zxing-ean13-3/10.png"  // printed: ISBN 0-596-00857-0, 9 780596 008574

    /// The bars as zbar read them, and the photo upright.
    static func barsAndPixels() throws -> (FileScanResult, GrayImage) {
        let url = try SharedFiles.requireImage(source)
        return (try FileScanner().scan(fileAt: url), try ImageLoader.load(contentsOf: url).image)
    }

    @Test func digitsThatAgreeLeaveTheCode() throws {
        let (bars, pixels) = try Self.barsAndPixels()
        #expect(bars.codes.map(\.text) == ["9780596008574"])
        let followed = PrintedISBNFollowUp(budget: .forEffort(.normal)!).followUp(bars) { pixels }
        #expect(followed.codes.map(\.text) == ["9780596008574"])
        #expect(followed.codes.map(\.symbology) == [.ean13])
        #expect(followed.ambiguities == bars.ambiguities)
    }

    /// The held-out failure's shape: bars misread as another valid EAN-13 that nothing else
    /// confirmed; the printed digits contradict it, so it is refused (an ambiguity) and the
    /// ISBN printed on the book is reported instead.
    @Test func digitsThatContradictAMisreadRefuseIt() throws {
        let (bars, pixels) = try Self.barsAndPixels()
        let real = try #require(bars.codes.first)
        // 9074932437075: the EAN-13 zbar and zxing-cpp read from a UPC-A printed 0 23942 43101 5.
        let misread = Detection(symbology: .ean13, text: "9074932437075", quality: real.quality, bounds: real.bounds)
        #expect(misread.isValid)
        var wrong = bars
        wrong.codes = [misread]
        let followed = PrintedISBNFollowUp(budget: .forEffort(.normal)!).followUp(wrong) { pixels }
        #expect(!followed.codes.contains { $0.text == "9074932437075" })
        #expect(followed.ambiguities == bars.ambiguities + 1)
        #expect(followed.codes.map(\.symbology) == [.printed])
        #expect(followed.codes.map(\.text) == ["9780596008574"])
    }

    /// The witness is read only for a code nothing independent of its bars vouched for: the
    /// same misread with an add-on beside it costs no digit read; the model's fit or the pixel
    /// check (the same bars again) still has it refused by the digits.
    @Test func onlyAnAddOnSparesACodeTheDigitRead() throws {
        let (bars, pixels) = try Self.barsAndPixels()
        let real = try #require(bars.codes.first)
        for corroboration in Detection.Corroboration.allCases {
            var vouched = Detection(symbology: .ean13, text: "9074932437075", quality: real.quality, bounds: real.bounds)
            vouched.corroborations = [corroboration]
            var result = bars
            result.codes = [vouched]
            var asked = false
            let followed = PrintedISBNFollowUp(budget: .forEffort(.normal)!).followUp(result) { asked = true; return pixels }
            if corroboration == .addOn {
                #expect(followed.codes.map(\.text) == ["9074932437075"], "\(corroboration)")
                #expect(!asked, "\(corroboration): the pixels were asked for")
            } else {
                #expect(!followed.codes.contains { $0.text == "9074932437075" }, "\(corroboration)")
                #expect(followed.ambiguities == bars.ambiguities + 1, "\(corroboration)")
            }
        }
    }

    @Test func aPageWithAnOtherFormatISBNOnlyReportsItRejected() throws {
        // A page is not rendered here (no font rasteriser in the tests): the rule on the
        // reading is the text rule's (PrintedTextTests.formatsBesideANumber) plus this one.
        let number = try #require(PrintedText.numbers(in: "ISBN 978-0-596-00857-4 (ebook)").first)
        #expect(number.isOtherFormat)
        let error = BookCodeError.otherFormat(isbn: number.isbn.digits, label: number.format ?? "")
        #expect(error.description == "ISBN 9780596008574 is printed for another format (ebook), not this copy: not added")
    }
}
