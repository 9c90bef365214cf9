import Foundation
import Testing

/// The one way tests make a library read-only, both kinds the CLI tests need:
/// - `run(folder, …)`: the binary runs with the library's folder read-only from the start;
/// - `setImmutable`: a library turned read-only half-way through a run.
///
/// `run` makes a folder read-only for the binary the honest way for whoever runs the tests: a
/// chmod for a normal user; for root (whom permissions do not stop) a read-only bind mount
/// of the folder in a private mount namespace (`unshare -m`), which is what a read-only
/// mount is.
public enum ReadOnlyLibrary {
    public enum Method: Sendable { case chmod, bindMount }

    public static let howToMake: Method? = {
        if geteuid() != 0 { return .chmod }
        // Root: only if this machine lets us make a mount namespace (a container may not).
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["-m", "sh", "-c", "mount --bind -o ro /tmp /tmp && ! touch /tmp/.rapidscan-ro-probe 2>/dev/null"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return nil }
        probe.waitUntilExit()
        return probe.terminationStatus == 0 ? .bindMount : nil
    }()

    public static let unavailableReason: Comment =
        "running as root without permission to make a mount namespace: no read-only folder can be made"

    public static func run(_ folder: URL, _ arguments: [String], environment: [String: String]) async throws -> CommandResult {
        switch howToMake {
        case .chmod?:
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path) }
            return try await runRapidScan(arguments, environment: environment)
        case .bindMount?:
            let script = #"mount --bind -o ro "$1" "$1" && shift && exec "$@""#
            return try await runProcess(URL(fileURLWithPath: "/usr/bin/unshare"),
                                        ["-m", "sh", "-c", script, "sh", folder.path, try RapidScanBinary.url.path] + arguments,
                                        environment: environment)
        case nil:
            throw ReadOnlyUnavailable()
        }
    }

    public struct ReadOnlyUnavailable: Error {}

    /// `chattr +i`: the file cannot be written even through descriptors already open, root
    /// included (a plain chmod would not stop the running process, nor root).
    public static func setImmutable(_ immutable: Bool, _ paths: [String]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        process.arguments = [immutable ? "+i" : "-i"] + paths.filter { FileManager.default.fileExists(atPath: $0) }
        do {
            try process.run()
            process.waitUntilExit()
        } catch {
            Issue.record("chattr could not run: \(error)")
        }
        if process.terminationStatus != 0 { Issue.record("chattr \(process.arguments ?? []) failed") }
    }
}
