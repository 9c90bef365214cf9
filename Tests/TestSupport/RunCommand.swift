import Foundation

/// What a finished command printed and how it exited.
public struct CommandResult: Sendable {
    /// The exit status, or the signal number when a signal ended the process.
    public var status: Int32
    public var stdout: String
    public var stderr: String

    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }

    public var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
    public var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
    /// Standard output parsed as JSON Lines (lines that are not JSON objects are dropped).
    public var jsonLines: [[String: Any]] { parseJSONLines(stdout) }
}

/// The JSON objects in `text`, one per line; other lines are dropped.
public func parseJSONLines(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { line in
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}

/// The `rapidscan` executable the tests run.
///
/// `swift test` builds every product of the package, the executable included, into the
/// same folder as the test bundle (`.build/<triple>/debug/`), so the binary is looked up
/// beside the running test process. Test targets cannot depend on an executable product on
/// Linux, hence the lookup instead of a dependency. Building it from inside a test would
/// wait forever on the `.build` lock `swift test` holds, so a missing binary is an error.
public enum RapidScanBinary {
    public static var url: URL {
        get throws {
            guard let beside = besideTests, FileManager.default.isExecutableFile(atPath: beside.path) else {
                throw RunCommandError.binaryMissing(besideTests?.path ?? "beside the test bundle")
            }
            return beside
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
}

public enum RunCommandError: Error, CustomStringConvertible {
    case binaryMissing(String)
    case timedOut(waitingFor: String, stdout: String, stderr: String)

    public var description: String {
        switch self {
        case .binaryMissing(let path): "rapidscan is not built at \(path): run the tests with `swift test` (or `swift build` first)"
        case let .timedOut(what, stdout, stderr):
            "timed out waiting for \(what); stdout: \(stdout.suffix(2000)) stderr: \(stderr.suffix(2000))"
        }
    }
}

/// Runs the built `rapidscan` with `arguments` to the end and returns what it printed.
/// `environment` is the child's whole environment (nil: the test's own); `input` is its
/// standard input (nil: empty).
public func runRapidScan(_ arguments: [String], environment: [String: String]? = nil,
                         currentDirectory: URL? = nil, input: String? = nil) async throws -> CommandResult {
    try await RunningCommand.rapidScan(arguments, environment: environment, currentDirectory: currentDirectory,
                                       input: input).finish()
}

/// Runs any executable to the end; like `runRapidScan`.
public func runProcess(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                       currentDirectory: URL? = nil, input: Data? = nil) async throws -> CommandResult {
    try await RunningCommand(executable: executable, arguments: arguments, environment: environment,
                             currentDirectory: currentDirectory, input: input).finish()
}

/// A started process with its output collected as it arrives, so a test can wait for a line,
/// then signal or kill it, or just wait for the end.
///
/// Every blocking wait (pipe reads, the exit) happens on plain threads, never on the Swift
/// concurrency pool: the in-process FixtureServer answering the child runs on that pool
/// (two threads on this machine), and a test blocking it would starve the server.
public final class RunningCommand: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var outData = Data()
    private var errData = Data()
    private let outDone = DispatchSemaphore(value: 0)
    private let errDone = DispatchSemaphore(value: 0)

    /// Starts the built `rapidscan`; see `runRapidScan` for the parameters.
    public static func rapidScan(_ arguments: [String], environment: [String: String]? = nil,
                                 currentDirectory: URL? = nil, input: String? = nil) async throws -> RunningCommand {
        try RunningCommand(executable: try RapidScanBinary.url, arguments: arguments, environment: environment,
                           currentDirectory: currentDirectory, input: input.map { Data($0.utf8) })
    }

    /// `input` must fit a pipe's buffer (64 KiB): it is written before the child starts, so
    /// writing never waits for the child and never meets a closed pipe.
    public init(executable: URL, arguments: [String], environment: [String: String]? = nil,
                currentDirectory: URL? = nil, input: Data? = nil) throws {
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        var inputPipe: Pipe?
        if let input {
            precondition(input.count <= 65_536, "standard input for a test command must fit a pipe buffer")
            let pipe = Pipe()
            try pipe.fileHandleForWriting.write(contentsOf: input)
            process.standardInput = pipe
            inputPipe = pipe
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        try inputPipe?.fileHandleForWriting.close()
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

    /// Standard output so far.
    public var stdout: String { lock.lock(); defer { lock.unlock() }; return String(decoding: outData, as: UTF8.self) }
    /// Standard error so far.
    public var stderr: String { lock.lock(); defer { lock.unlock() }; return String(decoding: errData, as: UTF8.self) }

    /// Waits (up to 60 s, a safety net for a hung child) until `condition` holds; throws
    /// with the output so far if it never does or the process ends first.
    public func waitFor(_ what: String, _ condition: (RunningCommand) -> Bool) async throws {
        for _ in 0..<3000 {
            if condition(self) { return }
            if !process.isRunning && !condition(self) { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw RunCommandError.timedOut(waitingFor: what, stdout: stdout, stderr: stderr)
    }

    public func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Like `finish()`, but the process is killed (SIGKILL) once it runs past `limit` or its
    /// resident memory passes `maxResidentBytes`: a hostile-input test that would hang or blow
    /// up without its fix fails with `killed` saying why, instead of stalling the suite or the
    /// machine. A bound, not a timing assertion: set it far above the expected time.
    public func finish(within limit: Duration, maxResidentBytes: Int? = nil) async -> (result: CommandResult, killed: String?) {
        let pid = process.processIdentifier
        let reason = LockedValue<String?>(nil)
        let watchdog = Thread { [self] in
            let deadline = ContinuousClock.now + limit
            while process.isRunning {
                if ContinuousClock.now > deadline {
                    reason.set("still running after \(limit)")
                } else if let maxResidentBytes, let resident = Self.residentBytes(pid), resident > maxResidentBytes {
                    reason.set("resident memory \(resident >> 20) MB, over \(maxResidentBytes >> 20) MB")
                }
                if reason.value != nil {
                    kill(pid, SIGKILL)
                    return
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        watchdog.start()
        let result = await finish()
        return (result, reason.value)
    }

    /// VmRSS from /proc (Linux), in bytes.
    static func residentBytes(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1024
    }

    /// Waits for the process to exit and its output to end.
    public func finish() async -> CommandResult {
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

/// A value read and written from several threads.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func set(_ value: Value) { lock.withLock { stored = value } }
}
