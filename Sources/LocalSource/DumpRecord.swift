import BookCodes
import BookMetadata
import Foundation
import MetadataSources

/// Why a dump could not be loaded or read. Descriptions name the file.
public enum DumpError: Error, Sendable, Hashable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case database(path: String, reason: String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason): "cannot read \(OutsideText.shown(path)): \(reason)"
        case let .database(path, reason): "local source \(OutsideText.shown(path)): \(reason)"
        }
    }
}

/// One row of a dump as stored: what a lookup and a title search need, nothing else.
enum DumpRecord: Sendable {
    struct Edition: Sendable {
        var id: Int64
        var revision: Int64
        var isbns: [Int64]
        var title: String
        var subtitle: String?
        var authorIDs: [Int64]
        var byStatement: String?
        var workID: Int64?
        var publisher: String?
        var publishDate: String?
        var pages: Int?
        var coverID: Int?
        var language: String?
        var format: String?
        var description: String?
        var subjects: [String]
    }

    struct Work: Sendable {
        var id: Int64
        var revision: Int64
        var title: String?
        var authorIDs: [Int64]
        var subjects: [String]
        var description: String?
        var coverID: Int?
        var firstPublishDate: String?
    }

    struct Author: Sendable {
        var id: Int64
        var revision: Int64
        var name: String
    }

    case edition(Edition)
    case work(Work)
    case author(Author)
    /// Another record type (redirects, deletes, languages…), or an edition without an ISBN: not kept.
    case skipped
}

/// A row that is not a dump row, with what is wrong: counted and reported, never fatal.
struct MalformedRow: Error, Sendable {
    var line: Int
    var reason: String
}

/// `type \t key \t revision \t last_modified \t JSON` -> a record.
enum DumpRowParser {
    static let maxSubjects = 10
    static let maxDescription = 2_000

    /// The row's `last_modified` column too (the dump's date is the newest one).
    static func parse(_ line: DumpLineReader.Line) -> (Result<DumpRecord, MalformedRow>, lastModified: Substring?) {
        let bytes = line.bytes
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return (.failure(MalformedRow(line: line.number, reason: "not UTF-8 text")), nil)
        }
        let columns = text.split(separator: "\t", maxSplits: 4, omittingEmptySubsequences: false)
        guard columns.count == 5 else {
            return (.failure(MalformedRow(line: line.number, reason: "\(columns.count) tab-separated columns, expected 5 (type, key, revision, last_modified, JSON)")), nil)
        }
        let type = columns[0], key = columns[1], modified = columns[3]
        guard let revision = Int64(columns[2]) else {
            return (.failure(MalformedRow(line: line.number, reason: "revision \"\(columns[2].prefix(40))\" is not a number")), modified)
        }
        let kind: Kind
        switch type {
        case "/type/edition": kind = .edition
        case "/type/work": kind = .work
        case "/type/author": kind = .author
        default: return (.success(.skipped), modified)
        }
        guard let id = recordID(key, kind: kind) else {
            return (.failure(MalformedRow(line: line.number, reason: "key \"\(key.prefix(40))\" is not a \(kind.prefix)OL…\(kind.suffix) key")), modified)
        }
        let json = Data(columns[4].utf8)
        do {
            switch kind {
            case .edition: return (.success(try edition(id: id, revision: revision, json: json)), modified)
            case .work: return (.success(try work(id: id, revision: revision, json: json)), modified)
            case .author: return (.success(try author(id: id, revision: revision, json: json)), modified)
            }
        } catch let error as MalformedReason {
            return (.failure(MalformedRow(line: line.number, reason: error.text)), modified)
        } catch {
            return (.failure(MalformedRow(line: line.number, reason: "broken JSON (\(Self.shortDescription(error)))")), modified)
        }
    }

    enum Kind {
        case edition, work, author
        var prefix: String { switch self { case .edition: "/books/"; case .work: "/works/"; case .author: "/authors/" } }
        var suffix: Character { switch self { case .edition: "M"; case .work: "W"; case .author: "A" } }
    }

    struct MalformedReason: Error { var text: String }

    /// "/books/OL123M" -> 123 (the number is the record's id in the local source).
    static func recordID(_ key: Substring, kind: Kind) -> Int64? {
        guard key.hasPrefix(kind.prefix + "OL"), key.last == kind.suffix else { return nil }
        let digits = key.dropFirst(kind.prefix.count + 2).dropLast()
        guard !digits.isEmpty, digits.count <= 15, digits.allSatisfy(\.isASCIIDigit) else { return nil }
        return Int64(digits)
    }

    /// An OL key in a record's JSON ("/authors/OL1A"), as an id.
    static func recordID(_ key: String?, kind: Kind) -> Int64? {
        key.flatMap { recordID(Substring($0), kind: kind) }
    }

    private static func edition(id: Int64, revision: Int64, json: Data) throws -> DumpRecord {
        let record = try JSONDecoder().decode(OLEdition.self, from: json)
        var isbns: [Int64] = []
        for text in (record.isbn_13 ?? []) + (record.isbn_10 ?? []) {
            let cleaned = text.filter { $0 != "-" && $0 != " " }
            let isbn = (try? ISBN13(validating: cleaned)) ?? (try? ISBN10(validating: cleaned))?.isbn13
            if let isbn, let value = Int64(isbn.digits), !isbns.contains(value) { isbns.append(value) }
        }
        // Only what an ISBN can find is kept (a lookup is by ISBN, a search returns ISBNs).
        guard !isbns.isEmpty else { return .skipped }
        guard let title = PlainText.tidy(record.title ?? "") else {
            throw MalformedReason(text: "edition has ISBNs but no title")
        }
        return .edition(DumpRecord.Edition(
            id: id, revision: revision, isbns: isbns, title: title,
            subtitle: record.subtitle.flatMap(PlainText.tidy),
            authorIDs: (record.authors ?? []).compactMap { recordID($0.key, kind: .author) },
            byStatement: record.by_statement.flatMap(PlainText.tidy),
            workID: record.works?.lazy.compactMap { recordID($0.key, kind: .work) }.first,
            publisher: record.publishers?.first.flatMap(PlainText.tidy),
            publishDate: PublishDate.normalize(record.publish_date),
            pages: record.number_of_pages.flatMap { $0 > 0 ? $0 : nil },
            coverID: record.covers?.first { $0 > 0 },
            language: LanguageCode.normalize(record.languages?.first?.key),
            format: BookFormat.normalize(record.physical_format),
            description: record.description?.text.flatMap(PlainText.tidy).map { String($0.prefix(maxDescription)) },
            subjects: Array((record.subjects ?? []).prefix(maxSubjects).compactMap(PlainText.tidy))))
    }

    private static func work(id: Int64, revision: Int64, json: Data) throws -> DumpRecord {
        let record = try JSONDecoder().decode(OLWork.self, from: json)
        return .work(DumpRecord.Work(
            id: id, revision: revision, title: record.title.flatMap(PlainText.tidy),
            authorIDs: (record.authors ?? []).compactMap { recordID($0.key, kind: .author) },
            subjects: Array((record.subjects ?? []).prefix(maxSubjects).compactMap(PlainText.tidy)),
            description: record.description?.text.flatMap(PlainText.tidy).map { String($0.prefix(maxDescription)) },
            coverID: record.covers?.first { $0 > 0 },
            firstPublishDate: PublishDate.normalize(record.first_publish_date)))
    }

    private static func author(id: Int64, revision: Int64, json: Data) throws -> DumpRecord {
        let record = try JSONDecoder().decode(OLAuthor.self, from: json)
        guard let name = record.displayName else { return .skipped }
        return .author(DumpRecord.Author(id: id, revision: revision, name: name))
    }

    /// A decoding error in one line: its kind and where, without the whole context dump.
    static func shortDescription(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): context.debugDescription.prefix(80).description
        case DecodingError.typeMismatch(_, let context): "wrong type at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        default: "\(error)".prefix(80).description
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
