import BookMetadata
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// One MARC 21 record as MARCXML (the MARC 21 slim schema) carries it.
struct MARCXMLRecord: Sendable, Hashable {
    struct DataField: Sendable, Hashable {
        var tag: String
        var ind1: String
        var ind2: String
        var subfields: [Subfield]

        /// The values of subfield `code`, in order.
        func values(_ code: String) -> [String] { subfields.filter { $0.code == code }.map(\.value) }
        func first(_ code: String) -> String? { subfields.first { $0.code == code }?.value }
    }

    struct Subfield: Sendable, Hashable {
        var code: String
        var value: String
    }

    var leader = ""
    var controlFields: [String: String] = [:]
    var dataFields: [DataField] = []

    func fields(_ tag: String) -> [DataField] { dataFields.filter { $0.tag == tag } }
}

/// What an SRU searchRetrieve reply held: its MARCXML records and any diagnostics (SRU
/// reports a bad query or an unavailable database inside a 200 reply).
struct SRUReply: Sendable {
    var records: [MARCXMLRecord] = []
    var diagnostics: [String] = []
}

/// Reads an SRU 1.1 `searchRetrieveResponse` with Foundation's streaming XML parser:
/// namespaces resolved (any prefix), external entities never fetched; element names are
/// matched by local name. A reply cut short or another document (an HTML error page) is an
/// error, never "no records".
final class SRUReplyReader: NSObject, XMLParserDelegate {
    private var reply = SRUReply()
    private var record: MARCXMLRecord?
    private var field: MARCXMLRecord.DataField?
    private var subfieldCode: String?
    private var controlTag: String?
    private var text = ""
    private var inDiagnostic = false
    private var diagnosticMessage = ""
    private var diagnosticDetails = ""
    private var depth = 0
    private var rootName: String?
    private var rootClosed = false

    /// The reply in `data`; throws `.badResponse` naming where the XML broke.
    static func read(_ data: Data, source: String) throws(SourceError) -> SRUReply {
        let reader = SRUReplyReader()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        guard parser.parse() else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "unreadable XML"
            throw .badResponse("\(source) sent XML that cannot be read (line \(parser.lineNumber)): \(reason)")
        }
        guard reader.rootName == "searchRetrieveResponse" else {
            throw .badResponse("\(source) sent <\(OutsideText.clean(String((reader.rootName ?? "nothing").prefix(40))))>, not an SRU searchRetrieveResponse")
        }
        guard reader.rootClosed else { throw .badResponse("\(source) sent a reply that ends early (line \(parser.lineNumber))") }
        return reader.reply
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        if depth == 0 && rootName == nil { rootName = elementName }
        depth += 1
        text = ""
        switch elementName {
        case "record" where namespaceURI == "http://www.loc.gov/MARC21/slim" || namespaceURI == nil || namespaceURI == "":
            record = MARCXMLRecord()
        case "controlfield":
            controlTag = attributes["tag"]
        case "datafield":
            field = MARCXMLRecord.DataField(tag: attributes["tag"] ?? "", ind1: attributes["ind1"] ?? " ",
                                            ind2: attributes["ind2"] ?? " ", subfields: [])
        case "subfield":
            subfieldCode = attributes["code"]
        case "diagnostic":
            inDiagnostic = true
            diagnosticMessage = ""
            diagnosticDetails = ""
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        depth -= 1
        if depth == 0 { rootClosed = true }
        switch elementName {
        case "leader":
            record?.leader = text
        case "controlfield":
            if let tag = controlTag { record?.controlFields[tag] = text }
            controlTag = nil
        case "subfield":
            if let code = subfieldCode { field?.subfields.append(.init(code: code, value: text)) }
            subfieldCode = nil
        case "datafield":
            if let field { record?.dataFields.append(field) }
            field = nil
        case "record":
            if let record { reply.records.append(record) }
            record = nil
        case "message" where inDiagnostic:
            diagnosticMessage = text.trimmingCharacters(in: .whitespacesAndNewlines)
        case "details" where inDiagnostic:
            diagnosticDetails = text.trimmingCharacters(in: .whitespacesAndNewlines)
        case "diagnostic":
            inDiagnostic = false
            // "Query syntax error (bath.isbn=)": the server's words, cut short.
            let message = diagnosticMessage.isEmpty ? "unspecified diagnostic" : String(diagnosticMessage.prefix(200))
            reply.diagnostics.append(diagnosticDetails.isEmpty ? message : "\(message) (\(diagnosticDetails.prefix(80)))")
        default:
            break
        }
        text = ""
    }
}
