import Foundation

/// An import file's bytes as text: UTF-8 with or without a BOM, else Windows-1252 (what
/// LibraryThing and old spreadsheets write). Binary content is refused, not guessed at.
public struct ImportText: Sendable {
    public let path: String
    public let text: String
    /// "utf-8", "utf-8-bom" or "cp1252".
    public let encoding: String
    /// Identifies the content (not the path), so a resumed import finds its finished rows.
    public let contentHash: String

    public init(path: String, data: Data) throws(ImportError) {
        self.path = path
        guard !data.isEmpty else { throw .emptyFile(path) }
        let sample = data.prefix(8192)
        if sample.contains(0) { throw .binaryFile(path) }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        contentHash = String(hash, radix: 16) + "-" + String(data.count)
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        if data.starts(with: bom) {
            guard let text = String(data: data.dropFirst(3), encoding: .utf8) else { throw .badEncoding(path) }
            self.text = text
            encoding = "utf-8-bom"
        } else if let text = String(data: data, encoding: .utf8) {
            self.text = text
            encoding = "utf-8"
        } else if let text = String(data: data, encoding: .windowsCP1252) {
            self.text = text
            encoding = "cp1252"
        } else {
            throw .badEncoding(path)
        }
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { throw .emptyFile(path) }
        // Control characters other than tab/newlines mean this is not a text export.
        let controls = text.unicodeScalars.prefix(8192).filter { $0.value < 0x20 && ![9, 10, 13].contains($0.value) }.count
        if controls > 0 { throw .binaryFile(path) }
    }

    public init(contentsOf path: String) throws(ImportError) {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch { throw .unreadable(path, error.localizedDescription) }
        try self.init(path: path, data: data)
    }
}

/// A whole file that cannot be imported.
public enum ImportError: Error, Sendable, CustomStringConvertible, Equatable {
    case unreadable(String, String)
    case emptyFile(String)
    case binaryFile(String)
    case badEncoding(String)
    case unknownFormat(String)
    case malformed(String, String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason): "\(path): cannot be read: \(reason)"
        case let .emptyFile(path): "\(path): the file is empty"
        case let .binaryFile(path): "\(path): not a text file (binary content); give a CSV, TSV, JSON or ISBN list"
        case let .badEncoding(path): "\(path): text in an unknown encoding (use UTF-8 or Windows-1252)"
        case let .unknownFormat(path): "\(path): not a format rapidscan imports"
        case let .malformed(path, reason): "\(path): \(reason)"
        }
    }
}
