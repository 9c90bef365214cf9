import BookMetadata
import Foundation

/// An import file's bytes as text: UTF-8 with or without a BOM, UTF-16 (little or big
/// endian) with its BOM, else Windows-1252 (what LibraryThing and old spreadsheets write).
/// Binary content is refused, not guessed at.
public struct ImportText: Sendable {
    public let path: String
    public let text: String
    /// "utf-8", "utf-8-bom", "utf-16le", "utf-16be" or "cp1252".
    public let encoding: String
    /// Identifies the content (not the path), so a resumed import finds its finished rows.
    public let contentHash: String

    public init(path: String, data: Data) throws(ImportError) {
        self.path = path
        guard !data.isEmpty else { throw .emptyFile(path) }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        contentHash = String(hash, radix: 16) + "-" + String(data.count)
        // UTF-16 is known by its BOM only (its NUL bytes would read as binary otherwise).
        if data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]) {
            let littleEndian = data.first == 0xFF
            guard data.count % 2 == 0,
                  let text = String(data: data.dropFirst(2), encoding: littleEndian ? .utf16LittleEndian : .utf16BigEndian)
            else { throw .badEncoding(path) }
            self.text = text
            encoding = littleEndian ? "utf-16le" : "utf-16be"
        } else {
            if data.prefix(8192).contains(0) { throw .binaryFile(path) }
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
        }
        // Without copying the text (a 50 MB file is read once, not trimmed into a second copy).
        guard text.unicodeScalars.contains(where: { !CharacterSet.whitespacesAndNewlines.contains($0) }) else { throw .emptyFile(path) }
        // Many control characters (other than tab/newlines) mean this is not a text export;
        // a stray one (an ESC in a title) is dropped from the row (`OutsideText.clean`).
        let sample = text.unicodeScalars.prefix(8192)
        let controls = sample.filter { $0.value < 0x20 && ![9, 10, 13].contains($0.value) }.count
        if controls > max(16, sample.count / 100) { throw .binaryFile(path) }
    }

    /// The longest line an import file may hold: far past any export's row (a Goodreads row
    /// with a long review is a few kB), so a file that is no export is refused before it is
    /// held as text (a 50 MB one-line file took 206 MB that way).
    public static let longestLine = 1 << 20

    /// Reads the file 1 MB at a time, only to find a line longer than `longestLine`: memory
    /// stays at one buffer whatever the file holds.
    static func checkLineLengths(_ path: String, limit: Int = longestLine) throws(ImportError) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }  // the read after this names the problem
        defer { try? handle.close() }
        var line = 1, length = 0, ended = false
        // Past the limit, reading goes on to the line's end, so the message says how long it is.
        while !ended {
            let chunk: Data
            do { chunk = try handle.read(upToCount: 1 << 20) ?? Data() } catch { throw .unreadable(path, error.localizedDescription) }
            if chunk.isEmpty { break }
            // memchr: a debug build walks 50 MB byte by byte in seconds, this in milliseconds.
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
                    if length > limit { ended = true; return }
                    line += 1
                    length = 0
                    start = newline + 1
                }
            }
        }
        if length > limit { throw .lineTooLong(path, line: line, bytes: length) }
    }

    public init(contentsOf path: String) throws(ImportError) {
        try Self.checkLineLengths(path)
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) } catch {
            throw .unreadable(path, error.localizedDescription)
        }
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
    /// A line longer than any import row (`ImportText.longestLine`): not an export.
    case lineTooLong(String, line: Int, bytes: Int)

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
        }
    }
}
