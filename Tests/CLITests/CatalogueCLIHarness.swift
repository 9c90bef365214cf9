import Foundation
import TestSupport

/// Runs the built `rapidscan` binary against a temp database and a loopback
/// FixtureServer standing in for Google Books and Open Library (through the same
/// environment variables users set).
final class CatalogueCLIHarness: Sendable {
    let folder: URL
    let server: FixtureServer

    init() async throws {
        folder = try makeTemporaryDirectory(prefix: "catalogue-cli")
        server = FixtureServer()
        try await server.start()
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    var databasePath: String { folder.appendingPathComponent("data/library.sqlite").path }

    var environment: [String: String] {
        [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": folder.path,
            "XDG_CONFIG_HOME": folder.appendingPathComponent("config").path,
            "XDG_DATA_HOME": folder.appendingPathComponent("share").path,
            "RAPIDSCAN_DB": databasePath,
            "RAPIDSCAN_GOOGLE_BOOKS_URL": server.baseURL.absoluteString,
            "RAPIDSCAN_OPEN_LIBRARY_URL": server.baseURL.absoluteString,
            "RAPIDSCAN_CONTACT": "tests@example.org",
            "RAPIDSCAN_HTTP_RETRIES": "0",
            "RAPIDSCAN_HTTP_TIMEOUT": "30",  // generous: the whole suite shares 2 busy cores
        ]
    }

    func run(_ arguments: String..., input: String? = nil) async throws -> ProcessResult {
        try await runProcess(Self.binary, arguments: arguments, environment: environment, input: input.map { Data($0.utf8) })
    }

    /// The `rapidscan` executable `swift build` put beside this test bundle.
    static var binary: URL { ScanHarness.binary }
}

struct ProcessResult: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs a process to completion without blocking a Swift concurrency thread (the
/// FixtureServer answering it runs on those).
func runProcess(_ executable: URL, arguments: [String], environment: [String: String], input: Data?) async throws -> ProcessResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = environment
    let stdout = Pipe(), stderr = Pipe(), stdin = Pipe()
    process.standardOutput = stdout
    process.standardError = stderr
    process.standardInput = stdin
    return try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
                return
            }
            if let input { stdin.fileHandleForWriting.write(input) }
            try? stdin.fileHandleForWriting.close()
            let group = DispatchGroup()
            nonisolated(unsafe) var errorData = Data()
            group.enter()
            DispatchQueue.global().async {
                errorData = stderr.fileHandleForReading.readDataToEndOfFile()
                group.leave()
            }
            let outputData = stdout.fileHandleForReading.readDataToEndOfFile()
            group.wait()
            process.waitUntilExit()
            continuation.resume(returning: ProcessResult(
                status: process.terminationStatus,
                stdout: String(decoding: outputData, as: UTF8.self),
                stderr: String(decoding: errorData, as: UTF8.self)))
        }
    }
}
