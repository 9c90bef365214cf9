import BookCodes
import BookMetadata
import Catalogue
import Foundation

/// One MARC 21 bibliographic record: the owned copy's book (020 ISBNs, 100/700 names, 245
/// title, 264 publisher and date, 300 pages, 650 subjects) and its holding (852: list, status,
/// format), written as ISO 2709 (`iso2709`) or MARCXML (`xml`) from the same fields.
struct MARCRecord {
    enum Field {
        case control(tag: String, value: String)
        case data(tag: String, indicators: String, subfields: [(code: String, value: String)])

        var tag: String {
            switch self {
            case .control(let tag, _), .data(let tag, _, _): tag
            }
        }
    }

    static let fieldTerminator: UInt8 = 0x1E
    static let recordTerminator: UInt8 = 0x1D
    static let subfieldDelimiter: UInt8 = 0x1F
    /// ISO 2709's directory holds 4 digits of field length and 5 of start and record length.
    static let maxFieldBytes = 9_999
    static let maxRecordBytes = 99_999

    var fields: [Field]

    /// Text as a MARC value: terminal and C0 controls (0x1D/0x1E/0x1F, the record's own
    /// separators, among them) dropped by the one rule for outside text, and the two
    /// noncharacters XML cannot hold.
    static func value(_ text: String) -> String {
        let clean = OutsideText.clean(text)
        guard clean.unicodeScalars.contains(where: { $0.value == 0xFFFE || $0.value == 0xFFFF }) else { return clean }
        return String(String.UnicodeScalarView(clean.unicodeScalars.filter { $0.value != 0xFFFE && $0.value != 0xFFFF }))
    }

    /// `text` cut at a character boundary to at most `limit` UTF-8 bytes.
    static func prefix(_ text: String, bytes limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var result = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            guard used + size <= limit else { break }
            result.append(character)
            used += size
        }
        return result
    }

    /// A field's bytes after its directory entry, terminator included, within `maxFieldBytes`
    /// (a value too long for the directory is cut at a character boundary: the record stays readable).
    static func bytes(of field: Field) -> [UInt8] {
        var out: [UInt8] = []
        switch field {
        case .control(_, let value):
            out += prefix(value, bytes: maxFieldBytes - 1).utf8
        case .data(_, let indicators, let subfields):
            out += indicators.utf8
            for (code, value) in subfields {
                let room = maxFieldBytes - 1 - out.count - 2
                guard room > 0 else { break }
                out.append(subfieldDelimiter)
                out += code.utf8
                out += prefix(value, bytes: room).utf8
            }
        }
        out.append(fieldTerminator)
        return out
    }

    /// ISO 2709, leader/09 `a` (UCS/Unicode): lengths and offsets count UTF-8 bytes. Repeatable
    /// fields at the end (subjects, added names) are left out when the record would pass 99,999 bytes.
    func iso2709() -> [UInt8] {
        var encoded = fields.map { ($0.tag, Self.bytes(of: $0)) }
        func total() -> Int { 24 + 12 * encoded.count + 1 + encoded.reduce(0) { $0 + $1.1.count } + 1 }
        while total() > Self.maxRecordBytes, let last = encoded.lastIndex(where: { $0.0 == "650" || $0.0 == "700" }) {
            encoded.remove(at: last)
        }
        let baseAddress = 24 + 12 * encoded.count + 1
        var directory: [UInt8] = []
        var body: [UInt8] = []
        for (tag, bytes) in encoded {
            directory += (tag + Self.digits(bytes.count, 4) + Self.digits(body.count, 5)).utf8
            body += bytes
        }
        directory.append(Self.fieldTerminator)
        var record = Array(Self.leader(length: baseAddress + body.count + 1, baseAddress: baseAddress).utf8)
        record += directory
        record += body
        record.append(Self.recordTerminator)
        return record
    }

    /// New record, language material, monograph, Unicode; minimal level, non-ISBD punctuation.
    static func leader(length: Int, baseAddress: Int) -> String {
        digits(length, 5) + "nam a22" + digits(baseAddress, 5) + "7  4500"
    }

    private static func digits(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(width - text.count, 0)) + text
    }

    /// `<record>` in the MARC 21 slim schema; the leader is the one ISO 2709 would write.
    func appendXML(to out: inout String) {
        let binary = iso2709()
        out += "  <record>\n    <leader>\(String(decoding: binary.prefix(24), as: UTF8.self))</leader>\n"
        for field in fields {
            switch field {
            case .control(let tag, let value):
                out += "    <controlfield tag=\"\(tag)\">\(Self.escaped(value))</controlfield>\n"
            case .data(let tag, let indicators, let subfields):
                let ind = Array(indicators)
                out += "    <datafield tag=\"\(tag)\" ind1=\"\(ind[0])\" ind2=\"\(ind[1])\">\n"
                for (code, value) in subfields {
                    out += "      <subfield code=\"\(code)\">\(Self.escaped(value))</subfield>\n"
                }
                out += "    </datafield>\n"
            }
        }
        out += "  </record>\n"
    }

    static func escaped(_ text: String) -> String { OutsideText.markupEscaped(text) }
}

extension Exporter {
    /// One record per exported item, its work's metadata filling what the item lacks.
    static func marcRecords(_ snapshot: LibrarySnapshot) -> [MARCRecord] {
        let works = Dictionary(uniqueKeysWithValues: snapshot.works.map { ($0.workKey, $0) })
        let lists = Dictionary(uniqueKeysWithValues: snapshot.lists.map { ($0.id, $0.name) })
        return snapshot.items.map { item in
            marcRecord(item, work: works[item.bookId], listName: lists[item.listId] ?? item.listId)
        }
    }

    static func marcRecord(_ item: Item, work: Work?, listName: String) -> MARCRecord {
        typealias Field = MARCRecord.Field
        let value = MARCRecord.value
        let date = PublishDate(parsing: work?.publishDate)
        var fields: [Field] = [
            .control(tag: "001", value: value(item.id)),
            .control(tag: "005", value: marcTimestamp(item.updatedAt)),
            .control(tag: "008", value: marcFixedData(item: item, year: date?.year, language: work?.language)),
        ]
        if let isbn = try? ISBN13(validating: item.isbn) {
            fields.append(.data(tag: "020", indicators: "  ", subfields: [("a", isbn.digits)]))
            if let isbn10 = isbn.isbn10 { fields.append(.data(tag: "020", indicators: "  ", subfields: [("a", isbn10.digits)])) }
        }
        // Names are stored in direct order ("Ursula K. Le Guin"): first indicator 0.
        let authors = item.authors.map(value).filter { !$0.isEmpty }
        if let first = authors.first { fields.append(.data(tag: "100", indicators: "0 ", subfields: [("a", first)])) }
        fields.append(.data(tag: "245", indicators: authors.isEmpty ? "00" : "10", subfields: [("a", value(item.title))]))
        var imprint: [(code: String, value: String)] = []
        if let publisher = work?.publisher.map(value), !publisher.isEmpty { imprint.append(("b", publisher)) }
        if let date { imprint.append(("c", String(date.year))) }
        if !imprint.isEmpty { fields.append(.data(tag: "264", indicators: " 1", subfields: imprint)) }
        if let pages = item.pageCount ?? work?.pageCount, pages > 0 {
            fields.append(.data(tag: "300", indicators: "  ", subfields: [("a", "\(pages) pages")]))
        }
        for subject in (item.categories ?? work?.categories ?? []).map(value) where !subject.isEmpty {
            fields.append(.data(tag: "650", indicators: " 4", subfields: [("a", subject)]))
        }
        for name in authors.dropFirst() { fields.append(.data(tag: "700", indicators: "0 ", subfields: [("a", name)])) }
        // The copy: its list as the collection, reading status and format as public notes.
        var holding: [(code: String, value: String)] = [("b", value(listName))]
        holding.append(("z", "status: \(item.status.rawValue)"))
        if let format = item.ownedFormat { holding.append(("z", "format: \(format.rawValue)")) }
        fields.append(.data(tag: "852", indicators: "  ", subfields: holding))
        return MARCRecord(fields: fields)
    }

    /// 005: yyyymmddhhmmss.f, UTC.
    static func marcTimestamp(_ date: Date) -> String {
        let parts = utcCalendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02d%02d%02d%02d.0", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
                      parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }

    /// 008 for books, 40 characters: date entered, a single known year (or none), no place,
    /// unknown literary form, language (`und` when it has no MARC code), other cataloguing source.
    static func marcFixedData(item: Item, year: Int?, language: String?) -> String {
        let entered = utcCalendar.dateComponents([.year, .month, .day], from: item.addedAt)
        var data = String(format: "%02d%02d%02d", (entered.year ?? 0) % 100, entered.month ?? 0, entered.day ?? 0)
        if let year, (1...9999).contains(year) {
            data += "s" + String(format: "%04d", year) + "    "
        } else {
            data += "nuuuuuuuu"
        }
        let form = item.ownedFormat == .ebook ? "o" : " "
        data += "xx " + "    " + " " + form + "    " + " " + "000" + " " + "u" + " "
        data += (language.flatMap(LanguageCode.bibliographic) ?? "und") + " d"
        return data
    }

    private static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        return calendar
    }()

    /// ISO 2709 records, one after another (no separator: each ends with 0x1D).
    static func marc(_ snapshot: LibrarySnapshot) -> Data {
        var out: [UInt8] = []
        for record in marcRecords(snapshot) { out += record.iso2709() }
        return Data(out)
    }

    /// A MARCXML `<collection>` (http://www.loc.gov/MARC21/slim).
    static func marcXML(_ snapshot: LibrarySnapshot) -> Data {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<collection xmlns=\"http://www.loc.gov/MARC21/slim\">\n"
        for record in marcRecords(snapshot) { record.appendXML(to: &out) }
        out += "</collection>\n"
        return Data(out.utf8)
    }
}
