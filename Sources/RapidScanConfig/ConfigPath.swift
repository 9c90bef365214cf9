import Foundation

/// Path values in the config file, read the way shells and other tools read them: `~` and
/// `~/…` are `$HOME` (from the environment, never the password database, so a test or a
/// sandbox that sets HOME is obeyed), `$NAME` and `${NAME}` are environment variables, and a
/// relative result is taken relative to the config file's folder (not the current directory,
/// which would give every directory a library of its own).
public enum ConfigPath {
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        case undefinedVariable(String)
        case homeNotSet
        case otherUsersHome(String)
        case unclosedBrace

        public var description: String {
            switch self {
            case .undefinedVariable(let name): "$\(name) is not set in the environment"
            case .homeNotSet: "~ needs $HOME, which is not set"
            case .otherUsersHome(let text): "\(text): another user's home (~name) is not supported; write the full path"
            case .unclosedBrace: "a ${ has no closing }"
            }
        }
    }

    /// `text` with `~` and variables expanded; when the result is relative and `base` is
    /// given, the absolute path under `base`.
    public static func resolve(
        _ text: String, environment: [String: String], relativeTo base: URL?
    ) throws(Failure) -> String {
        // `~` first, and variables only in what follows it: a `$` inside $HOME stays as it is.
        let (home, rest) = try splitTilde(text, environment: environment)
        let expanded = home + (try expandVariables(rest, environment: environment))
        guard !expanded.hasPrefix("/"), let base else { return expanded }
        return base.appendingPathComponent(expanded).standardizedFileURL.path
    }

    /// A leading `~` or `~/` as $HOME (without a trailing `/`), and the rest of the text.
    static func splitTilde(_ text: String, environment: [String: String]) throws(Failure) -> (home: String, rest: String) {
        guard text.hasPrefix("~") else { return ("", text) }
        let head = text.prefix { $0 != "/" }
        guard head == "~" else { throw .otherUsersHome(String(head)) }
        guard let home = environment["HOME"], !home.isEmpty else { throw .homeNotSet }
        let rest = String(text.dropFirst())
        if rest.isEmpty { return (home, "") }
        return (home.hasSuffix("/") ? String(home.dropLast()) : home, rest)
    }

    /// `$NAME` / `${NAME}` (NAME: letters, digits, `_`, not starting with a digit). A `$` not
    /// followed by a name is kept as written.
    static func expandVariables(_ text: String, environment: [String: String]) throws(Failure) -> String {
        var result = ""
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            result += rest[..<dollar]
            let after = rest[rest.index(after: dollar)...]
            let name: Substring
            let remainder: Substring
            if after.first == "{" {
                let inner = after.dropFirst()
                guard let close = inner.firstIndex(of: "}") else { throw .unclosedBrace }
                name = inner[..<close]
                remainder = inner[inner.index(after: close)...]
            } else {
                name = after.prefix { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
                remainder = after[name.endIndex...]
            }
            guard let first = name.first, first == "_" || first.isLetter,
                  name.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }) else {
                // Not a variable: the `$` stays, and what follows is read on as text.
                result += "$"
                rest = after
                continue
            }
            guard let value = environment[String(name)] else { throw .undefinedVariable(String(name)) }
            result += value
            rest = remainder
        }
        return result + rest
    }
}
