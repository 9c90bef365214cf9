import BookCodes
import BookMetadata
import Foundation

/// Google Books `volumes` API: `GET {base}/books/v1/volumes?q=isbn:{isbn13}`, the key (if any) in
/// the `X-Goog-Api-Key` header.
public struct GoogleBooksSource: MetadataSource {
    /// What this source needs to know, and nothing else of the app's configuration.
    public struct Settings: Sendable, Hashable {
        public static let defaultBaseURL = URL(string: "https://www.googleapis.com")!

        public var baseURL: URL
        public var apiKey: APIKey?
        /// Sent as `User-Agent` (e.g. `rapidscan/0.1.0`).
        public var userAgent: String

        public init(baseURL: URL = Self.defaultBaseURL, apiKey: APIKey? = nil, userAgent: String) {
            self.baseURL = baseURL
            self.apiKey = apiKey
            self.userAgent = userAgent
        }
    }

    /// The name in `apiSource`, the breaker and the config's `[sources.googleBooks]`.
    public static let sourceName = "googleBooks"
    public let name = Self.sourceName
    public let baseURL: URL
    private let apiKey: APIKey?
    private let userAgent: String
    private let client: HTTPClient

    public init(_ settings: Settings, client: HTTPClient) {
        self.baseURL = settings.baseURL
        self.apiKey = settings.apiKey
        self.userAgent = settings.userAgent
        self.client = client
    }

    public func edition(isbn: ISBN13) async throws(SourceError) -> EditionMetadata? {
        let volumes = try await volumes(query: "isbn:\(isbn.digits)", maxResults: nil)
        let wanted = Set([isbn.digits, isbn.isbn10?.digits].compactMap { $0 })
        // Only a volume that lists this ISBN is this ISBN's book: a server answering with
        // another book's volume (or one listing no ISBN) has not found it.
        let match = volumes.first { volume in
            (volume.volumeInfo?.industryIdentifiers ?? []).contains { wanted.contains(Self.canonical($0.identifier)) }
        }
        guard let match else { return nil }
        guard var edition = Self.edition(from: match) else {
            throw .badResponse("Google Books volume \(match.id ?? "?") has no title")
        }
        edition.isbn13 = isbn.digits
        edition.isbn10 = isbn.isbn10?.digits
        return edition
    }

    public func search(title: String, author: String?, limit: Int) async throws(SourceError) -> [EditionMetadata] {
        // An empty title asks for an author's books.
        var terms = title.trimmingCharacters(in: .whitespaces).isEmpty ? [] : ["intitle:" + Self.quoted(title)]
        if let author, !author.trimmingCharacters(in: .whitespaces).isEmpty {
            terms.append("inauthor:" + Self.quoted(author))
        }
        let volumes = try await volumes(query: terms.joined(separator: " "), maxResults: min(max(limit, 1), 40))
        return Array(volumes.compactMap(Self.edition(from:)).prefix(max(limit, 0)))
    }

    // MARK: Request

    private func volumes(query: String, maxResults: Int?) async throws(SourceError) -> [GoogleVolume] {
        var items = [URLQueryItem(name: "q", value: query)]
        if let maxResults { items.append(URLQueryItem(name: "maxResults", value: String(maxResults))) }
        let url = try RequestURL.make(base: baseURL, path: "/books/v1/volumes", query: items)
        // The key travels as a header, never in the URL a server could quote back.
        var headers = ["Accept": "application/json", "User-Agent": userAgent]
        if let apiKey { headers["X-Goog-Api-Key"] = apiKey.revealed }
        let secret = apiKey?.revealed
        let response = try await client.get(url, headers: headers) { response in
            Self.classify(response, secret: secret)
        }
        guard response.status == 200 else {
            throw .badResponse("Google Books answered HTTP \(response.status)")
        }
        let decoded: GoogleVolumes = try JSONBody.decode(GoogleVolumes.self, from: response.body, source: "Google Books")
        // No `items` key at all is how Google says "no such book".
        return decoded.items ?? []
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: " ").trimmingCharacters(in: .whitespaces) + "\""
    }

    private static func canonical(_ identifier: String?) -> String {
        (identifier ?? "").uppercased().filter { $0.isNumber || $0 == "X" }
    }

    // MARK: Errors

    private static let quotaReasons: Set = [
        "dailylimitexceeded", "dailylimitexceededunreg", "ratelimitexceeded", "quotaexceeded",
        "userratelimitexceeded", "rate_limit_exceeded", "resource_exhausted",
    ]
    private static let keyReasons: Set = ["keyinvalid", "api_key_invalid", "keyexpired", "api_key_service_blocked", "accessnotconfigured"]

    /// Google's error bodies: quota (429/403 with a quota reason) is transient; a rejected
    /// key or a blocked location is permanent but never "not found".
    static func classify(_ response: HTTPResponse, secret: String?) -> SourceError? {
        guard response.status >= 400 else { return nil }
        let envelope = try? JSONDecoder().decode(GoogleErrorEnvelope.self, from: response.body)
        let reasons = Set(envelope?.error.allReasons.map { $0.lowercased() } ?? [])
        let message = redact(OutsideText.clean(envelope?.error.message ?? "HTTP \(response.status)"), secret: secret)
        if response.status == 429 || response.status == 403, !reasons.isDisjoint(with: quotaReasons) {
            return .quotaExceeded
        }
        if !reasons.isDisjoint(with: keyReasons) || response.status == 401 { return .unauthorized }
        switch response.status {
        case 429: return .rateLimited(retryAfter: HTTPClient.retryAfter(response.header("Retry-After")))
        case 403: return .forbidden("Google Books: \(message)")
        case 500...599: return .server(status: response.status)
        default: return .badResponse("Google Books HTTP \(response.status): \(message)")
        }
    }

    private static func redact(_ text: String, secret: String?) -> String {
        SecretRedaction(secret: secret).redact(text)
    }

    // MARK: Mapping

    static func edition(from volume: GoogleVolume) -> EditionMetadata? {
        guard let info = volume.volumeInfo, let title = info.title.flatMap(PlainText.tidy) else { return nil }
        let identifiers = info.industryIdentifiers ?? []
        func identifier(_ type: String) -> String? {
            identifiers.first { $0.type == type }.map { canonical($0.identifier) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        let isbn13 = identifier("ISBN_13").flatMap { try? ISBN13(validating: $0) }
            ?? identifier("ISBN_10").flatMap { try? ISBN13(validating: $0) }
        let links = info.imageLinks ?? [:]
        let cover = ["extraLarge", "large", "medium", "small", "thumbnail", "smallThumbnail"].lazy.compactMap { links[$0] }.first
        return EditionMetadata(
            isbn13: isbn13?.digits,
            isbn10: isbn13?.isbn10?.digits,
            title: title,
            subtitle: info.subtitle.flatMap(PlainText.tidy),
            authors: (info.authors ?? []).compactMap(PlainText.tidy),
            description: PlainText.fromHTML(info.description),
            coverImageUrl: CoverURL.normalize(cover),
            categories: (info.categories ?? []).compactMap(PlainText.tidy),
            pageCount: info.pageCount.flatMap { $0 > 0 ? $0 : nil },
            publishDate: PublishDate.normalize(info.publishedDate),
            publisher: info.publisher.flatMap(PlainText.tidy),
            language: LanguageCode.normalize(info.language),
            format: nil,
            apiSource: sourceName)
    }
}

// MARK: Wire format

struct GoogleVolumes: Decodable {
    var totalItems: Int?
    var items: [GoogleVolume]?
}

struct GoogleVolume: Decodable {
    var id: String?
    var volumeInfo: GoogleVolumeInfo?
}

struct GoogleVolumeInfo: Decodable {
    struct Identifier: Decodable {
        var type: String?
        var identifier: String?
    }

    var title: String?
    var subtitle: String?
    var authors: [String]?
    var publisher: String?
    var publishedDate: String?
    var description: String?
    var industryIdentifiers: [Identifier]?
    var pageCount: Int?
    var categories: [String]?
    var imageLinks: [String: String]?
    var language: String?
}

struct GoogleErrorEnvelope: Decodable {
    struct Body: Decodable {
        struct Item: Decodable { var reason: String? }
        var code: Int?
        var message: String?
        var status: String?
        var errors: [Item]?
        var details: [Item]?

        var allReasons: [String] {
            ((errors ?? []) + (details ?? [])).compactMap(\.reason) + [status].compactMap { $0 }
        }
    }

    var error: Body
}

enum JSONBody {
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, source: String) throws(SourceError) -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let DecodingError.dataCorrupted(context) {
            throw .badResponse("\(source) sent malformed JSON (\(context.debugDescription))")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw .badResponse("\(source) JSON has an unexpected value at \(path.isEmpty ? "top level" : path)")
        } catch {
            throw .badResponse("\(source) sent JSON rapidscan cannot read")
        }
    }
}
