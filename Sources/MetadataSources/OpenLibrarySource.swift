import BookCodes
import BookMetadata
import Foundation

/// Open Library: `/isbn/{isbn}.json` (a 302 to the edition `/books/OL…M.json`), then the
/// work and author records; `search.json` for titles. Identifies itself with
/// `User-Agent: rapidscan/<version> (<contact>)` and keeps to its rate limit
/// (1 request/s, or 3/s with a contact).
public struct OpenLibrarySource: PacedSource {
    /// What this source needs to know, and nothing else of the app's configuration.
    public struct Settings: Sendable, Hashable {
        public static let defaultBaseURL = URL(string: "https://openlibrary.org")!
        public static let defaultCoversURL = URL(string: "https://covers.openlibrary.org")!

        public var baseURL: URL
        public var coversURL: URL
        /// The product part of the `User-Agent` (e.g. `rapidscan/0.1.0`).
        public var product: String
        /// E-mail or URL sent in the `User-Agent`; raises the rate limit.
        public var contact: String?
        /// nil = Open Library's policy: 1 request/s, or 3/s with a contact.
        public var requestsPerSecond: Double?

        public init(baseURL: URL = Self.defaultBaseURL, coversURL: URL = Self.defaultCoversURL, product: String,
                    contact: String? = nil, requestsPerSecond: Double? = nil) {
            self.baseURL = baseURL
            self.coversURL = coversURL
            self.product = product
            self.contact = contact
            self.requestsPerSecond = requestsPerSecond
        }

        /// `product (contact)`, as Open Library asks clients to identify themselves.
        public var userAgent: String { product + (contact.map { " (\($0))" } ?? "") }
        /// The rate kept to: the one set, else 3 requests/s when identified by a contact, else 1.
        public var effectiveRequestsPerSecond: Double { requestsPerSecond ?? (contact == nil ? 1 : 3) }

        /// The pace kept to and, without a contact, how to triple it.
        public var pacingAdvice: String {
            let rate = effectiveRequestsPerSecond
            let pace = "\(rate == rate.rounded() ? String(Int(rate)) : String(format: "%.1f", rate)) request\(rate == 1 ? "" : "s")/s"
            return contact == nil && rate < 3 ? "\(pace) without a contact; set [sources.openLibrary] contact for 3/s" : pace
        }
    }

    /// The name in `apiSource`, the breaker and the config's `[sources.openLibrary]`.
    public static let sourceName = "openLibrary"
    public let name = Self.sourceName
    public let baseURL: URL
    public let coversURL: URL
    public let userAgent: String
    private let client: HTTPClient
    private let rateLimiter: TokenBucket
    public let pacing: SourcePacing

    /// Fields asked of `search.json` (it returns much more without them).
    static let searchFields = "key,title,author_name,first_publish_year,isbn,cover_i,number_of_pages_median,publisher,language,subject"
    /// At most this many author records are fetched per edition.
    static let maxAuthors = 5
    static let maxCategories = 10

    public init(_ settings: Settings, client: HTTPClient) {
        self.baseURL = settings.baseURL
        self.coversURL = settings.coversURL
        self.client = client
        self.userAgent = settings.userAgent
        self.pacing = SourcePacing(source: SourceDisplayName.of(Self.sourceName), advice: settings.pacingAdvice)
        self.rateLimiter = TokenBucket(rate: settings.effectiveRequestsPerSecond, clock: client.clock, pacing: pacing)
    }

    public func edition(isbn: ISBN13) async throws(SourceError) -> EditionMetadata? {
        // HTTPClient follows the 302 to /books/OL…M.json (the same host).
        guard let edition = try await record(OLEdition.self, path: "/isbn/\(isbn.digits).json") else { return nil }
        // An edition that lists ISBNs, none of them this one, is another book's.
        let listed = ((edition.isbn_13 ?? []) + (edition.isbn_10 ?? [])).compactMap { (try? ISBN13(validating: $0)) ?? (try? ISBN10(validating: $0))?.isbn13 }
        guard listed.isEmpty || listed.contains(isbn) else { return nil }
        guard let title = PlainText.tidy(edition.title ?? "") else {
            throw .badResponse("Open Library edition \(edition.key ?? isbn.digits) has no title")
        }
        var work: OLWork?
        if let workKey = edition.works?.first?.key, Self.isRecordKey(workKey, kind: "works") {
            work = try await record(OLWork.self, path: workKey + ".json")
        }
        let authorKeys = (edition.authors ?? []).compactMap(\.key).isEmpty
            ? (work?.authors ?? []).compactMap(\.key)
            : (edition.authors ?? []).compactMap(\.key)
        var authors: [String] = []
        for key in authorKeys.prefix(Self.maxAuthors) where Self.isRecordKey(key, kind: "authors") {
            if let author = try await record(OLAuthor.self, path: key + ".json"), let name = author.displayName {
                authors.append(name)
            }
        }
        if authors.isEmpty, let byStatement = edition.by_statement.flatMap(PlainText.tidy) {
            authors = [byStatement.trimmingCharacters(in: CharacterSet(charactersIn: "."))]
        }
        let coverID = ((edition.covers ?? []) + (work?.covers ?? [])).first { $0 > 0 }
        let isbn10 = edition.isbn_10?.first { (try? ISBN10(validating: $0))?.isbn13 == isbn } ?? isbn.isbn10?.digits
        return EditionMetadata(
            isbn13: isbn.digits,
            isbn10: isbn10,
            title: title,
            subtitle: edition.subtitle.flatMap(PlainText.tidy),
            authors: authors,
            description: PlainText.tidy(edition.description?.text ?? work?.description?.text ?? ""),
            coverImageUrl: coverID.map(coverURL(id:)),
            categories: Array((edition.subjects ?? work?.subjects ?? []).prefix(Self.maxCategories).compactMap(PlainText.tidy)),
            pageCount: edition.number_of_pages.flatMap { $0 > 0 ? $0 : nil },
            publishDate: PublishDate.normalize(edition.publish_date ?? work?.first_publish_date),
            publisher: edition.publishers?.first.flatMap(PlainText.tidy),
            language: LanguageCode.normalize(edition.languages?.first?.key),
            format: BookFormat.normalize(edition.physical_format),
            apiSource: name)
    }

    public func search(title: String, author: String?, limit: Int) async throws(SourceError) -> [EditionMetadata] {
        // An empty title asks for an author's books.
        var query = title.trimmingCharacters(in: .whitespaces).isEmpty ? [] : [URLQueryItem(name: "title", value: title)]
        if let author, !author.trimmingCharacters(in: .whitespaces).isEmpty {
            query.append(URLQueryItem(name: "author", value: author))
        }
        query.append(URLQueryItem(name: "fields", value: Self.searchFields))
        query.append(URLQueryItem(name: "limit", value: String(min(max(limit, 1), 100))))
        let url = try RequestURL.make(base: baseURL, path: "/search.json", query: query)
        let response = try await get(url)
        guard response.status == 200 else { throw .badResponse("Open Library search answered HTTP \(response.status)") }
        let result = try JSONBody.decode(OLSearchResult.self, from: response.body, source: "Open Library")
        return Array((result.docs?.values ?? []).compactMap(edition(from:)).prefix(max(limit, 0)))
    }

    // MARK: Requests

    /// A JSON record at `path`, or nil on 404.
    private func record<T: Decodable>(_ type: T.Type, path: String) async throws(SourceError) -> T? {
        guard let url = URL(string: baseURL.absoluteString + path) else {
            throw .badResponse("cannot build a request URL for \(path)")
        }
        let response = try await get(url)
        switch response.status {
        case 200: return try JSONBody.decode(type, from: response.body, source: "Open Library")
        case 404: return nil
        default: throw .badResponse("Open Library answered HTTP \(response.status) for \(path)")
        }
    }

    private func get(_ url: URL) async throws(SourceError) -> HTTPResponse {
        try await client.get(url, headers: ["Accept": "application/json", "User-Agent": userAgent], rateLimiter: rateLimiter) {
            response in
            if response.status == 403 {
                return .forbidden("Open Library refused the request (HTTP 403); set [sources.openLibrary] contact so the User-Agent identifies you")
            }
            return HTTPClient.standardClassification(response)
        }
    }

    private func coverURL(id: Int) -> String {
        coversURL.absoluteString + "/b/id/\(id)-L.jpg"
    }

    /// "/works/OL123W", "/authors/OL1A": keeps odd keys out of request paths.
    static func isRecordKey(_ key: String, kind: String) -> Bool {
        key.range(of: "^/\(kind)/OL[0-9]+[A-Z]$", options: .regularExpression) != nil
    }

    private func edition(from doc: OLSearchDoc) -> EditionMetadata? {
        guard let title = doc.title.flatMap(PlainText.tidy) else { return nil }
        let isbns = doc.isbn ?? []
        let isbn13 = isbns.lazy.filter { $0.count == 13 }.compactMap { try? ISBN13(validating: $0) }.first
            ?? isbns.lazy.compactMap { try? ISBN13(validating: $0) }.first
        return EditionMetadata(
            isbn13: isbn13?.digits,
            isbn10: isbn13?.isbn10?.digits,
            title: title,
            authors: (doc.author_name ?? []).compactMap(PlainText.tidy),
            coverImageUrl: doc.cover_i.flatMap { $0 > 0 ? coverURL(id: $0) : nil },
            categories: Array((doc.subject ?? []).prefix(Self.maxCategories).compactMap(PlainText.tidy)),
            pageCount: doc.number_of_pages_median.flatMap { $0 > 0 ? $0 : nil },
            publishDate: doc.first_publish_year.map { String(format: "%04d", $0) },
            publisher: doc.publisher?.first.flatMap(PlainText.tidy),
            language: LanguageCode.normalize(doc.language?.first),
            apiSource: name)
    }
}

// MARK: Wire format (Open Library's snake_case names kept)

/// `description`, `notes`…: a plain string or `{"type": "/type/text", "value": "…"}`.
public struct OLText: Decodable {
    public var text: String?

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            text = string
        } else {
            struct Typed: Decodable { var value: String? }
            text = try container.decode(Typed.self).value
        }
    }
}

/// `{"key": "/authors/…"}` in editions, `{"author": {"key": …}, "type": …}` in works.
public struct OLAuthorRef: Decodable {
    public struct Key: Decodable { public var key: String? }
    public var key: String?

    public init(from decoder: any Decoder) throws {
        let plain = try? Key(from: decoder)
        struct Role: Decodable { var author: Key? }
        key = plain?.key ?? (try? Role(from: decoder))?.author?.key
    }
}

/// Decodes an array, dropping elements of the wrong type instead of failing the record.
public struct Lossy<Element: Decodable>: Decodable {
    public var values: [Element]

    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var values: [Element] = []
        while !container.isAtEnd {
            if let value = try? container.decode(Element.self) {
                values.append(value)
            } else {
                _ = try? container.decode(Skip.self)
            }
        }
        self.values = values
    }

    private struct Skip: Decodable {
        init(from decoder: any Decoder) throws {}
    }
}

public struct OLEdition: Decodable {
    public struct Ref: Decodable { public var key: String? }

    public var key: String?
    public var title: String?
    public var subtitle: String?
    public var authors: [OLAuthorRef]?
    public var works: [Ref]?
    public var description: OLText?
    public var covers: [Int]?
    public var number_of_pages: Int?
    public var publish_date: String?
    public var publishers: [String]?
    public var languages: [Ref]?
    public var physical_format: String?
    public var subjects: [String]?
    public var isbn_10: [String]?
    public var isbn_13: [String]?
    public var by_statement: String?

    enum CodingKeys: String, CodingKey {
        case key, title, subtitle, authors, works, description, covers, number_of_pages, publish_date
        case publishers, languages, physical_format, subjects, isbn_10, isbn_13, by_statement
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        key = try? c.decode(String.self, forKey: .key)
        title = try? c.decode(String.self, forKey: .title)
        subtitle = try? c.decode(String.self, forKey: .subtitle)
        authors = try? c.decode([OLAuthorRef].self, forKey: .authors)
        works = try? c.decode([Ref].self, forKey: .works)
        description = try? c.decode(OLText.self, forKey: .description)
        covers = (try? c.decode(Lossy<Int>.self, forKey: .covers))?.values
        number_of_pages = try? c.decode(Int.self, forKey: .number_of_pages)
        publish_date = try? c.decode(String.self, forKey: .publish_date)
        publishers = (try? c.decode(Lossy<String>.self, forKey: .publishers))?.values
        languages = try? c.decode([Ref].self, forKey: .languages)
        physical_format = try? c.decode(String.self, forKey: .physical_format)
        subjects = (try? c.decode(Lossy<String>.self, forKey: .subjects))?.values
        isbn_10 = (try? c.decode(Lossy<String>.self, forKey: .isbn_10))?.values
        isbn_13 = (try? c.decode(Lossy<String>.self, forKey: .isbn_13))?.values
        by_statement = try? c.decode(String.self, forKey: .by_statement)
    }
}

public struct OLWork: Decodable {
    public var title: String?
    public var authors: [OLAuthorRef]?
    public var description: OLText?
    public var covers: [Int]?
    public var subjects: [String]?
    public var first_publish_date: String?

    enum CodingKeys: String, CodingKey { case title, authors, description, covers, subjects, first_publish_date }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        title = try? c.decode(String.self, forKey: .title)
        authors = try? c.decode([OLAuthorRef].self, forKey: .authors)
        description = try? c.decode(OLText.self, forKey: .description)
        covers = (try? c.decode(Lossy<Int>.self, forKey: .covers))?.values
        subjects = (try? c.decode(Lossy<String>.self, forKey: .subjects))?.values
        first_publish_date = try? c.decode(String.self, forKey: .first_publish_date)
    }
}

public struct OLAuthor: Decodable {
    public var name: String?
    public var personal_name: String?

    public var displayName: String? { (name ?? personal_name).flatMap(PlainText.tidy) }
}

/// Both the 2020 (`num_found`, `text`, `seed`) and 2024 (`numFound`, `numFoundExact`,
/// `documentation_url`) envelopes: only `docs` matters.
struct OLSearchResult: Decodable {
    var docs: Lossy<OLSearchDoc>?
}

struct OLSearchDoc: Decodable {
    var key: String?
    var title: String?
    var author_name: [String]?
    var first_publish_year: Int?
    var isbn: [String]?
    var cover_i: Int?
    var number_of_pages_median: Int?
    var publisher: [String]?
    var language: [String]?
    var subject: [String]?
}
