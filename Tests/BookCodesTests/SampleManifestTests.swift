import Foundation
import Testing
@testable import BookCodes

/// SampleImages/manifest.tsv promises codes other tests decode; each must be a valid code.
@Suite struct SampleManifestTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func manifestRows() throws -> [(file: String, codes: [String])] {
        let text = try String(contentsOf: packageRoot.appending(path: "SampleImages/manifest.tsv"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            return (String(columns[0]), columns[1].split(separator: " ").map(String.init))
        }
    }

    @Test func everyExpectedCodeIsValid() throws {
        let rows = try Self.manifestRows()
        #expect(rows.count >= 25)
        var books: Set<String> = []
        for row in rows {
            #expect(FileManager.default.fileExists(atPath: Self.packageRoot.appending(path: "SampleImages/\(row.file)").path),
                    "\(row.file) is listed but missing")
            for code in row.codes {
                let parts = code.split(separator: ":", maxSplits: 1).map(String.init)
                let symbology = try #require(Symbology(rawValue: parts[0]), "\(row.file): \(code)")
                if symbology.isAddOn {
                    #expect(try AddOn(validating: parts[1], as: symbology).price != nil, "\(row.file): \(code)")
                } else if let isbn = try CodeValidator.validate(symbology: symbology, text: parts[1]).isbn13 {
                    books.insert(isbn.digits)
                }
            }
        }
        // The fixture ISBNs, and a 979 one.
        #expect(books.isSuperset(of: ["9780990582939", "9781250313188", "9781761186769", "9780316030571",
                                      "9782070427796", "9780306406157"]))
        #expect(books.contains { $0.hasPrefix("979") })
        #expect(rows.contains { $0.codes.isEmpty }, "some pictures have no code")
    }
}
