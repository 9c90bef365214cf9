import BookCodes
import BookMetadata
import Foundation

/// "Best data wins" (the seed's Best Data Selection): how what one source says about one
/// edition improves the work it belongs to. Pure functions, no database.
public enum BestDataMerge {

    /// A new work from its first known edition.
    public static func newWork(from edition: EditionMetadata, isbn: String?, workKey: WorkKey, now: Date) -> Work {
        let categories = unionCategories([], edition.categories)
        return Work(
            workKey: workKey.rawValue,
            title: edition.title,
            authors: unionCategories([], edition.authors),
            primaryAuthor: edition.authors.first ?? "",
            coverImageUrl: CoverURL.normalize(edition.coverImageUrl),
            description: cleaned(edition.description),
            genre: categories.first,
            categories: categories,
            pageCount: preferredPageCount(existing: nil, incoming: edition.pageCount),
            publishDate: PublishDate(parsing: edition.publishDate)?.text,
            publisher: cleaned(edition.publisher),
            language: cleaned(edition.language) ?? "en",
            editions: isbn.map { [$0] } ?? [],
            primaryIsbn: isbn ?? "",
            apiSource: edition.apiSource,
            createdAt: now,
            updatedAt: now)
    }

    /// `work` improved field by field with `edition`. `isBetterEdition` says whether this
    /// edition's metadata beats the current primary edition's (see `score`).
    public static func merge(_ work: Work, with edition: EditionMetadata, isbn: String?, isBetterEdition: Bool, now: Date) -> Work {
        var merged = work
        merged.coverImageUrl = preferredCover(existing: work.coverImageUrl, incoming: edition.coverImageUrl)
        merged.description = preferredDescription(existing: work.description, incoming: edition.description)
        merged.pageCount = preferredPageCount(existing: work.pageCount, incoming: edition.pageCount)
        let incomingDate = PublishDate(parsing: edition.publishDate)
        let existingDate = PublishDate(parsing: work.publishDate)
        if let incomingDate, PublishDate.isEarlier(incomingDate, than: existingDate) {
            merged.publishDate = incomingDate.text
            // The publisher of the earliest edition is the original publisher.
            merged.publisher = cleaned(edition.publisher) ?? work.publisher
        } else {
            merged.publisher = work.publisher ?? cleaned(edition.publisher)
        }
        merged.categories = unionCategories(work.categories, edition.categories)
        merged.genre = work.genre ?? merged.categories.first
        merged.authors = unionCategories(work.authors, edition.authors)
        if merged.primaryAuthor.isEmpty { merged.primaryAuthor = merged.authors.first ?? "" }
        if let isbn, !merged.editions.contains(isbn) { merged.editions.append(isbn) }
        merged.editionCount = merged.editions.count
        if let isbn, isBetterEdition || merged.primaryIsbn.isEmpty { merged.primaryIsbn = isbn }
        merged.updatedAt = now
        return merged
    }

    // MARK: - Field rules

    /// HTTPS over HTTP, then the larger image where the URL says (Open Library's `-L`
    /// over Google's `zoom=1` thumbnail); between equals the existing cover stays.
    public static func preferredCover(existing: String?, incoming: String?) -> String? {
        guard let incoming = CoverURL.normalize(incoming) else { return existing }
        guard let existing = cleaned(existing) else { return incoming }
        return coverRank(incoming) > coverRank(existing) ? incoming : existing
    }

    /// HTTPS first, then the size the URL asks for: Open Library `-S`/`-M`/`-L`, Google `zoom=N`.
    static func coverRank(_ url: String) -> Int {
        let lowercased = url.lowercased()
        var size = 0
        if lowercased.hasSuffix("-l.jpg") { size = 3 } else if lowercased.hasSuffix("-m.jpg") { size = 1 }
        if let zoom = URLComponents(string: url)?.queryItems?.first(where: { $0.name == "zoom" })?.value.flatMap(Int.init) {
            size = zoom >= 2 ? 2 : 1
        }
        return (isHTTPS(url) ? 10 : 0) + size
    }

    /// A description ending in "…" or "..." was cut short by the source.
    public static func isTruncated(_ description: String) -> Bool {
        let trimmed = description.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.hasSuffix("…") || trimmed.hasSuffix("...")
    }

    /// A complete description over a truncated one; between equals, the longer.
    public static func preferredDescription(existing: String?, incoming: String?) -> String? {
        guard let incoming = cleaned(incoming) else { return existing }
        guard let existing = cleaned(existing) else { return incoming }
        switch (isTruncated(existing), isTruncated(incoming)) {
        case (true, false): return incoming
        case (false, true): return existing
        default: return incoming.count > existing.count ? incoming : existing
        }
    }

    /// A page count is kept once known; 0 or negative means unknown.
    public static func preferredPageCount(existing: Int?, incoming: Int?) -> Int? {
        if let existing, existing > 0 { return existing }
        if let incoming, incoming > 0 { return incoming }
        return nil
    }

    /// The earlier of two dates, normalized to YYYY, YYYY-MM or YYYY-MM-DD.
    public static func earliestPublishDate(existing: String?, incoming: String?) -> String? {
        let existingDate = PublishDate(parsing: existing)
        guard let incomingDate = PublishDate(parsing: incoming) else { return existingDate?.text }
        return PublishDate.isEarlier(incomingDate, than: existingDate) ? incomingDate.text : existingDate?.text
    }

    /// Union keeping first spellings and order, case-insensitive, blanks dropped.
    public static func unionCategories(_ existing: [String], _ incoming: [String]) -> [String] {
        var seen = Set<String>()
        var result: [String] = []
        for value in existing + incoming {
            let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, seen.insert(trimmed.lowercased()).inserted else { continue }
            result.append(trimmed)
        }
        return result
    }

    /// How complete an edition's metadata is; the highest-scoring edition is the work's `primaryIsbn`.
    public static func score(_ edition: EditionMetadata) -> Int {
        var score = 0
        if let cover = CoverURL.normalize(edition.coverImageUrl) { score += isHTTPS(cover) ? 3 : 1 }
        if let description = cleaned(edition.description) { score += isTruncated(description) ? 1 : 3 }
        if preferredPageCount(existing: nil, incoming: edition.pageCount) != nil { score += 1 }
        if PublishDate(parsing: edition.publishDate) != nil { score += 1 }
        if cleaned(edition.publisher) != nil { score += 1 }
        if !edition.categories.isEmpty { score += 1 }
        if !edition.authors.isEmpty { score += 1 }
        return score
    }

    static func isHTTPS(_ url: String) -> Bool {
        url.lowercased().hasPrefix("https://")
    }

    public static func cleaned(_ text: String?) -> String? {
        guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return trimmed
    }
}
