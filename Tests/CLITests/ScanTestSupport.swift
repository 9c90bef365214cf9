import Foundation
import TestSupport
import Testing

/// Runs the built `rapidscan` binary for the scan/watch end-to-end tests: a temp library,
/// config home, and metadata sources pointed at a loopback FixtureServer.
final class ScanHarness: @unchecked Sendable {
    let directory: URL
    let server = FixtureServer()
    /// Set before starting a command to add or override environment variables.
    var extraEnvironment: [String: String] = [:]
    var database: URL { directory.appendingPathComponent("library.sqlite") }

    /// Books the recorded Google Books fixtures know, by ISBN.
    static let googleFixtures = [
        "9780990582939": "googlebooks/volumes_isbn_9780990582939_no_edge_curl_us.json",
        "9781250313188": "googlebooks/volumes_isbn_9781250313188_no_edge_curl_us.json",
        "9781761186769": "googlebooks/volumes_isbn_9781761186769_single_hit_nz.json",
    ]

    init() throws {
        directory = try makeTemporaryDirectory(prefix: "rapidscan-cli")
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Google Books knows the three fixture books; every other ISBN is a miss on both sources.
    func startServer() async throws {
        try server.replay("/books/v1/volumes", fixture: "googlebooks/volumes_zero_results_no_items_key.json")
        for (isbn, fixture) in Self.googleFixtures {
            try server.replay("/books/v1/volumes", fixture: fixture, query: ["q": "isbn:\(isbn)"])
        }
        try server.replay("/isbn/*", fixture: "openlibrary/error_404_notfound.json", status: 404)
        try await server.start()
    }

    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["RAPIDSCAN_DB"] = database.path
        env["RAPIDSCAN_GOOGLE_BOOKS_URL"] = server.baseURL.absoluteString
        env["RAPIDSCAN_OPEN_LIBRARY_URL"] = server.baseURL.absoluteString
        env["RAPIDSCAN_HTTP_RETRIES"] = "0"
        // Generous: the FixtureServer shares this test process's two cooperative threads with
        // every other suite, so under a full parallel run it may answer late (never wrongly).
        env["RAPIDSCAN_HTTP_TIMEOUT"] = "30"
        env["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        env["XDG_DATA_HOME"] = directory.appendingPathComponent("data").path
        env.removeValue(forKey: "GOOGLE_BOOKS_API_KEY")
        env.removeValue(forKey: "RAPIDSCAN_CONFIG")
        env.merge(extraEnvironment) { _, new in new }
        return env
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

    /// Runs a command to the end (`runProcess` waits off the test's cooperative threads, so
    /// the FixtureServer in this process keeps answering meanwhile).
    func run(_ arguments: [String]) async throws -> CommandResult {
        let result = try await runProcess(Self.binary, arguments: arguments, environment: environment, input: nil)
        return CommandResult(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }

    func start(_ arguments: [String]) throws -> RunningCommand {
        try RunningCommand(executable: Self.binary, arguments: arguments, environment: environment)
    }

    /// `account --json`: how many books the library owns.
    func ownedCount() async throws -> Int {
        let result = try await run(["account", "--json"])
        let object = try #require(result.jsonLines.first)
        return try #require(object["owned"] as? Int)
    }

    static var binary: URL {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("rapidscan")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return SharedFiles.projectRoot.appendingPathComponent(".build/debug/rapidscan")
    }
}

struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String

    var jsonLines: [[String: Any]] { parseJSONLines(stdout) }
    var events: [[String: Any]] { jsonLines.filter { $0["event"] as? String != "summary" } }
    var summary: [String: Any]? { jsonLines.last { $0["event"] as? String == "summary" } }
    func events(_ kind: String) -> [[String: Any]] { events.filter { $0["event"] as? String == kind } }
}

func parseJSONLines(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { line in
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}

/// A started `rapidscan` with its output collected as it arrives (so a test can wait for
/// a line, then signal or kill the process).
final class RunningCommand: @unchecked Sendable {
    let process = Process()
    private let lock = NSLock()
    private var outData = Data()
    private var errData = Data()
    private let outPipe = Pipe()
    private let errPipe = Pipe()
    private let outDone = DispatchSemaphore(value: 0)
    private let errDone = DispatchSemaphore(value: 0)

    init(executable: URL, arguments: [String], environment: [String: String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        collect(outPipe.fileHandleForReading, done: outDone) { $0.outData.append($1) }
        collect(errPipe.fileHandleForReading, done: errDone) { $0.errData.append($1) }
    }

    private func collect(_ handle: FileHandle, done: DispatchSemaphore,
                         append: @escaping @Sendable (RunningCommand, Data) -> Void) {
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                lock.lock()
                append(self, chunk)
                lock.unlock()
            }
            done.signal()
        }
    }

    var stdout: String { lock.lock(); defer { lock.unlock() }; return String(decoding: outData, as: UTF8.self) }
    var stderr: String { lock.lock(); defer { lock.unlock() }; return String(decoding: errData, as: UTF8.self) }

    /// Waits (up to 60 s) until `condition` holds for the output so far.
    func waitFor(_ what: String, _ condition: (RunningCommand) -> Bool) async throws {
        for _ in 0..<3000 {
            if condition(self) { return }
            if !process.isRunning && !condition(self) { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("timed out waiting for \(what); stdout: \(stdout.suffix(2000)) stderr: \(stderr.suffix(2000))")
        throw CancellationError()
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the process to exit and its output to end, on a plain thread.
    func finish() async -> CommandResult {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [self] in
                outDone.wait()
                errDone.wait()
                process.waitUntilExit()
                continuation.resume(returning: CommandResult(status: process.terminationStatus, stdout: stdout, stderr: stderr))
            }
        }
    }
}
