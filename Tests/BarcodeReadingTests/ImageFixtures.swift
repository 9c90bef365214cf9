import BarcodeReading
import Foundation
import Imaging

extension FileScanResult {
    /// Valid codes and their add-ons as "SYMBOLOGY:TEXT" (the form of SampleImages/manifest.tsv).
    var manifestCodes: Set<String> {
        Set(codes.flatMap { code in
            ["\(code.symbology.rawValue):\(code.text)"]
                + (code.addOn.map { ["\($0.symbology.rawValue):\($0.text)"] } ?? [])
        })
    }
}

/// Rows of a tab-separated manifest with a header line, keyed by column name.
func manifestRows(_ url: URL) throws -> [[String: String]] {
    let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
    guard let header = lines.first?.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    else { return [] }
    return lines.dropFirst().map { line in
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        return Dictionary(uniqueKeysWithValues: zip(header, fields + Array(repeating: "", count: header.count)))
    }
}

/// A white canvas with `image` pasted at (`x`, `y`), each source pixel as a `zoom`×`zoom` block.
func canvas(width: Int, height: Int, pasting image: GrayImage, at x: Int, _ y: Int, zoom: Int = 1) -> GrayImage {
    var pixels = [UInt8](repeating: 255, count: width * height)
    for row in 0..<image.height * zoom {
        let start = (y + row) * width + x
        for column in 0..<image.width * zoom {
            pixels[start + column] = image[column / zoom, row / zoom]
        }
    }
    return GrayImage(width: width, height: height, pixels: pixels)
}

/// Scans files on all cores and returns the results by file, failing on unreadable ones.
func scanAll(_ urls: [URL]) async throws -> [URL: FileScanResult] {
    var results: [URL: FileScanResult] = [:]
    for await (_, url, result) in ParallelFileScanner().scan(urls) {
        results[url] = try result.get()
    }
    return results
}
