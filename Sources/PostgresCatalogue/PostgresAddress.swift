import Foundation
import MetadataSources

/// A PostgreSQL catalogue's address: the `postgresql://` (or `postgres://`) URL a user gives
/// as `--db`, `RAPIDSCAN_DB` or config `database`, and where its password may come from.
/// libpq itself reads the URL, `PGPASSWORD` and `~/.pgpass`; the config's password is passed
/// beside the URL (the URL's own wins). Every password it knows is redacted from what a
/// user is shown (`location`, errors).
public struct PostgresAddress: Sendable, Hashable {
    /// The URL as given, password included: only ever handed to libpq.
    let connectionURL: String
    /// The config file's `password`, used when neither the URL nor libpq's own sources have one.
    let configPassword: String?
    /// The URL without its password: what messages and `LibraryStore.location` show.
    public let location: String
    /// Host (or socket folder) and port as libpq will read them, for "cannot reach" messages.
    public let host: String
    public let port: String
    let redaction: SecretRedaction

    public enum ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        case notAURL(String)
        public var description: String {
            switch self {
            case let .notAURL(shown): "'\(shown)' is not a PostgreSQL URL (postgresql://user@host:port/database)"
            }
        }
    }

    public init(url: String, configPassword: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) throws(ParseError) {
        guard var components = URLComponents(string: url), ["postgresql", "postgres"].contains(components.scheme?.lowercased()) else {
            // The text may hold a password: shown without anything between "//" and "@".
            throw .notAURL(Self.withoutUserInfo(url))
        }
        let urlPassword = components.password.flatMap { $0.removingPercentEncoding ?? $0 }
        components.password = nil
        connectionURL = url
        self.configPassword = configPassword
        let socketHost = components.queryItems?.first { $0.name == "host" }?.value
        host = socketHost ?? (components.host.flatMap { $0.isEmpty ? nil : $0 } ?? environment["PGHOST"] ?? "localhost")
        port = components.port.map(String.init) ?? components.queryItems?.first { $0.name == "port" }?.value ?? environment["PGPORT"] ?? "5432"
        var secrets = [urlPassword, configPassword, environment["PGPASSWORD"]].compactMap { $0 }.filter { !$0.isEmpty }
        if let raw = components.percentEncodedPassword { secrets.append(raw) }
        redaction = SecretRedaction(secrets: secrets)
        location = redaction.redact(components.string ?? Self.withoutUserInfo(url))
    }

    /// Text from libpq or the server with every known password taken out.
    public func redact(_ text: String) -> String { redaction.redact(text) }

    /// A URL shown without anything that could be a password (all before the last "@").
    static func withoutUserInfo(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].lastIndex(of: "@") else { return text }
        return String(text[..<scheme.upperBound]) + String(text[text.index(after: at)...])
    }
}
