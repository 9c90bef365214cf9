import BookMetadata
import Foundation

/// An import file read as text, a chunk at a time: UTF-8 with or without a BOM, UTF-16
/// (little or big endian) with its BOM, else Windows-1252 (what LibraryThing and old
/// spreadsheets write). Binary content is refused, not guessed at. Opening it reads the file
/// once through (its hash, line lengths and encoding); rows are then read as a stream
/// (`lines()`), so memory stays at a chunk and a line whatever the file's size. Only a
/// one-document format (JSON) is held whole (`wholeText()`), up to `largestDocument`.
public struct ImportText: Sendable {
    public let path: String
    /// "utf-8", "utf-8-bom", "utf-16le", "utf-16be" or "cp1252".
    public var encoding: String { textEncoding.rawValue }
    /// Identifies the content (not the path), so a resumed import finds its finished rows.
    public let contentHash: String
    /// The file's size in bytes.
    public let byteCount: Int
    let textEncoding: TextEncoding
    let source: ByteSource
    /// A JSON document's first line over `longestLine`: allowed when it is read whole as the
    /// document it is, refused if it is read as lines (a format forced with `--format`).
    let longLine: (line: Int, bytes: Int)?

    /// The longest line an import file may hold: far past any export's row (a Goodreads row
    /// with a long review is a few kB), so a file that is no export is refused before any of
    /// it is imported (a 50 MB one-line file took 206 MB when it was held as text).
    public static let longestLine = 1 << 20
    /// The largest one-document file (JSON) read whole: a rapidscan backup of 10,000 books is
    /// about 10 MB; parsing holds several times the file.
    public static let largestDocument = 64 << 20
    /// Bytes read at a time.
    static let chunkSize = 1 << 20

    /// The bytes of a file given in memory (`path` names it in messages).
    public init(path: String, data: Data) throws(ImportError) {
        try self.init(path: path, source: .bytes(data))
    }

    public init(contentsOf path: String) throws(ImportError) {
        try self.init(path: path, source: .file(path))
    }

    init(path: String, source: ByteSource) throws(ImportError) {
        self.path = path
        self.source = source
        // One pass: the content hash, the line lengths (a line over `longestLine` is refused
        // by its number) and whether the bytes decode in the encoding the start suggests.
        var chunks = try source.chunks(path: path)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var lines = LineLengthCheck()
        var count = 0
        var encoding: TextEncoding?
        var decoder: TextDecoder?
        var content = ContentCheck()
        var binary = false
        var isDocument = false
        while isDocument || lines.tooLong == nil, let chunk = try chunks.next() {
            if encoding == nil {
                let detected = TextEncoding.suggested(by: chunk)
                encoding = detected
                decoder = TextDecoder(detected)
                // UTF-16 is known by its BOM only (its NUL bytes would read as binary otherwise).
                if !detected.isUTF16 && chunk.prefix(8192).contains(0) { binary = true }
                isDocument = Self.opensJSONDocument(chunk)
            }
            count += chunk.count
            for byte in chunk { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            lines.add(chunk)
            // A file that is not UTF-8 is decoded as Windows-1252 in a second pass below.
            if !binary, let text = decoder?.decode(chunk) { content.add(text) } else { decoder = nil }
        }
        // A JSON document may be one line (LibraryThing's export, `jq -c`): its size is capped
        // when it is read whole (`wholeText`), not its lines.
        let long = lines.tooLong ?? lines.finish()
        if let long, !isDocument { throw .lineTooLong(path, line: long.line, bytes: long.bytes) }
        longLine = long
        guard count > 0, var encoding else { throw .emptyFile(path) }
        if binary { throw .binaryFile(path) }
        if decoder == nil || decoder?.finish() == nil {
            guard encoding == .utf8 else { throw .badEncoding(path) }
            encoding = .cp1252
            content = ContentCheck()
            var again = try source.chunks(path: path)
            var singleByte = TextDecoder(.cp1252)
            while let chunk = try again.next() {
                guard let text = singleByte.decode(chunk) else { throw .badEncoding(path) }
                content.add(text)
            }
        }
        guard content.hasText else { throw .emptyFile(path) }
        // Many control characters (other than tab/newlines) mean this is not a text export;
        // a stray one (an ESC in a title) is dropped from the row (`OutsideText.clean`).
        if content.controls > max(16, content.sampled / 100) { throw .binaryFile(path) }
        textEncoding = encoding
        byteCount = count
        contentHash = String(hash, radix: 16) + "-" + String(count)
    }

    /// Whether the file's first character (after a BOM and white space) opens a JSON object
    /// or array: `{` and `[` are the same byte in UTF-8 and Windows-1252, and UTF-16's other
    /// byte is 0.
    static func opensJSONDocument(_ start: Data) -> Bool {
        for byte in start.prefix(4096) {
            switch byte {
            case 0x7B, 0x5B: return true  // { [
            case 0x20, 0x09, 0x0A, 0x0D, 0x00, 0xEF, 0xBB, 0xBF, 0xFF, 0xFE: continue  // white space, BOM bytes, UTF-16's zeros
            default: return false
            }
        }
        return false
    }

    /// The text's lines in order, read a chunk at a time.
    func lines() throws(ImportError) -> ImportLines {
        if let long = longLine { throw .lineTooLong(path, line: long.line, bytes: long.bytes) }
        return ImportLines(path: path, chunks: try source.chunks(path: path), decoder: TextDecoder(textEncoding))
    }

    /// The start of the text (format detection): up to `characters` characters.
    public func head(_ characters: Int = 4096) throws(ImportError) -> String {
        var chunks = try source.chunks(path: path)
        var decoder = TextDecoder(textEncoding)
        var text = ""
        while text.count < characters, let chunk = try chunks.next() {
            guard let decoded = decoder.decode(chunk) else { throw .badEncoding(path) }
            text += decoded
        }
        return String(text.prefix(characters))
    }

    /// The whole text, for a format that is one document (JSON); a file larger than
    /// `largestDocument` is refused with its size.
    public func wholeText() throws(ImportError) -> String {
        guard byteCount <= Self.largestDocument else { throw .tooLarge(path, bytes: byteCount, limit: Self.largestDocument) }
        var chunks = try source.chunks(path: path)
        var decoder = TextDecoder(textEncoding)
        var text = ""
        text.reserveCapacity(byteCount)
        while let chunk = try chunks.next() {
            guard let decoded = decoder.decode(chunk) else { throw .badEncoding(path) }
            text += decoded
        }
        guard decoder.finish() != nil else { throw .badEncoding(path) }
        return text
    }
}

/// Where an import file's bytes come from: the file (read a chunk at a time) or memory.
enum ByteSource: Sendable {
    case file(String)
    case bytes(Data)

    func chunks(path: String) throws(ImportError) -> ByteChunks {
        switch self {
        case let .file(name):
            do { return ByteChunks(handle: try FileHandle(forReadingFrom: URL(fileURLWithPath: name)), path: path) } catch {
                throw .unreadable(path, error.localizedDescription)
            }
        case let .bytes(data): return ByteChunks(data: data, path: path)
        }
    }
}

/// The bytes, `ImportText.chunkSize` at a time.
struct ByteChunks {
    private var handle: FileHandle?
    private var data: Data?
    private var offset = 0
    private let path: String

    init(handle: FileHandle, path: String) {
        self.handle = handle
        self.path = path
    }

    init(data: Data, path: String) {
        self.data = data
        self.path = path
    }

    mutating func next() throws(ImportError) -> Data? {
        if let handle {
            let chunk: Data
            do { chunk = try handle.read(upToCount: ImportText.chunkSize) ?? Data() } catch {
                throw .unreadable(path, error.localizedDescription)
            }
            if chunk.isEmpty { try? handle.close(); self.handle = nil; return nil }
            return chunk
        }
        guard let data, offset < data.count else { return nil }
        let start = data.startIndex + offset
        let end = min(start + ImportText.chunkSize, data.endIndex)
        offset += end - start
        return data[start..<end]
    }
}

/// Line lengths in bytes, counted by memchr (a debug build walks 50 MB byte by byte in
/// seconds, this in milliseconds). A line is measured to its end, so the refusal says how long it is.
struct LineLengthCheck {
    var limit = ImportText.longestLine
    private var line = 1
    private var length = 0
    /// The first line longer than `limit` (its number and length), once its end is read.
    private(set) var tooLong: (line: Int, bytes: Int)?

    mutating func add(_ chunk: Data) {
        guard tooLong == nil else { return }
        chunk.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            guard var start = bytes.baseAddress else { return }
            let end = start + bytes.count
            while start < end {
                guard let found = memchr(start, 0x0A, end - start) else {
                    length += end - start
                    return
                }
                let newline = UnsafeRawPointer(found)
                length += newline - start
                if length > limit { tooLong = (line, length); return }
                line += 1
                length = 0
                start = newline + 1
            }
        }
    }

    /// The last line (no newline after it), if too long.
    func finish() -> (line: Int, bytes: Int)? { length > limit ? (line, length) : nil }
}

/// The encodings an import file may be in.
enum TextEncoding: String, Sendable {
    case utf8 = "utf-8"
    case utf8BOM = "utf-8-bom"
    case utf16LE = "utf-16le"
    case utf16BE = "utf-16be"
    case cp1252

    /// What the file's start says: a BOM, else UTF-8 (Windows-1252 if that fails to decode).
    static func suggested(by start: Data) -> TextEncoding {
        if start.starts(with: [0xFF, 0xFE]) { return .utf16LE }
        if start.starts(with: [0xFE, 0xFF]) { return .utf16BE }
        if start.starts(with: [0xEF, 0xBB, 0xBF]) { return .utf8BOM }
        return .utf8
    }

    var isUTF16: Bool { self == .utf16LE || self == .utf16BE }

    var bomLength: Int {
        switch self {
        case .utf8BOM: 3
        case .utf16LE, .utf16BE: 2
        case .utf8, .cp1252: 0
        }
    }
}

/// Decodes a file chunk by chunk: a character cut by a chunk's end waits for the next chunk.
struct TextDecoder {
    let encoding: TextEncoding
    private var carry: [UInt8] = []
    private var bomLeft: Int

    init(_ encoding: TextEncoding) {
        self.encoding = encoding
        bomLeft = encoding.bomLength
    }

    /// The chunk's text; nil when the bytes are not valid in the encoding.
    mutating func decode(_ chunk: Data) -> String? {
        var bytes = carry
        bytes.append(contentsOf: chunk.dropFirst(bomLeft))
        bomLeft = max(0, bomLeft - chunk.count)
        carry = []
        switch encoding {
        case .cp1252:
            return String(data: Data(bytes), encoding: .windowsCP1252)
        case .utf8, .utf8BOM:
            // A sequence cut at the end: from its lead byte on, it waits.
            var cut = bytes.count
            if let lead = bytes.indices.suffix(4).last(where: { bytes[$0] & 0xC0 != 0x80 }) {
                let byte = bytes[lead]
                let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                if lead + length > bytes.count { cut = lead }
            }
            carry = Array(bytes[cut...])
            return String(validating: bytes[..<cut], as: UTF8.self)
        case .utf16LE, .utf16BE:
            var cut = bytes.count & ~1
            let (littleEndian, source) = (encoding == .utf16LE, bytes)
            let unit = { (index: Int) -> UInt16 in
                littleEndian ? UInt16(source[index]) | UInt16(source[index + 1]) << 8
                    : UInt16(source[index]) << 8 | UInt16(source[index + 1])
            }
            // A high surrogate at the end waits for its low half.
            if cut >= 2, (0xD800...0xDBFF).contains(unit(cut - 2)) { cut -= 2 }
            carry = Array(bytes[cut...])
            return String(validating: stride(from: 0, to: cut, by: 2).map(unit), as: UTF16.self)
        }
    }

    /// What is left at the end: "" when nothing, nil when the file ends inside a character.
    func finish() -> String? { carry.isEmpty ? "" : nil }
}

/// What the start of the text says about it: whether anything but white space is there, and
/// how many control characters the first 8,192 characters hold.
struct ContentCheck {
    private(set) var hasText = false
    private(set) var sampled = 0
    private(set) var controls = 0

    mutating func add(_ text: String) {
        if !hasText { hasText = text.unicodeScalars.contains(where: { !CharacterSet.whitespacesAndNewlines.contains($0) }) }
        guard sampled < 8192 else { return }
        for scalar in text.unicodeScalars.prefix(8192 - sampled) {
            sampled += 1
            if scalar.value < 0x20 && ![9, 10, 13].contains(scalar.value) { controls += 1 }
        }
    }
}

/// One line of an import file: its 1-based number, its text and what ended it ("\n",
/// "\r\n", "\r", or "" for the last line).
struct ImportLine {
    var number: Int
    var text: Substring
    var terminator: String
}

/// An import file's lines, decoded a chunk at a time.
struct ImportLines {
    let path: String
    private var chunks: ByteChunks
    private var decoder: TextDecoder
    private var buffer = ""
    private var position = "".startIndex
    private var ended = false
    private var number = 0

    init(path: String, chunks: ByteChunks, decoder: TextDecoder) {
        self.path = path
        self.chunks = chunks
        self.decoder = decoder
    }

    mutating func next() throws(ImportError) -> ImportLine? {
        while true {
            let rest = buffer.utf8[position...]
            if let end = rest.firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) {
                let after = buffer.utf8.index(after: end)
                // A CR at the buffer's end may be the first half of CRLF.
                if buffer.utf8[end] == 0x0D && after == buffer.endIndex && !ended { try refill(); continue }
                let terminator = buffer.utf8[end] == 0x0D && after < buffer.endIndex && buffer.utf8[after] == 0x0A
                    ? "\r\n" : buffer.utf8[end] == 0x0D ? "\r" : "\n"
                let line = ImportLine(number: number + 1, text: buffer[position..<end], terminator: terminator)
                number += 1
                position = buffer.utf8.index(end, offsetBy: terminator.utf8.count)
                return line
            }
            if ended {
                guard position < buffer.endIndex else { return nil }
                number += 1
                defer { position = buffer.endIndex }
                return ImportLine(number: number, text: buffer[position...], terminator: "")
            }
            try refill()
        }
    }

    private mutating func refill() throws(ImportError) {
        var text: String
        if let chunk = try chunks.next() {
            guard let decoded = decoder.decode(chunk) else { throw .badEncoding(path) }
            text = decoded
        } else {
            guard let tail = decoder.finish() else { throw .badEncoding(path) }
            text = tail
            ended = true
        }
        buffer = String(buffer[position...]) + text
        position = buffer.startIndex
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
    /// A line longer than any import row (`ImportText.longestLine`): not an export.
    case lineTooLong(String, line: Int, bytes: Int)
    /// A one-document file (JSON) larger than `ImportText.largestDocument`.
    case tooLarge(String, bytes: Int, limit: Int)

    /// The path shown escaped (`OutsideText.shown`): a name may hold ESC or a newline.
    public var description: String {
        switch self.shownPath {
        case let .unreadable(path, reason): "\(path): cannot be read: \(reason)"
        case let .emptyFile(path): "\(path): the file is empty"
        case let .binaryFile(path): "\(path): not a text file (binary content); give a CSV, TSV, JSON or ISBN list"
        case let .badEncoding(path): "\(path): text in an unknown encoding (use UTF-8, UTF-16 with a BOM or Windows-1252)"
        case let .unknownFormat(path): "\(path): not a format rapidscan imports"
        case let .malformed(path, reason): "\(path): \(reason)"
        case let .lineTooLong(path, line, bytes):
            "\(path):\(line): a line of \(String(format: "%.1f", Double(bytes) / 1_048_576)) MB, longer than any row an import holds "
                + "(at most \(ImportText.longestLine >> 20) MB a line); not read (is it the file you meant?)"
        case let .tooLarge(path, bytes, limit):
            "\(path): a JSON document of \(String(format: "%.1f", Double(bytes) / 1_048_576)) MB, larger than rapidscan reads whole (at most \(limit >> 20) MB); "
                + "not read (export the library as CSV, or split the file)"
        }
    }
}

extension ImportError {
    fileprivate var shownPath: ImportError {
        let shown: (String) -> String = OutsideText.shown
        return switch self {
        case let .unreadable(path, reason): .unreadable(shown(path), reason)
        case let .emptyFile(path): .emptyFile(shown(path))
        case let .binaryFile(path): .binaryFile(shown(path))
        case let .badEncoding(path): .badEncoding(shown(path))
        case let .unknownFormat(path): .unknownFormat(shown(path))
        case let .malformed(path, reason): .malformed(shown(path), reason)
        case let .lineTooLong(path, line, bytes): .lineTooLong(shown(path), line: line, bytes: bytes)
        case let .tooLarge(path, bytes, limit): .tooLarge(shown(path), bytes: bytes, limit: limit)
        }
    }
}
