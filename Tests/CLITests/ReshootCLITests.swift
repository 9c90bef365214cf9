import Foundation
import TestSupport
import Testing

/// Issue 36: the summary names the photos to take again — a barcode seen and not read —
/// apart from the photos with no barcode, through the real binary on real photos.
@Suite(.serialized) struct ReshootCLITests {
    /// A UPC-A zbar reads once and never confirms (bars there, digits not sure).
    static let unread = "zxing-upca-2/04.png"
    /// Photos without a retail barcode: the second has patches the model fits and refuses,
    /// which is no reason to take it again.
    static let noBarcode = ["zxingcpp-falsepositives-1/01.png", "zxingcpp-falsepositives-1/15.png"]

    static func folder(_ harness: CLIHarness) throws -> URL {
        let images = try SharedFiles.requireImage("barcodes")
        let folder = harness.directory.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (index, path) in ([unread] + noBarcode).enumerated() {
            let target = folder.appendingPathComponent(String(format: "%02d-", index) + path.replacingOccurrences(of: "/", with: "-"))
            try FileManager.default.copyItem(at: images.appendingPathComponent(path), to: target)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_795_000_000 + Double(index))],
                                                  ofItemAtPath: target.path)
        }
        return folder
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func theSummaryNamesThePhotosToReshootApartFromThoseWithoutABarcode() async throws {
        let harness = try CLIHarness()
        let folder = try Self.folder(harness)
        let shot = folder.appendingPathComponent("00-zxing-upca-2-04.png").path

        let json = try await harness.run("scan", "--offline", "--json", folder.path)
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.events("unreadCode").compactMap { $0["file"] as? String } == [shot], "\(json.stdout)")
        #expect(json.events("noCode").count == 2, "\(json.stdout)")
        let summary = try #require(json.summary)
        #expect(summary["unreadCode"] as? Int == 1 && summary["noCode"] as? Int == 2, "\(summary)")
        #expect(summary["unreadCodeFiles"] as? [String] == [shot])

        // What a person reads: the one photo to take again, by name, and the others counted.
        let human = try await harness.run("scan", "--offline", "--rescan", folder.path)
        #expect(human.status == 0, "\(human.stderr)")
        let lines = human.stdoutLines
        let heading = try #require(lines.firstIndex(of: "  Could not read — re-shoot: 1"), "\(human.stdout)")
        #expect(lines[heading + 1] == "    \(shot)", "\(human.stdout)")
        #expect(lines.contains { $0.contains("2 frames without a barcode") }, "\(human.stdout)")
        #expect(!human.stdout.contains("falsepositives"), "no photo without a barcode is named: \(human.stdout)")
    }
}
