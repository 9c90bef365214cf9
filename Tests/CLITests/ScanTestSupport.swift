import Foundation
import TestSupport

/// Fixture routes and photo folders for the scan/watch end-to-end tests.
extension CLIHarness {
    /// Books the recorded Google Books fixtures know, by ISBN.
    static let googleFixtures = [
        "9780990582939": "googlebooks/volumes_isbn_9780990582939_no_edge_curl_us.json",
        "9781250313188": "googlebooks/volumes_isbn_9781250313188_no_edge_curl_us.json",
        "9781761186769": "googlebooks/volumes_isbn_9781761186769_single_hit_nz.json",
    ]

    /// Google Books knows the three fixture books; every other ISBN is a miss on both sources.
    func startServer() async throws {
        try server.replay("/books/v1/volumes", fixture: "googlebooks/volumes_zero_results_no_items_key.json")
        for (isbn, fixture) in Self.googleFixtures {
            try server.replay("/books/v1/volumes", fixture: fixture, query: ["q": "isbn:\(isbn)"])
        }
        try server.replay("/isbn/*", fixture: "openlibrary/error_404_notfound.json", status: 404)
        try await server.start()
    }

    /// A folder of copies of SampleImages files, their modification times 10 s apart (in
    /// the given order) so no two photos fall in one debounce window.
    func photoFolder(_ name: String, _ samples: [String], start: Date = Date(timeIntervalSince1970: 1_795_000_000)) throws -> URL {
        let folder = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (i, sample) in samples.enumerated() {
            try addPhoto(sample, to: folder, as: String(format: "%03d-", i) + sample, modified: start.addingTimeInterval(Double(i * 10)))
        }
        return folder
    }

    func addPhoto(_ sample: String, to folder: URL, as name: String, modified: Date) throws {
        let target = folder.appendingPathComponent(name)
        try FileManager.default.copyItem(at: SharedFiles.sampleImages.appendingPathComponent(sample), to: target)
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: target.path)
    }
}

/// The event lines and the summary of `scan --json` / `watch --json`.
extension CommandResult {
    var events: [[String: Any]] { jsonLines.filter { $0["event"] as? String != "summary" } }
    var summary: [String: Any]? { jsonLines.last { $0["event"] as? String == "summary" } }
    func events(_ kind: String) -> [[String: Any]] { events.filter { $0["event"] as? String == kind } }
}
