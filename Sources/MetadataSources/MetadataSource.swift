import BookCodes
import BookMetadata
import Foundation

/// A public book database that can describe an edition by ISBN and search by title.
public protocol MetadataSource: Sendable {
    /// "googleBooks" or "openLibrary" (the seed's `apiSource` values).
    var name: String { get }

    /// What this source knows about the edition, or nil when it answered "no such book".
    /// Throws when it could not answer (network, quota, server, unreadable reply).
    func edition(isbn: ISBN13) async throws(SourceError) -> EditionMetadata?

    /// Editions matching a title (and author), best first, at most `limit`.
    func search(title: String, author: String?, limit: Int) async throws(SourceError) -> [EditionMetadata]

    /// Answers from files on this machine (a loaded Open Library dump): asked with `--offline` too.
    var isLocal: Bool { get }

    /// Whose records it searches: its own name, or for a local copy the source it copies (a loaded
    /// Open Library dump is Open Library's records): a spine search it answered is not asked again afar.
    var catalogue: String { get }
}

extension MetadataSource {
    public var isLocal: Bool { false }
    public var catalogue: String { name }
}

/// The names people read for the sources: "Google Books", not the id `googleBooks` that
/// `--json`, the config and the database keep.
public enum SourceDisplayName {
    public static func of(_ id: String) -> String {
        switch id {
        case GoogleBooksSource.sourceName: "Google Books"
        case OpenLibrarySource.sourceName: "Open Library"
        case LibraryOfCongressSource.sourceName: "Library of Congress"
        case "localDump": "the local Open Library dump"
        default: id
        }
    }

    /// "googleBooks: network error: …" (as a lookup stores its reasons) with each id named for people.
    public static func replacingIds(in text: String) -> String {
        [GoogleBooksSource.sourceName, OpenLibrarySource.sourceName, LibraryOfCongressSource.sourceName].reduce(text) { text, id in
            text.replacingOccurrences(of: id, with: of(id))
        }
    }
}

/// Why a source could not answer. Transient errors are worth retrying later (the lookup
/// keeps the ISBN pending); permanent ones need a person (bad key, blocked region, a
/// reply rapidscan cannot read). Neither means "not found". Descriptions never contain an
/// API key.
public enum SourceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No answer within the configured time-out.
    case timeout
    /// Could not connect or the connection broke (DNS, refused, reset…).
    case network(String)
    /// HTTP 429 (or a per-minute limit); `retryAfter` from the server when it said.
    case rateLimited(retryAfter: TimeInterval?)
    /// Google Books' daily quota is used up (403/429 `dailyLimitExceeded`,
    /// `rateLimitExceeded`, `quotaExceeded`): retry later, not immediately.
    case quotaExceeded
    /// HTTP 5xx.
    case server(status: Int)
    /// A reply rapidscan cannot use: malformed JSON, unexpected status, a request the
    /// server calls invalid.
    case badResponse(String)
    /// The API key was rejected (invalid, or not allowed for this API).
    case unauthorized
    /// The server refuses to serve this client (e.g. Google's "cannot determine user
    /// location", Open Library's 403 for an unidentified User-Agent).
    case forbidden(String)

    public var isTransient: Bool {
        switch self {
        case .timeout, .network, .rateLimited, .quotaExceeded, .server: true
        case .badResponse, .unauthorized, .forbidden: false
        }
    }

    /// No connection could be made at all (name resolution, refused, unreachable): asking
    /// again at once will not help; a breaker stops asking for a while.
    public var isConnectionLevel: Bool {
        guard case .network(let reason) = self else { return false }
        return HTTPClient.connectionLevelReasons.contains { reason.hasPrefix($0) }
    }

    /// The same error with `redaction` applied to any text from a server.
    public func redacting(_ redaction: SecretRedaction) -> SourceError {
        switch self {
        case .network(let reason): .network(redaction.redact(reason))
        case .badResponse(let reason): .badResponse(redaction.redact(reason))
        case .forbidden(let reason): .forbidden(redaction.redact(reason))
        default: self
        }
    }

    /// How long the server asked us to wait, when it said.
    public var retryAfter: TimeInterval? {
        if case .rateLimited(let seconds) = self { return seconds }
        return nil
    }

    public var description: String {
        switch self {
        case .timeout:
            "no answer within the time-out"
        case .network(let reason):
            "network error: \(reason)"
        case .rateLimited(let seconds?):
            "rate limited (HTTP 429); the server asks to wait \(Int(seconds.rounded(.up))) s"
        case .rateLimited(nil):
            "rate limited (HTTP 429)"
        case .quotaExceeded:
            "daily quota exceeded; try again later or set an API key"
        case .server(let status):
            "server error (HTTP \(status))"
        case .badResponse(let reason):
            "unusable response: \(reason)"
        case .unauthorized:
            "the API key was rejected; check the key variable (GOOGLE_BOOKS_API_KEY by default)"
        case .forbidden(let reason):
            "access refused: \(reason)"
        }
    }
}
