import Foundation

/// Runs `body` with a fresh empty directory that is removed afterwards (even on throw).
public func withTemporaryDirectory<T>(
    prefix: String = "rapidscan-test", _ body: (URL) async throws -> T
) async throws -> T {
    let directory = try makeTemporaryDirectory(prefix: prefix)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// Synchronous variant for tests that do no async work.
public func withTemporaryDirectory<T>(prefix: String = "rapidscan-test", _ body: (URL) throws -> T) throws -> T {
    let directory = try makeTemporaryDirectory(prefix: prefix)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

/// A new uniquely named directory under the system temp folder; the caller removes it.
public func makeTemporaryDirectory(prefix: String = "rapidscan-test") throws -> URL {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}
