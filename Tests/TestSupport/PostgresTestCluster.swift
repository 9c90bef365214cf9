import Foundation

/// A throwaway PostgreSQL server for the tests: `initdb` in a temporary folder, started with
/// `pg_ctl` on a free loopback port (its socket in the same folder), password authentication
/// (scram) for TCP, one cluster per test process, stopped and removed when the process exits.
/// Each test takes a fresh database (`createDatabase`). As root (CI), initdb refuses to run,
/// so the server runs as `nobody` through `runuser`, in a folder that user owns.
public final class PostgresTestCluster: Sendable {
    public let host = "127.0.0.1"
    public let port: Int
    public let user = "rapidscan_test"
    /// Made per run; only the tests see it.
    public let password: String
    let folder: URL
    let binaries: URL
    /// Commits survive `stopImmediately` (synchronous_commit on): a cluster for fault tests.
    let durable: Bool

    public enum Failure: Error, CustomStringConvertible {
        case notInstalled
        case command(String, status: Int32, output: String)
        public var description: String {
            switch self {
            case .notInstalled: "PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin (scripts/setup installs postgresql)"
            case let .command(what, status, output): "\(what) exited \(status): \(output)"
            }
        }
    }

    /// The process's cluster, started on first use.
    public static func shared() throws -> PostgresTestCluster { try started.get() }

    private static let started: Result<PostgresTestCluster, any Error> = Result {
        let cluster = try PostgresTestCluster(durable: false)
        running = cluster
        atexit { PostgresTestCluster.running?.stop() }
        return cluster
    }

    nonisolated(unsafe) private static var running: PostgresTestCluster?

    /// A cluster of the caller's own, to stop and start mid-test (a server lost during a run):
    /// what it committed survives `stopImmediately`. The caller `remove`s it.
    public static func own() throws -> PostgresTestCluster { try PostgresTestCluster(durable: true) }

    private init(durable: Bool) throws {
        guard let binaries = Self.serverBinaries() else { throw Failure.notInstalled }
        self.binaries = binaries
        self.durable = durable
        folder = URL(fileURLWithPath: "/tmp").appendingPathComponent("rapidscan-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        password = "pw-" + UUID().uuidString.lowercased()
        let passwordFile = folder.appendingPathComponent("pwfile")
        try Data(password.utf8).write(to: passwordFile)
        if geteuid() == 0 {
            // The server may not run as root: the folder and its files belong to nobody.
            for path in [folder.path, passwordFile.path] {
                try FileManager.default.setAttributes([.ownerAccountID: 65534, .groupOwnerAccountID: 65534], ofItemAtPath: path)
            }
        }
        let data = folder.appendingPathComponent("data").path
        try Self.run(binaries.appendingPathComponent("initdb"), ["-D", data, "-U", user, "--pwfile=\(passwordFile.path)",
                                                                 "--auth-host=scram-sha-256", "--auth-local=trust", "-E", "UTF8",
                                                                 "--locale=C.UTF-8", "--no-sync"])
        var lastError: (any Error)?
        for _ in 0..<5 {
            let port = try Self.freePort()
            do {
                try Self.startServer(binaries: binaries, folder: folder, port: port, durable: durable)
                self.port = port
                return
            } catch {
                lastError = error
            }
        }
        throw lastError ?? Failure.notInstalled
    }

    private static func startServer(binaries: URL, folder: URL, port: Int, durable: Bool) throws {
        // fsync stays off (a server process killed leaves its writes in the OS's cache); a
        // durable cluster's commits are in the WAL before the client hears of them.
        try run(binaries.appendingPathComponent("pg_ctl"), [
            "-D", folder.appendingPathComponent("data").path, "-l", folder.appendingPathComponent("server.log").path, "-w", "-t", "60", "-o",
            "-k \(folder.path) -c listen_addresses=127.0.0.1 -p \(port) -c fsync=off -c synchronous_commit=\(durable ? "on" : "off") -c full_page_writes=off -c max_connections=300",
            "start"])
    }

    /// `pg_ctl stop -m immediate`: the server goes away as if it crashed, mid-transaction.
    public func stopImmediately() throws {
        try Self.run(binaries.appendingPathComponent("pg_ctl"), ["-D", folder.appendingPathComponent("data").path, "-m", "immediate", "-w", "stop"])
    }

    /// Starts the server again on its port after `stopImmediately` (it recovers from its WAL first).
    public func start() throws {
        try Self.startServer(binaries: binaries, folder: folder, port: port, durable: durable)
    }

    /// Stops the server and removes its folder.
    public func remove() { stop() }

    /// `postgresql://user:password@127.0.0.1:port/database` (without the password when asked).
    public func url(database: String, withPassword: Bool = true) -> String {
        "postgresql://\(user)\(withPassword ? ":\(password)" : "")@\(host):\(port)/\(database)?sslmode=disable"
    }

    /// A new empty database for one test.
    public func createDatabase() throws -> String {
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try psql("CREATE DATABASE \(name)")
        return name
    }

    public func dropDatabase(_ name: String) {
        try? psql("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// Runs SQL as the cluster's superuser over its unix socket.
    public func psql(_ sql: String, database: String = "postgres") throws {
        try Self.run(binaries.appendingPathComponent("psql"), ["-h", folder.path, "-p", String(port), "-U", user, "-d", database,
                                                               "-v", "ON_ERROR_STOP=1", "-q", "-c", sql], asServer: false)
    }

    func stop() {
        try? Self.run(binaries.appendingPathComponent("pg_ctl"), ["-D", folder.appendingPathComponent("data").path, "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(at: folder)
    }

    static func serverBinaries() -> URL? {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return versions.compactMap { Int($0) }.sorted(by: >).lazy
            .map { root.appendingPathComponent("\($0)/bin") }
            .first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("initdb").path) }
    }

    /// A loopback port nobody listens on now.
    public static func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw Failure.command("bind", status: errno, output: "no free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Runs a server binary (as `nobody` when this process is root) and waits for it, with
    /// posix_spawn and waitpid: its output to a file, not a pipe (the server pg_ctl starts
    /// would hold a pipe open), and reaped here rather than by Foundation's Process.
    static func run(_ executable: URL, _ arguments: [String], asServer: Bool = true) throws {
        let command = asServer && geteuid() == 0
            ? ["/usr/sbin/runuser", "-u", "nobody", "--", executable.path] + arguments
            : [executable.path] + arguments
        let log = "/tmp/rapidscan-pg-\(UUID().uuidString).out"
        defer { unlink(log) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, nil, argv, environ)
        guard spawned == 0 else { throw Failure.command(command[0], status: spawned, output: "cannot start") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let exited = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        guard exited == 0 else { throw Failure.command(executable.lastPathComponent, status: exited, output: text) }
    }
}
