import BarcodeReading
import BookCodes
import Foundation
import Imaging
import Pipeline
import TestSupport
import Testing

/// `watch`'s frame decoder with real zbar on the project's sample pictures: a 1280×720
/// frame is scanned at half size first and only its places of interest at full size,
/// smaller ones whole at full size, and whatever the path no code is reported that the
/// picture does not hold (confirmation, no UPC-E shadows).
@Suite struct LiveFrameDecoderTests {
    /// SampleImages/manifest.tsv: file → main codes (add-ons left out: they travel with a code).
    static func manifest() throws -> [(file: String, codes: Set<String>)] {
        let text = try String(contentsOf: SharedFiles.sampleImages.appendingPathComponent("manifest.tsv"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            let codes = columns[1].split(separator: " ").map(String.init).filter { !$0.hasPrefix("EAN-2:") && !$0.hasPrefix("EAN-5:") }
            return (String(columns[0]), Set(codes))
        }
    }

    static func mainCodes(_ outcome: DecodedFrame.Outcome) -> Set<String>? {
        guard case .read(let detections, _, _, _, _) = outcome else { return nil }
        return Set(detections.filter { $0.isValid && !$0.symbology.isAddOn }.map { "\($0.symbology.rawValue):\($0.text)" })
    }

    @Test func readsAWebcamSizeFrameHalfSizeFirstWithoutMissingTheSecondBook() throws {
        let url = SharedFiles.sampleImages.appendingPathComponent("scene-two-books.jpg")
        let reader = try LiveFrameReader()
        let reading = try reader.read(fileAt: url)
        #expect(Set(reading.codes.map(\.text)) == ["9780306406157", "9782070427796"])
        #expect(reading.passes.first == "1/2 size", "a 1280×720 frame is scanned at half size first")
        #expect(!reading.passes.contains("full size"), "then places, never the whole frame at full size")
        // The same frame through the stage watch uses.
        let decoded = try LiveFrameDecoder().decode(Frame.file(at: url))
        #expect(Self.mainCodes(decoded) == ["EAN-13:9780306406157", "EAN-13:9782070427796"])
    }

    @Test func neverReportsACodeThePictureDoesNotHold() throws {
        let decoder = try LiveFrameDecoder()
        var read = 0, withCodes = 0
        for row in try Self.manifest() {
            let url = SharedFiles.sampleImages.appendingPathComponent(row.file)
            guard ImageLoader.isSupportedImage(url) else { continue }
            guard let codes = Self.mainCodes(decoder.decode(try Frame.file(at: url))) else {
                Issue.record("\(row.file) could not be read as an image")
                continue
            }
            #expect(codes.isSubset(of: row.codes), "\(row.file): \(codes.subtracting(row.codes)) is not on it")
            if !row.codes.isEmpty { withCodes += 1 }
            if !codes.isEmpty { read += 1 }
        }
        // One plain pass per frame, not the photo strategy: most, not all, of the pictures
        // (the hard ones are for `scan`); the exact count is the benchmark's business.
        #expect(withCodes >= 25)
        #expect(read * 2 >= withCodes, "read \(read) of \(withCodes)")
    }

    @Test func anUnreadableFrameIsAnOutcomeNotACrash() throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("broken.jpg")
            try Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A, 0x46]).write(to: url)
            guard case .unreadable(let reason) = try LiveFrameDecoder().decode(Frame.file(at: url)) else {
                Issue.record("a truncated JPEG decoded")
                return
            }
            #expect(reason.contains("broken.jpg"))
        }
    }
}
