import Foundation

/// A problem in the config file or a `RAPIDSCAN_*` variable. Descriptions name the file,
/// line and key (or the variable) and say what is wrong; they never quote an API key.
public enum ConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    case fileNotFound(path: String)
    case unreadable(path: String, reason: String)
    /// Not valid TOML.
    case syntax(path: String, line: Int, column: Int, message: String)
    /// A known key with a value of the wrong type or out of range. `line` is nil when it
    /// could not be located in the text.
    case invalidValue(path: String, line: Int?, key: String, message: String)
    case unknownKey(path: String, line: Int?, key: String, suggestion: String?)
    case invalidEnvironment(variable: String, message: String)

    public var description: String {
        switch self {
        case .fileNotFound(let path):
            return "\(path): config file not found"
        case .unreadable(let path, let reason):
            return "\(path): cannot read config file (\(reason))"
        case .syntax(let path, let line, let column, let message):
            return "\(path):\(line):\(column): invalid TOML: \(message)"
        case .invalidValue(let path, let line, let key, let message):
            return "\(Self.location(path, line)): \(key): \(message)"
        case .unknownKey(let path, let line, let key, let suggestion):
            let hint = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
            return "\(Self.location(path, line)): unknown key '\(key)'\(hint)"
        case .invalidEnvironment(let variable, let message):
            return "environment variable \(variable): \(message)"
        }
    }

    private static func location(_ path: String, _ line: Int?) -> String {
        line.map { "\(path):\($0)" } ?? path
    }
}
