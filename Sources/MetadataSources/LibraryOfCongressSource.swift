import BookCodes
import BookMetadata
import Foundation

/// The Library of Congress catalogue through its SRU service:
/// `GET {base}/LCDB?operation=searchRetrieve&version=1.1&query=bath.isbn=…&recordSchema=marcxml`,
/// records read from MARCXML (245 title/subtitle, 100/700 names, 020 ISBNs, 260/264 publisher
/// and date, 300 pages, 650 subjects, 520 summary, 008 language). Off unless enabled; kept to
/// one request a second (a public service with no published quota).
public struct LibraryOfCongressSource: PacedSource {
    public struct Settings: Sendable, Hashable {
        public static let defaultBaseURL = URL(string: "http://lx2.loc.gov:210")!

        public var baseURL: URL
        /// Sent as `User-Agent` (e.g. `rapidscan/0.1.0`).
        public var userAgent: String
        public var requestsPerSecond: Double

        public init(baseURL: URL = Self.defaultBaseURL, userAgent: String, requestsPerSecond: Double = 1) {
            self.baseURL = baseURL
            self.userAgent = userAgent
            self.requestsPerSecond = requestsPerSecond
        }
    }

    /// The name in `apiSource`, the breaker and the config's `[sources.libraryOfCongress]`.
    public static let sourceName = "libraryOfCongress"
    public let name = Self.sourceName
    public let baseURL: URL
    private let userAgent: String
    private let client: HTTPClient
    private let rateLimiter: TokenBucket
    public let pacing: SourcePacing

    static let databasePath = "/LCDB"
    static let maxCategories = 10
    static let maxAuthors = 10

    public init(_ settings: Settings, client: HTTPClient) {
        self.baseURL = settings.baseURL
        self.userAgent = settings.userAgent
        self.client = client
        self.pacing = SourcePacing(source: SourceDisplayName.of(Self.sourceName),
                                   advice: "\(settings.requestsPerSecond == 1 ? "1 request" : "\(settings.requestsPerSecond) requests")/s, its published limit")
        self.rateLimiter = TokenBucket(rate: settings.requestsPerSecond, capacity: 1, clock: client.clock, pacing: pacing)
    }

    public func edition(isbn: ISBN13) async throws(SourceError) -> EditionMetadata? {
        let records = try await searchRetrieve(query: "bath.isbn=\(isbn.digits)", maximumRecords: 5)
        // Only a record that lists this ISBN (either form) describes it.
        guard let record = records.first(where: { Self.isbns(in: $0).contains(isbn) }) else { return nil }
        guard var edition = Self.edition(from: record, source: name) else {
            throw .badResponse("Library of Congress record \(record.controlFields["001"] ?? isbn.digits) has no title")
        }
        edition.isbn13 = isbn.digits
        edition.isbn10 = isbn.isbn10?.digits
        return edition
    }

    public func search(title: String, author: String?, limit: Int) async throws(SourceError) -> [EditionMetadata] {
        var clauses: [String] = []
        let title = Self.cqlTerm(title)
        if !title.isEmpty { clauses.append("dc.title=\"\(title)\"") }
        if let author = author.map(Self.cqlTerm), !author.isEmpty { clauses.append("dc.creator=\"\(author)\"") }
        guard !clauses.isEmpty else { return [] }
        let records = try await searchRetrieve(query: clauses.joined(separator: " and "), maximumRecords: min(max(limit, 1), 50))
        return Array(records.compactMap { record -> EditionMetadata? in
            guard var edition = Self.edition(from: record, source: name) else { return nil }
            let isbn = Self.isbns(in: record).first
            edition.isbn13 = isbn?.digits
            edition.isbn10 = isbn?.isbn10?.digits
            return edition
        }.prefix(max(limit, 0)))
    }

    // MARK: Requests

    private func searchRetrieve(query: String, maximumRecords: Int) async throws(SourceError) -> [MARCXMLRecord] {
        let url = try RequestURL.make(base: baseURL, path: Self.databasePath, query: [
            URLQueryItem(name: "operation", value: "searchRetrieve"), URLQueryItem(name: "version", value: "1.1"),
            URLQueryItem(name: "query", value: query), URLQueryItem(name: "recordSchema", value: "marcxml"),
            URLQueryItem(name: "maximumRecords", value: String(maximumRecords)),
        ])
        let response = try await client.get(url, headers: ["Accept": "application/xml, text/xml", "User-Agent": userAgent],
                                            rateLimiter: rateLimiter)
        guard response.status == 200 else { throw .badResponse("Library of Congress answered HTTP \(response.status)") }
        let reply = try SRUReplyReader.read(response.body, source: "Library of Congress")
        if reply.records.isEmpty, let diagnostic = reply.diagnostics.first {
            throw .badResponse("Library of Congress: \(OutsideText.clean(diagnostic))")
        }
        return reply.records
    }

    /// CQL inside double quotes: quotes, backslashes and the masking characters (`*`, `?`, `^`)
    /// escaped, so a title is matched as written; control characters dropped.
    static func cqlTerm(_ text: String) -> String {
        var escaped = ""
        for character in PlainText.tidy(text) ?? "" {
            if "\\\"*?^".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    // MARK: MARC to EditionMetadata

    /// 020 $a (and $z, cancelled or invalid ISBNs, never): "0060273224 (lib. bdg.)", "9780060273224 :".
    static func isbns(in record: MARCXMLRecord) -> [ISBN13] {
        record.fields("020").flatMap { $0.values("a") }.compactMap { value in
            let token = value.split(whereSeparator: { $0 == " " || $0 == "(" || $0 == ":" || $0 == ";" }).first.map(String.init) ?? ""
            let compact = token.replacingOccurrences(of: "-", with: "")
            return (try? ISBN13(validating: compact)) ?? (try? ISBN10(validating: compact))?.isbn13
        }
    }

    static func edition(from record: MARCXMLRecord, source: String) -> EditionMetadata? {
        guard let titleField = record.fields("245").first,
              let title = text(titleField.first("a")).map(trimmingISBD), !title.isEmpty else { return nil }
        let subtitle = text(titleField.first("b")).map(trimmingISBD).flatMap { $0.isEmpty ? nil : $0 }
        var authors: [String] = []
        for field in record.fields("100") + record.fields("700") where field.first("t") == nil {
            if let name = personalName(field), !authors.contains(name) { authors.append(name) }
        }
        // 264 with second indicator 1 is the publication statement (RDA); 260 before RDA.
        let imprint = record.fields("264").first { $0.ind2 == "1" } ?? record.fields("260").first
        let fixed = record.controlFields["008"].map(Array.init) ?? []
        let fixedYear = fixed.count >= 11 ? String(fixed[7...10]) : nil
        let fixedLanguage = fixed.count >= 38 ? String(fixed[35...37]) : nil
        var categories: [String] = []
        for field in record.fields("650") {
            if let subject = text(field.first("a")).map(trimmingISBD), !subject.isEmpty, !categories.contains(subject) {
                categories.append(subject)
            }
        }
        return EditionMetadata(
            title: title,
            subtitle: subtitle,
            authors: Array(authors.prefix(maxAuthors)),
            description: record.fields("520").first.flatMap { text($0.first("a")) },
            categories: Array(categories.prefix(maxCategories)),
            pageCount: record.fields("300").first.flatMap { pages($0.first("a")) },
            publishDate: PublishDate.normalize(imprint?.first("c")) ?? PublishDate.normalize(fixedYear),
            publisher: text(imprint?.first("b")).map(trimmingISBD).flatMap { $0.isEmpty ? nil : $0 },
            language: LanguageCode.normalize(record.fields("041").first?.first("a") ?? fixedLanguage.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }),
            apiSource: source)
    }

    /// Tidy text in Unicode's composed form (the catalogue writes "é" as e + combining accent).
    static func text(_ raw: String?) -> String? {
        raw.flatMap { PlainText.tidy($0.precomposedStringWithCanonicalMapping) }
    }

    /// ISBD punctuation closing a MARC subfield (" /", " :", " ;", ",", a final period) and
    /// the brackets of supplied text ("[New York]").
    static func trimmingISBD(_ value: String) -> String {
        var text = value
        while let last = text.last, "/:;,=".contains(last) || last == " " {
            text.removeLast()
        }
        if text.hasSuffix("."), !endsWithInitialOrAbbreviation(text) { text.removeLast() }
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// "Ursula K." or "Inc.": the period belongs to the word.
    private static func endsWithInitialOrAbbreviation(_ text: String) -> Bool {
        let word = text.dropLast().split(separator: " ").last ?? ""
        return (word.count == 1 && word.first?.isUppercase == true) || ["Inc", "Co", "Ltd", "Jr", "Sr"].contains(String(word))
    }

    /// 100/700 $a in the order the other sources use: "Nix, Garth," (surname first, indicator 1)
    /// becomes "Garth Nix".
    static func personalName(_ field: MARCXMLRecord.DataField) -> String? {
        guard let name = text(field.first("a")).map(trimmingISBD), !name.isEmpty else { return nil }
        guard field.ind1 == "1", let comma = name.firstIndex(of: ",") else { return name }
        let surname = name[..<comma].trimmingCharacters(in: .whitespaces)
        let forenames = name[name.index(after: comma)...].trimmingCharacters(in: .whitespaces)
        return forenames.isEmpty ? surname : "\(forenames) \(surname)"
    }

    /// 300 $a "491 p. ;", "xii, 342 pages :": the number before "p" / "pages".
    static func pages(_ extent: String?) -> Int? {
        guard let extent, let match = extent.range(of: "[0-9]+ *(p\\b|p\\.|pages)", options: .regularExpression) else { return nil }
        return Int(extent[match].prefix { $0.isNumber }).flatMap { $0 > 0 ? $0 : nil }
    }
}
