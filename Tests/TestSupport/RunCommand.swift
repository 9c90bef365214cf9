import Foundation

/// What a finished `rapidscan` run printed and how it exited.
public struct CommandOutput: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    /// Standard output parsed as JSON Lines (lines that are not JSON objects are dropped).
    public var jsonObjects: [[String: Any]] {
        stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    public var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
    public var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
}

/// The `rapidscan` executable the tests run.
///
/// `swift test` builds every product of the package, the executable included, into the
/// same folder as the test bundle (`.build/<triple>/debug/`), so the binary is looked up
/// beside the running test process. If it is not there (a test bundle built on its own),
/// it is built once with `swift build --product rapidscan`, under a file lock so parallel
/// tests and test processes do not build it twice. Test targets cannot depend on an
/// executable product on Linux, hence the lookup instead of a dependency.
public enum RapidScanBinary {
    public static var url: URL {
        get throws {
            if let beside = besideTests, FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
            return try buildOnce()
        }
    }

    static var besideTests: URL? {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        // .../debug/rapidscanPackageTests.xctest (a file on Linux, a bundle elsewhere)
        var folder = bundle.deletingLastPathComponent()
        if folder.pathExtension == "xctest" || folder.lastPathComponent == "MacOS" {
            folder = folder.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        }
        return folder.appendingPathComponent("rapidscan")
    }

    private static let buildLock = NSLock()
    nonisolated(unsafe) private static var built: URL?

    private static func buildOnce() throws -> URL {
        buildLock.lock()
        defer { buildLock.unlock() }
        if let built { return built }
        let root = SharedFiles.projectRoot
        let lockPath = root.appendingPathComponent(".build/rapidscan-test-build.lock").path
        try FileManager.default.createDirectory(atPath: root.appendingPathComponent(".build").path,
                                                withIntermediateDirectories: true)
        let lockFile = open(lockPath, O_CREAT | O_RDWR, 0o644)
        if lockFile >= 0 { flock(lockFile, LOCK_EX) }
        defer { if lockFile >= 0 { flock(lockFile, LOCK_UN); close(lockFile) } }
        let build = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                   ["swift", "build", "--product", "rapidscan", "--package-path", root.path])
        let binPath = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                     ["swift", "build", "--show-bin-path", "--package-path", root.path])
        let binary = URL(fileURLWithPath: binPath.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            .appendingPathComponent("rapidscan")
        guard build.status == 0, FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw RunCommandError.buildFailed(build.stderr + build.stdout)
        }
        built = binary
        return binary
    }
}

public enum RunCommandError: Error, CustomStringConvertible {
    case buildFailed(String)

    public var description: String {
        switch self {
        case .buildFailed(let output): "swift build --product rapidscan failed:\n\(output)"
        }
    }
}

/// Runs the built `rapidscan` with `arguments`, waits for it and returns what it printed.
/// `environment` entries are added to (or, with a nil value, removed from) the test's own;
/// `currentDirectory` defaults to the test's.
public func runRapidScan(_ arguments: [String], environment: [String: String?] = [:],
                         currentDirectory: URL? = nil) throws -> CommandOutput {
    var merged = ProcessInfo.processInfo.environment
    for (key, value) in environment { merged[key] = value }
    return try runProcess(try RapidScanBinary.url, arguments, environment: merged, currentDirectory: currentDirectory)
}

/// Runs any executable to completion, reading stdout and stderr concurrently so a chatty
/// child never blocks on a full pipe.
public func runProcess(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                       currentDirectory: URL? = nil) throws -> CommandOutput {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let currentDirectory { process.currentDirectoryURL = currentDirectory }
    let stdoutPipe = Pipe(), stderrPipe = Pipe()
    process.standardOutput = stdoutPipe
    process.standardError = stderrPipe
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let collected = CollectedData()
    let group = DispatchGroup()
    for (pipe, isStdout) in [(stderrPipe, false), (stdoutPipe, true)] {
        group.enter()
        DispatchQueue.global().async {
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            collected.store(data, stdout: isStdout)
            group.leave()
        }
    }
    group.wait()
    process.waitUntilExit()
    return CommandOutput(status: process.terminationStatus,
                         stdout: String(decoding: collected.stdout, as: UTF8.self),
                         stderr: String(decoding: collected.stderr, as: UTF8.self))
}

private final class CollectedData: @unchecked Sendable {
    private let lock = NSLock()
    private var out = Data(), err = Data()

    func store(_ data: Data, stdout: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if stdout { out = data } else { err = data }
    }

    var stdout: Data { lock.lock(); defer { lock.unlock() }; return out }
    var stderr: Data { lock.lock(); defer { lock.unlock() }; return err }
}
