import ArgumentParser
import BookLookup
import Catalogue
import Foundation
import MetadataSources
import RapidScanConfig

/// `--db` and `--config`, shared by every command that opens the library database.
struct LibraryOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The SQLite library file.",
        discussion: "Default: $RAPIDSCAN_DB, else `database` in the config file, else $XDG_DATA_HOME/rapidscan/library.sqlite. Created on first use.",
        valueName: "path"))
    var db: String?

    @Option(name: .long, help: ArgumentHelp(
        "The config file (default: $RAPIDSCAN_CONFIG, else $XDG_CONFIG_HOME/rapidscan/config.toml).",
        valueName: "path"))
    var config: String?

    /// The config file plus environment overrides; `--db` wins over both.
    func settings(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> RapidScanSettings {
        var settings = try RapidScanSettings.load(configFile: config.map { URL(fileURLWithPath: $0) }, environment: environment)
        if let db { settings.database = db }
        return settings
    }

    /// Opens (creating on first use) the library database the settings name.
    func openCatalogue(_ settings: RapidScanSettings, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Catalogue {
        try Catalogue(path: settings.databaseURL(paths: XDGPaths(environment: environment)).path)
    }

    /// The catalogue and a lookup service over the configured sources, in configured order.
    func openLookupService() throws -> LookupService {
        let settings = try settings()
        return LookupService(catalogue: try openCatalogue(settings), sources: MetadataSources.make(settings: settings))
    }
}
