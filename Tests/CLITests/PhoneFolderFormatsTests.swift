import Foundation
import TestSupport
import Testing

/// A phone's photo folder as a new user has it (HEIC from an iPhone, WebP from an app, a
/// JPEG), plus a GIF and a camera raw file: `decode` and `scan` read the first three kinds
/// and name each file they cannot read; none is skipped without a word.
@Suite struct PhoneFolderFormatsTests {
    static func phoneFolder(in root: URL) throws -> URL {
        let folder = root.appendingPathComponent("DCIM")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, sample) in [("IMG_0001.HEIC", "isbn-9780306406157-irot.heic"),
                               ("IMG_0002.HEIC", "scene-9781250313188.heic"),
                               ("IMG_0003.webp", "scene-two-books.webp"),
                               ("IMG_0004.JPG", "isbn-9791090636071-cad.jpg")] {
            try FileManager.default.copyItem(at: SharedFiles.sampleImages.appendingPathComponent(sample),
                                             to: folder.appendingPathComponent(name))
        }
        try Data("GIF89a\u{1}\u{0}\u{1}\u{0}\u{0}\u{0}\u{0};".utf8).write(to: folder.appendingPathComponent("anim.gif"))
        try Data([0x49, 0x49, 0x55, 0, 0x18, 0, 0, 0]).write(to: folder.appendingPathComponent("P1000.RW2"))
        return folder
    }

    @Test func decodeReadsHEICAndWebPAndNamesTheRest() async throws {
        let harness = try CLIHarness()
        let folder = try Self.phoneFolder(in: harness.directory)
        let result = try await harness.run(["decode", "--raw", folder.path])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(Set(result.stdoutLines) == ["9780306406157", "9781250313188", "9782070427796", "9791090636071"])
        #expect(result.stdoutLines.count == 5)
        for name in ["anim.gif", "P1000.RW2"] {
            #expect(result.stderrLines.contains { $0.contains(name) && $0.contains("unsupported format") }, "\(result.stderr)")
        }
    }

    @Test func scanReadsHEICAndWebPAndNamesTheRest() async throws {
        let harness = try CLIHarness()
        let folder = try Self.phoneFolder(in: harness.directory)
        let result = try await harness.run(["scan", "--json", "--offline", folder.path])
        #expect(result.status == 1, "an unreadable file wins over queued books: \(result.stderr)")
        let queued = Set(result.events("queued").compactMap { $0["isbn13"] as? String })
        #expect(queued == ["9780306406157", "9781250313188", "9782070427796", "9791090636071"])
        let unreadable = result.events("unreadable").compactMap { $0["file"] as? String }
        #expect(Set(unreadable.map { ($0 as NSString).lastPathComponent }) == ["anim.gif", "P1000.RW2"])
    }
}
