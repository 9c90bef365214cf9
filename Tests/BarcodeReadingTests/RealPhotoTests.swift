import BarcodeReading
import BookCodes
import Foundation
import Testing
import TestSupport

/// The real photos in ../shared/images/barcodes (public decoder test suites).
@Suite struct RealPhotoTests {
    /// zbarimg 0.23.92 reads 139 of the 163 codes; rapidscan reads 148, the same in any order
    /// or number of workers (146 main codes plus the two stand-alone add-ons, which it
    /// reports as rejected).
    static let requiredReads = 148
    /// Check-digit-valid codes that are not the manifest's, as (file, code): upca-2/25 also
    /// yields 9711010200137 beside the right code (zbarimg reads the same pair), and
    /// upca-2/38 a UPC-E 02212166 that zbarimg reads too. Any other would put a wrong book in
    /// a library; one leaving this list only makes it shorter.
    static let knownMisreads: Set<String> = [
        "zxing-upca-2/25.png=9711010200137",
        "zxing-upca-2/38.png=02212166",
    ]

    @Test func readsMoreCodesThanZbarimgAndNothingOnTheNegatives() async throws {
        let folder = try SharedFiles.requireImage("barcodes")
        let rows = try manifestRows(folder.appendingPathComponent("manifest.tsv"))
        let results = try await scanAll(rows.map { folder.appendingPathComponent($0["relpath"] ?? "") })
        var read = 0, expected = 0, misses: [String] = [], misreads: [String] = []
        for row in rows {
            let path = row["relpath"] ?? "", text = row["expected_text"] ?? ""
            let result = try #require(results[folder.appendingPathComponent(path)])
            guard let symbology = Symbology(rawValue: row["symbology"] ?? "") else {
                // A negative: no code, and no rejected symbol either.
                #expect(result.codes.isEmpty && result.rejected.isEmpty, "\(path): \(result.codes + result.rejected)")
                continue
            }
            expected += 1
            let found: Bool
            if symbology.isAddOn {
                found = result.rejected.contains { $0.symbology == symbology && $0.text == text }
            } else {
                let gtin13 = try GTIN(validating: text, as: symbology).gtin13
                found = result.codes.contains { $0.productCode?.gtin13 == gtin13 }
                // A valid-looking code that is not the one in the picture (the check digit
                // catches most misreads, not all): would become a wrong book in a library.
                for code in result.codes where code.productCode?.gtin13 != gtin13 {
                    misreads.append("\(path)=\(code.text)")
                }
            }
            if found { read += 1 } else { misses.append(path) }
        }
        print("real photos: read \(read) of \(expected) codes; missed \(misses.joined(separator: " "))")
        print("real photos: \(misreads.count) misread: \(misreads.joined(separator: " "))")
        #expect(expected == 163)
        #expect(read >= Self.requiredReads)
        #expect(Set(misreads).subtracting(Self.knownMisreads).isEmpty, "new misreads: \(Set(misreads).subtracting(Self.knownMisreads))")
    }
}

/// SampleImages: pictures the project renders itself, with every code listed.
@Suite struct SampleImageTests {
    @Test func everySampleDecodesToExactlyItsManifestCodes() async throws {
        let rows = try manifestRows(SharedFiles.sampleImages.appendingPathComponent("manifest.tsv"))
        #expect(rows.count >= 30)
        let urls = rows.map { SharedFiles.sampleImages.appendingPathComponent($0["file"] ?? "") }
        let results = try await scanAll(urls)
        for (row, url) in zip(rows, urls) {
            let expected = Set((row["expected"] ?? "").split(separator: " ").map(String.init))
            let result = try #require(results[url])
            #expect(result.manifestCodes == expected, "\(url.lastPathComponent) (\(row["note"] ?? ""))")
            #expect(result.rejected.isEmpty, "\(url.lastPathComponent): \(result.rejected)")
        }
    }
}
