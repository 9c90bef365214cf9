import Foundation

/// XDG base directories (https://specifications.freedesktop.org/basedir-spec/):
/// `$XDG_*_HOME` when set to an absolute path, else the spec's defaults under `$HOME`.
public struct XDGPaths: Sendable, Hashable {
    public var dataHome: URL
    public var configHome: URL
    public var cacheHome: URL
    public var stateHome: URL

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        func directory(_ variable: String, default relative: String) -> URL {
            // The spec says relative values are invalid and must be ignored.
            if let value = environment[variable], value.hasPrefix("/") {
                return URL(fileURLWithPath: value, isDirectory: true)
            }
            return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(relative, isDirectory: true)
        }
        dataHome = directory("XDG_DATA_HOME", default: ".local/share")
        configHome = directory("XDG_CONFIG_HOME", default: ".config")
        cacheHome = directory("XDG_CACHE_HOME", default: ".cache")
        stateHome = directory("XDG_STATE_HOME", default: ".local/state")
    }

    /// `$XDG_DATA_HOME/rapidscan/library.sqlite`
    public var defaultDatabase: URL {
        dataHome.appendingPathComponent("rapidscan/library.sqlite")
    }

    /// `$XDG_DATA_HOME/rapidscan/openlibrary-dump.sqlite`: Open Library dumps loaded by `rapidscan sources load`.
    public var defaultLocalDump: URL {
        dataHome.appendingPathComponent("rapidscan/openlibrary-dump.sqlite")
    }

    /// `$XDG_STATE_HOME/rapidscan/watch-journal-STATION.sqlite`: the books a `watch` confirmed
    /// while its library's server could not be reached (the station's name percent-encoded).
    public func watchJournal(station: String) -> URL {
        let safe = station.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "-_.").union(.alphanumerics)) ?? "station"
        return stateHome.appendingPathComponent("rapidscan/watch-journal-\(safe).sqlite")
    }

    /// `$XDG_CONFIG_HOME/rapidscan/config.toml`
    public var defaultConfigFile: URL {
        configHome.appendingPathComponent("rapidscan/config.toml")
    }
}
