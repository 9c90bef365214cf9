import ArgumentParser
import BookLookup
import BookMetadata
import Catalogue
import Foundation
import MetadataSources
import PostgresCatalogue
import RapidScanConfig
import Synchronization

/// `--db` and `--config`, shared by every command that opens the library database.
struct LibraryOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The SQLite library file, or a PostgreSQL catalogue's postgresql://user@host:port/database URL.",
        discussion: "Default: $RAPIDSCAN_DB, else `database` in the config file, else $XDG_DATA_HOME/rapidscan/library.sqlite. Created on first use.",
        valueName: "path"))
    var db: String?

    @Option(name: .long, help: ArgumentHelp(
        "The config file (default: $RAPIDSCAN_CONFIG, else $XDG_CONFIG_HOME/rapidscan/config.toml).",
        valueName: "path"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp(
        "The station's name, recorded on every book it adds and in its session summaries.",
        discussion: "Default: $RAPIDSCAN_STATION, else `station` in the config file, else the host name. Stations sharing a library resume their own files and import rows.",
        valueName: "name"))
    var station: String?

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let station, RapidScanSettings.stationName(station) == nil {
            throw ValidationError("--station '\(OutsideText.shown(station))': \(RapidScanSettings.stationRule)")
        }
    }

    /// The config file plus environment overrides; `--db` wins over both.
    func settings(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> RapidScanSettings {
        var settings = try RapidScanSettings.load(configFile: config.map { URL(fileURLWithPath: $0) }, environment: environment)
        if let db { settings.database = db }
        if let station { settings.station = RapidScanSettings.stationName(station) }
        if let (path, mode) = settings.readableKeyFile, Self.keyFileWarned.exchange(true, ordering: .relaxed) == false {
            let file = OutsideText.shown(path)
            Console.error("rapidscan: warning: \(file) holds an API key and every user on this machine can read it (mode \(String(mode, radix: 8))); run: chmod 600 \(file)")
        }
        return settings
    }

    /// The station this run adds as: `--station`, `RAPIDSCAN_STATION`, config `station`, else the host name.
    static func station(_ settings: RapidScanSettings) -> String { settings.station ?? Station.hostName }
    func stationName() throws -> String { Self.station(try settings()) }

    /// Settings are read more than once by some commands: the warning is said once.
    private static let keyFileWarned = Atomic(false)

    /// Opens (creating on first use) the library database the settings name.
    ///
    /// `.read`: a command that only reads opens a library on a read-only location (a
    /// read-only mount, a folder the user cannot write) read-only instead of failing.
    /// `.write` there fails at once with a message saying so, before anything is tried.
    func openCatalogue(
        _ settings: RapidScanSettings, access: LibraryAccess = .write,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> any CatalogueStore {
        output.detail("config \(settings.configFile?.path ?? "none (defaults)")")
        if let url = settings.database, DatabaseURL.isURL(url) {
            // A shared server: libpq reads the URL, PGPASSWORD and ~/.pgpass; the config's password last.
            let catalogue = try PostgresCatalogue(url: url, configPassword: settings.databasePassword?.revealed)
            output.detail("library \(catalogue.location)")
            return catalogue
        }
        let path = settings.databaseURL(paths: XDGPaths(environment: environment)).path
        guard LibraryLocation.isReadOnly(path) else {
            output.detail("library \(path)")
            return try Catalogue(path: path, reportDamage: Self.warnDamaged)
        }
        switch access {
        case .read:
            output.detail("library \(path) (read-only location: opened read-only)")
            return try Catalogue(path: path, readOnly: true, reportDamage: Self.warnDamaged)
        case .write: throw LibraryLocation.ReadOnlyLocation(path: path)
        }
    }

    /// A stored value that cannot be read is named on stderr as it is met; the command goes on
    /// without that row (or that field).
    static let warnDamaged: @Sendable (DamagedValue) -> Void = { damage in
        Console.error("rapidscan: warning: \(damage)")
    }

    /// The catalogue and a lookup service over the configured sources, in configured order.
    func openLookupService() throws -> LookupService {
        let settings = try settings()
        return LookupService(catalogue: try openCatalogue(settings), sources: MetadataSources.make(settings: settings))
    }
}

/// Whether a command only reads the library (and may open it read-only) or writes to it.
enum LibraryAccess { case read, write }

enum LibraryLocation {
    /// The library exists but cannot be written: the file, or the folder SQLite keeps its
    /// -wal/-shm files in, is not writable by this process (access(2) also says EROFS for a
    /// read-only mount, even to root).
    static func isReadOnly(_ path: String) -> Bool {
        guard FileManager.default.fileExists(atPath: path) else { return false }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return access(path, W_OK) != 0 || access(folder, W_OK) != 0
    }

    /// A command that writes was pointed at a library it cannot write.
    struct ReadOnlyLocation: Error, CustomStringConvertible {
        let path: String
        var description: String {
            "the library \(path) is on a read-only location (the file or its folder cannot be written); "
                + "this command writes to the library: give a writable copy with --db, or use a command that only reads "
                + "(library list/show, export, cache stats, pending list, account without --pro/--free)"
        }
    }
}

/// `--quiet` / `--verbose`, on every command (through `LibraryOptions`, or directly).
/// Quiet: only errors, the data asked for and the final summary. Verbose: also what was
/// opened and each step's detail, on standard error.
struct OutputOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print only errors, the data asked for and the final summary.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Also print each step's detail (config, library, skipped frames) on standard error.")
    var verbose = false

    func validate() throws {
        if quiet && verbose { throw ValidationError("--quiet and --verbose cannot be used together") }
    }

    /// A diagnostic for --verbose only.
    func detail(_ line: @autoclosure () -> String) {
        if verbose { Console.error("rapidscan: " + line()) }
    }
}
