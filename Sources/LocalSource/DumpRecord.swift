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
        /// Space-separated ids, as stored (made by the parsing workers: the writer is one thread).
        var authorIDs: String?
        var byStatement: String?
        var workID: Int64?
        var publisher: String?
        var publishDate: String?
        var pages: Int?
        var coverID: Int?
        var language: String?
        var format: String?
        var description: String?
        /// One a line, as stored.
        var subjects: String?
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

    /// A `/type/delete` (no target) or `/type/redirect` row for an edition, work or author:
    /// the record goes; a redirect's target answers for it.
    struct Retired: Sendable {
        var kind: DumpRowParser.Kind
        var id: Int64
        var revision: Int64
        var target: Int64?
    }

    case edition(Edition)
    case work(Work)
    case author(Author)
    case retired(Retired)
    /// Another record type (languages, subjects…), or an edition without an ISBN: not kept.
    case skipped
}

/// The normalised publish dates, formats and languages a parser has seen: a dump has millions
/// of rows but a few thousand distinct values of each, and normalising one is Foundation work.
/// One per parsing thread; bounded (a value past the bound is normalised each time).
struct NormalizedValues {
    private var dates: [String: String?] = [:]
    private var formats: [String: String?] = [:]
    private var languages: [String: String?] = [:]
    private static let bound = 20_000

    mutating func publishDate(_ raw: String?) -> String? {
        Self.memoized(raw, in: &dates, PublishDate.normalize)
    }

    mutating func format(_ raw: String?) -> String? {
        Self.memoized(raw, in: &formats, BookFormat.normalize)
    }

    mutating func language(_ raw: String?) -> String? {
        Self.memoized(raw, in: &languages, LanguageCode.normalize)
    }

    private static func memoized(_ raw: String?, in known: inout [String: String?], _ normalize: (String?) -> String?) -> String? {
        guard let raw else { return normalize(nil) }
        if let value = known[raw] { return value }
        let value = normalize(raw)
        if known.count < bound { known[raw] = value }
        return value
    }
}

/// A row that is not a dump row, with what is wrong: counted and reported, never fatal.
struct MalformedRow: Error, Sendable {
    var line: Int
    var reason: String
}

/// `type \t key \t revision \t last_modified \t JSON` -> a record. Columns are split on the
/// row's bytes; the JSON's few kept keys are read by `DumpJSONScanner`, and Foundation's
/// decoder (`OLEdition`, `OLWork`, `OLAuthor`) reads a row the scanner is unsure of.
enum DumpRowParser {
    static let maxSubjects = 10
    static let maxDescription = 2_000

    /// The row's `last_modified` column too (the dump's date is the newest one). `memo` holds
    /// the normalised dates, formats and languages seen (a dump repeats a few thousand of them).
    static func parse(_ line: DumpLineReader.Line, memo: inout NormalizedValues) -> (Result<DumpRecord, MalformedRow>, lastModified: ArraySlice<UInt8>?) {
        let bytes = line.bytes
        guard isUTF8(bytes) else {
            return (.failure(MalformedRow(line: line.number, reason: "not UTF-8 text")), nil)
        }
        var tabs: [Int] = []
        tabs.reserveCapacity(4)
        var cursor = bytes.startIndex
        while tabs.count < 4, let tab = bytes[cursor...].firstIndex(of: 0x09) {
            tabs.append(tab)
            cursor = tab + 1
        }
        guard tabs.count == 4 else {
            return (.failure(MalformedRow(line: line.number, reason: "\(tabs.count + 1) tab-separated columns, expected 5 (type, key, revision, last_modified, JSON)")), nil)
        }
        let type = bytes[bytes.startIndex..<tabs[0]], key = bytes[(tabs[0] + 1)..<tabs[1]]
        let revisionText = bytes[(tabs[1] + 1)..<tabs[2]], modified = bytes[(tabs[2] + 1)..<tabs[3]]
        let json = bytes[(tabs[3] + 1)...]
        guard let revision = integer(revisionText) else {
            return (.failure(MalformedRow(line: line.number, reason: "revision \"\(String(decoding: revisionText.prefix(40), as: UTF8.self))\" is not a number")), modified)
        }
        let kind: Kind
        if type.elementsEqual(Kind.editionType) {
            kind = .edition
        } else if type.elementsEqual(Kind.workType) {
            kind = .work
        } else if type.elementsEqual(Kind.authorType) {
            kind = .author
        } else if type.elementsEqual(Kind.deleteType) || type.elementsEqual(Kind.redirectType) {
            guard let change = change(type: type, key: key, revision: revision, json: json) else { return (.success(.skipped), modified) }
            return (.success(change), modified)
        } else {
            return (.success(.skipped), modified)
        }
        guard let id = recordID(key, kind: kind) else {
            let keyText = String(decoding: key.prefix(40), as: UTF8.self)
            return (.failure(MalformedRow(line: line.number, reason: "key \"\(keyText)\" is not a \(kind.prefix)OL…\(kind.suffix) key")), modified)
        }
        do {
            switch kind {
            case .edition: return (.success(try edition(id: id, revision: revision, fields: editionFields(json), memo: &memo)), modified)
            case .work: return (.success(try work(id: id, revision: revision, fields: workFields(json), memo: &memo)), modified)
            case .author: return (.success(author(id: id, revision: revision, fields: try authorFields(json))), modified)
            }
        } catch let error as MalformedReason {
            return (.failure(MalformedRow(line: line.number, reason: error.text)), modified)
        } catch {
            return (.failure(MalformedRow(line: line.number, reason: "broken JSON (\(Self.shortDescription(error)))")), modified)
        }
    }

    /// A decimal integer column, read on its bytes (what `Int64(String)` accepts).
    static func integer(_ bytes: ArraySlice<UInt8>) -> Int64? {
        guard !bytes.isEmpty, bytes.count <= 18, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            // A sign or a long number: rare, left to the standard parser.
            return bytes.isEmpty ? nil : Int64(String(decoding: bytes, as: UTF8.self))
        }
        return bytes.reduce(0) { $0 * 10 + Int64($1 - 0x30) }
    }

    static func isUTF8(_ bytes: ArraySlice<UInt8>) -> Bool {
        // Plain ASCII, most rows, needs no decoding: checked eight bytes at a time.
        let ascii = bytes.withUnsafeBytes { raw in
            var index = 0
            while index + 8 <= raw.count {
                guard raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 else { return false }
                index += 8
            }
            while index < raw.count {
                guard raw[index] < 0x80 else { return false }
                index += 1
            }
            return true
        }
        return ascii || String(validating: bytes, as: UTF8.self) != nil
    }

    enum Kind: Int, Sendable {
        case edition = 0, work = 1, author = 2
        var prefix: String { switch self { case .edition: "/books/"; case .work: "/works/"; case .author: "/authors/" } }
        var suffix: Character { switch self { case .edition: "M"; case .work: "W"; case .author: "A" } }
        /// `prefix` + "OL", and `suffix`, as bytes.
        var keyStart: [UInt8] { switch self { case .edition: Self.editionKeyStart; case .work: Self.workKeyStart; case .author: Self.authorKeyStart } }
        var keyEnd: UInt8 { switch self { case .edition: UInt8(ascii: "M"); case .work: UInt8(ascii: "W"); case .author: UInt8(ascii: "A") } }

        private static let editionKeyStart = Array("/books/OL".utf8), workKeyStart = Array("/works/OL".utf8)
        private static let authorKeyStart = Array("/authors/OL".utf8)

        static let editionType = Array("/type/edition".utf8), workType = Array("/type/work".utf8)
        static let authorType = Array("/type/author".utf8)
        static let deleteType = Array("/type/delete".utf8), redirectType = Array("/type/redirect".utf8)
    }

    struct MalformedReason: Error { var text: String }

    /// "/books/OL123M" -> 123 (the number is the record's id in the local source), on the key's bytes.
    static func recordID<Bytes: Collection<UInt8>>(_ key: Bytes, kind: Kind) -> Int64? {
        let start = kind.keyStart
        guard key.count > start.count + 1, key.count <= start.count + 16, key.starts(with: start) else { return nil }
        var id: Int64 = 0
        var index = key.index(key.startIndex, offsetBy: start.count)
        var remaining = key.count - start.count - 1
        while remaining > 0 {
            let byte = key[index]
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            id = id * 10 + Int64(byte - 0x30)
            index = key.index(after: index)
            remaining -= 1
        }
        return key[index] == kind.keyEnd ? id : nil
    }

    /// An OL key in a record's JSON ("/authors/OL1A"), as an id.
    static func recordID(_ key: String?, kind: Kind) -> Int64? {
        key.flatMap { recordID($0.utf8, kind: kind) }
    }

    /// A delete or redirect row of an edition, work or author (nil: another key, or a
    /// redirect whose target is not a key of the same kind: not kept).
    static func change(type: ArraySlice<UInt8>, key: ArraySlice<UInt8>, revision: Int64, json: ArraySlice<UInt8>) -> DumpRecord? {
        guard let kind = [Kind.edition, .work, .author].first(where: { key.starts(with: $0.prefix.utf8) }),
              let id = recordID(key, kind: kind) else { return nil }
        guard type.elementsEqual(Kind.redirectType) else { return .retired(DumpRecord.Retired(kind: kind, id: id, revision: revision, target: nil)) }
        struct Redirect: Decodable { var location: String? }
        let scanned = try? json.withUnsafeBufferPointer { bytes throws(DumpJSONScanner.Unsure) in
            try DumpJSONScanner.scanObject(bytes, keys: [Array("location".utf8)])[0]?.string
        }
        let location = scanned ?? (try? JSONDecoder().decode(Redirect.self, from: Data(json)))?.location
        guard let target = recordID(location, kind: kind), target != id else { return nil }
        return .retired(DumpRecord.Retired(kind: kind, id: id, revision: revision, target: target))
    }

    // MARK: The kept keys, from the scanner or the full parser

    /// What an edition row's JSON says that the local source keeps.
    struct EditionFields: Equatable {
        var title: String?
        var subtitle: String?
        /// Each reference's key (`{"key": …}` or `{"author": {"key": …}}`), nil when it has none.
        var authors: [String?]?
        var works: [String?]?
        var description: String?
        var covers: [Int]?
        var pages: Int?
        var publishDate: String?
        var publishers: [String]?
        var languages: [String?]?
        var physicalFormat: String?
        var subjects: [String]?
        var isbn10: [String]?
        var isbn13: [String]?
        var byStatement: String?
    }

    struct WorkFields: Equatable {
        var title: String?
        var authors: [String?]?
        var description: String?
        var covers: [Int]?
        var subjects: [String]?
        var firstPublishDate: String?
    }

    struct AuthorFields: Equatable {
        var name: String?
        var personalName: String?
    }

    private static let editionKeys = ["title", "subtitle", "authors", "works", "description", "covers", "number_of_pages",
                                      "publish_date", "publishers", "languages", "physical_format", "subjects", "isbn_10",
                                      "isbn_13", "by_statement"].map { Array($0.utf8) }
    private static let workKeys = ["title", "authors", "description", "covers", "subjects", "first_publish_date"].map { Array($0.utf8) }
    private static let authorKeys = ["name", "personal_name"].map { Array($0.utf8) }

    static func editionFields(_ json: ArraySlice<UInt8>) throws -> EditionFields {
        if let fields = try? scannedEditionFields(json) { return fields }
        return try decodedEditionFields(json)
    }

    static func workFields(_ json: ArraySlice<UInt8>) throws -> WorkFields {
        if let fields = try? scannedWorkFields(json) { return fields }
        return try decodedWorkFields(json)
    }

    static func authorFields(_ json: ArraySlice<UInt8>) throws -> AuthorFields {
        if let fields = try? scannedAuthorFields(json) { return fields }
        return try decodedAuthorFields(json)
    }

    static func scannedEditionFields(_ json: ArraySlice<UInt8>) throws(DumpJSONScanner.Unsure) -> EditionFields {
        try json.withUnsafeBufferPointer { bytes throws(DumpJSONScanner.Unsure) in
            let v = try DumpJSONScanner.scanObject(bytes, keys: editionKeys)
            return EditionFields(
                title: v[0]?.string, subtitle: v[1]?.string, authors: try authorReferences(v[2]), works: try references(v[3]),
                description: text(v[4]), covers: try lossyIntegers(v[5]), pages: try integer(v[6]), publishDate: v[7]?.string,
                publishers: lossyStrings(v[8]), languages: try references(v[9]), physicalFormat: v[10]?.string,
                subjects: lossyStrings(v[11]), isbn10: lossyStrings(v[12]), isbn13: lossyStrings(v[13]), byStatement: v[14]?.string)
        }
    }

    static func decodedEditionFields(_ json: ArraySlice<UInt8>) throws -> EditionFields {
        let record = try JSONDecoder().decode(OLEdition.self, from: Data(json))
        return EditionFields(
            title: record.title, subtitle: record.subtitle, authors: record.authors?.map(\.key), works: record.works?.map(\.key),
            description: record.description?.text, covers: record.covers, pages: record.number_of_pages,
            publishDate: record.publish_date, publishers: record.publishers, languages: record.languages?.map(\.key),
            physicalFormat: record.physical_format, subjects: record.subjects, isbn10: record.isbn_10, isbn13: record.isbn_13,
            byStatement: record.by_statement)
    }

    static func scannedWorkFields(_ json: ArraySlice<UInt8>) throws(DumpJSONScanner.Unsure) -> WorkFields {
        try json.withUnsafeBufferPointer { bytes throws(DumpJSONScanner.Unsure) in
            let v = try DumpJSONScanner.scanObject(bytes, keys: workKeys)
            return WorkFields(title: v[0]?.string, authors: try authorReferences(v[1]), description: text(v[2]),
                              covers: try lossyIntegers(v[3]), subjects: lossyStrings(v[4]), firstPublishDate: v[5]?.string)
        }
    }

    static func decodedWorkFields(_ json: ArraySlice<UInt8>) throws -> WorkFields {
        let record = try JSONDecoder().decode(OLWork.self, from: Data(json))
        return WorkFields(title: record.title, authors: record.authors?.map(\.key), description: record.description?.text,
                          covers: record.covers, subjects: record.subjects, firstPublishDate: record.first_publish_date)
    }

    static func scannedAuthorFields(_ json: ArraySlice<UInt8>) throws(DumpJSONScanner.Unsure) -> AuthorFields {
        try json.withUnsafeBufferPointer { bytes throws(DumpJSONScanner.Unsure) in
            let v = try DumpJSONScanner.scanObject(bytes, keys: authorKeys)
            return AuthorFields(name: v[0]?.string, personalName: v[1]?.string)
        }
    }

    static func decodedAuthorFields(_ json: ArraySlice<UInt8>) throws -> AuthorFields {
        let record = try JSONDecoder().decode(OLAuthor.self, from: Data(json))
        return AuthorFields(name: record.name, personalName: record.personal_name)
    }

    // What the decoders make of each shape (`try?` per field, `Lossy` arrays); a shape whose
    // reading is not plain here is left to them.

    /// `Lossy<String>`: the strings of an array, other elements dropped.
    private static func lossyStrings(_ value: ScannedJSON?) -> [String]? {
        guard case .array(let elements)? = value else { return nil }
        return elements.compactMap(\.string)
    }

    /// `Lossy<Int>`: the integers of an array.
    private static func lossyIntegers(_ value: ScannedJSON?) throws(DumpJSONScanner.Unsure) -> [Int]? {
        guard case .array(let elements)? = value else { return nil }
        var integers: [Int] = []
        for element in elements {
            switch element {
            case .integer(let number): integers.append(number)
            case .otherNumber: throw DumpJSONScanner.Unsure()
            default: continue
            }
        }
        return integers
    }

    private static func integer(_ value: ScannedJSON?) throws(DumpJSONScanner.Unsure) -> Int? {
        switch value {
        case .integer(let number)?: number
        case .otherNumber?: throw DumpJSONScanner.Unsure()
        default: nil
        }
    }

    /// `OLText`: a string, or an object's string `value`.
    private static func text(_ value: ScannedJSON?) -> String? {
        value?.string ?? value?.object?["value"]?.string
    }

    /// `[Ref]`: objects whose `key` is a string or absent.
    private static func references(_ value: ScannedJSON?) throws(DumpJSONScanner.Unsure) -> [String?]? {
        guard case .array(let elements)? = value else { return nil }
        var keys: [String?] = []
        for element in elements {
            guard let members = element.object else { throw DumpJSONScanner.Unsure() }
            switch members["key"] {
            case nil, .null?: keys.append(nil)
            case .string(let key)?: keys.append(key)
            default: throw DumpJSONScanner.Unsure()
            }
        }
        return keys
    }

    /// `[OLAuthorRef]`: `{"key": …}` (editions) or `{"author": {"key": …}}` (works).
    private static func authorReferences(_ value: ScannedJSON?) throws(DumpJSONScanner.Unsure) -> [String?]? {
        guard case .array(let elements)? = value else { return nil }
        var keys: [String?] = []
        for element in elements {
            guard let members = element.object else { throw DumpJSONScanner.Unsure() }
            keys.append(members["key"]?.string ?? members["author"]?.object?["key"]?.string)
        }
        return keys
    }

    // MARK: Records

    private static func edition(id: Int64, revision: Int64, fields record: EditionFields, memo: inout NormalizedValues) throws -> DumpRecord {
        var isbns: [Int64] = []
        for list in [record.isbn13, record.isbn10] {
            for text in list ?? [] {
                if let value = isbnValue(text), !isbns.contains(value) { isbns.append(value) }
            }
        }
        // Only what an ISBN can find is kept (a lookup is by ISBN, a search returns ISBNs).
        guard !isbns.isEmpty else { return .skipped }
        guard let title = tidy(record.title ?? "") else {
            throw MalformedReason(text: "edition has ISBNs but no title")
        }
        return .edition(DumpRecord.Edition(
            id: id, revision: revision, isbns: isbns, title: title,
            subtitle: record.subtitle.flatMap(tidy),
            authorIDs: DumpLoader.joined((record.authors ?? []).compactMap { recordID($0, kind: .author) }),
            byStatement: record.byStatement.flatMap(tidy),
            workID: record.works?.lazy.compactMap { recordID($0, kind: .work) }.first,
            publisher: record.publishers?.first.flatMap(tidy),
            publishDate: memo.publishDate(record.publishDate),
            pages: record.pages.flatMap { $0 > 0 ? $0 : nil },
            coverID: record.covers?.first { $0 > 0 },
            language: memo.language(record.languages?.first ?? nil),
            format: memo.format(record.physicalFormat),
            description: record.description.flatMap(tidy).map(shortened),
            subjects: DumpLoader.lines((record.subjects ?? []).prefix(maxSubjects).compactMap(tidy))))
    }

    /// The first `maxDescription` characters; a text with no more bytes than that is all of them
    /// (counting characters walks the whole text).
    private static func shortened(_ description: String) -> String {
        description.utf8.count <= maxDescription ? description : String(description.prefix(maxDescription))
    }

    private static func work(id: Int64, revision: Int64, fields record: WorkFields, memo: inout NormalizedValues) throws -> DumpRecord {
        .work(DumpRecord.Work(
            id: id, revision: revision, title: record.title.flatMap(tidy),
            authorIDs: (record.authors ?? []).compactMap { recordID($0, kind: .author) },
            subjects: Array((record.subjects ?? []).prefix(maxSubjects).compactMap(tidy)),
            description: record.description.flatMap(tidy).map(shortened),
            coverID: record.covers?.first { $0 > 0 },
            firstPublishDate: memo.publishDate(record.firstPublishDate)))
    }

    /// An edition's ISBN text as the 13-digit number stored (an ISBN-10 converted); nil when it
    /// is not a valid ISBN. Plain digits (nearly every dump value) are checked on their bytes,
    /// the checksums summed as they are read (no array a value); anything else goes through
    /// `ISBN13(validating:)` as typed text does.
    static func isbnValue(_ text: String) -> Int64? {
        var value: Int64 = 0, count = 0, tenthIsX = false
        // GS1 weights of the first 12 digits; ISBN-10 weights (10…2) of the first 9; the GS1
        // weights those 9 get after "978".
        var sum13: Int64 = 0, sum10: Int64 = 0, sum978: Int64 = 0
        for byte in text.utf8 where byte != UInt8(ascii: "-") && byte != UInt8(ascii: " ") {
            if byte >= 0x30, byte <= 0x39, !tenthIsX {
                let digit = Int64(byte - 0x30)
                if count < 12 { sum13 += (count % 2 == 0 ? 1 : 3) * digit }
                if count < 9 {
                    sum10 += Int64(10 - count) * digit
                    sum978 += (count % 2 == 0 ? 3 : 1) * digit
                }
                value = value &* 10 &+ digit
                count += 1
            } else if byte == UInt8(ascii: "X") || byte == UInt8(ascii: "x"), count == 9, !tenthIsX {
                tenthIsX = true
            } else {
                return slowISBNValue(text)
            }
            if count > 13 { return nil }
        }
        if count == 13, !tenthIsX {
            let prefix = value / 1_000_000_000  // the first four digits
            guard prefix / 10 == 978 || (prefix / 10 == 979 && prefix % 10 != 0) else { return nil }
            guard (10 - sum13 % 10) % 10 == value % 10 else { return nil }
            return value
        }
        if count + (tenthIsX ? 1 : 0) == 10 {
            let check = tenthIsX ? 10 : value % 10
            guard (sum10 + check) % 11 == 0 else { return nil }
            let body = 978_000_000_000 + (tenthIsX ? value : value / 10)
            // 9·1 + 7·3 + 8·1 = 38: the GS1 weights of "978".
            return body * 10 + (10 - (38 + sum978) % 10) % 10
        }
        return slowISBNValue(text)
    }

    private static func slowISBNValue(_ text: String) -> Int64? {
        let cleaned = text.filter { $0 != "-" && $0 != " " }
        let isbn = (try? ISBN13(validating: cleaned)) ?? (try? ISBN10(validating: cleaned))?.isbn13
        return isbn.flatMap { Int64($0.digits) }
    }

    private static func author(id: Int64, revision: Int64, fields record: AuthorFields) -> DumpRecord {
        guard let name = (record.name ?? record.personalName).flatMap(tidy) else { return .skipped }
        return .author(DumpRecord.Author(id: id, revision: revision, name: name))
    }

    /// `PlainText.tidy`, which leaves printable ASCII with single inner spaces as it is: most
    /// of a dump's titles and names, so those skip its work.
    static func tidy(_ text: String) -> String? {
        var previousSpace = true
        for byte in text.utf8 {
            guard byte >= 0x20, byte < 0x7F else { return PlainText.tidy(text) }
            let space = byte == 0x20
            if space && previousSpace { return PlainText.tidy(text) }
            previousSpace = space
        }
        return previousSpace ? PlainText.tidy(text) : text
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

