import Foundation

/// An Open Library dump written by scripts/generate-ol-dump (the real format, from the real
/// records in ../shared/fixtures/openlibrary and the goodbooks catalogue).
public struct GeneratedDump: Sendable {
    public var file: URL
    /// The malformed rows the generator wrote: line number and what is wrong.
    public var malformed: [(line: Int, reason: String)]

    /// `arguments` are the generator's (`--catalogue`, `--limit`, `--filler`, `--malformed`, `--gzip`).
    public static func generate(_ arguments: [String], to file: URL) async throws -> GeneratedDump {
        let script = SharedFiles.projectRoot.appendingPathComponent("scripts/generate-ol-dump")
        let result = try await runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script.path, file.path] + arguments)
        guard result.status == 0 else {
            throw GenerationFailed(message: "generate-ol-dump exited \(result.status): \(result.stderr)")
        }
        let malformed = result.stderr.split(separator: "\n").compactMap { line -> (Int, String)? in
            let parts = line.split(separator: " ", maxSplits: 2)
            guard parts.count == 3, parts[0] == "malformed", let number = Int(parts[1]) else { return nil }
            return (number, String(parts[2]))
        }
        return GeneratedDump(file: file, malformed: malformed)
    }

    /// The goodbooks catalogue the generator takes its books from.
    public static var catalogue: String { SharedFiles.fixture("catalogue/goodbooks-10k-books.csv")?.path ?? "" }

    struct GenerationFailed: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
