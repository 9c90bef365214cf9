import Foundation

/// What one metadata source says about one edition (one ISBN): the value that flows from
/// MetadataSources into the Catalogue's best-data merge. Plain data, no behaviour.
public struct EditionMetadata: Sendable, Hashable, Codable {
    public var isbn13: String?
    public var isbn10: String?
    public var title: String
    public var subtitle: String?
    public var authors: [String]
    public var description: String?
    public var coverImageUrl: String?
    public var categories: [String]
    /// nil when the source gave none or gave 0.
    public var pageCount: Int?
    /// As the source wrote it: "YYYY", "YYYY-MM" or "YYYY-MM-DD" (normalized by the source parser).
    public var publishDate: String?
    public var publisher: String?
    public var language: String?
    /// e.g. "hardcover", "paperback", "ebook" when the source says.
    public var format: String?
    /// "googleBooks" or "openLibrary" (the seed's apiSource values).
    public var apiSource: String

    public init(
        isbn13: String? = nil, isbn10: String? = nil, title: String, subtitle: String? = nil,
        authors: [String] = [], description: String? = nil, coverImageUrl: String? = nil,
        categories: [String] = [], pageCount: Int? = nil, publishDate: String? = nil,
        publisher: String? = nil, language: String? = nil, format: String? = nil,
        apiSource: String
    ) {
        self.isbn13 = isbn13
        self.isbn10 = isbn10
        self.title = title
        self.subtitle = subtitle
        self.authors = authors
        self.description = description
        self.coverImageUrl = coverImageUrl
        self.categories = categories
        self.pageCount = pageCount
        self.publishDate = publishDate
        self.publisher = publisher
        self.language = language
        self.format = format
        self.apiSource = apiSource
    }
}
