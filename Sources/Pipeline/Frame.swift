import BookCodes
import Foundation

/// One picture entering the pipeline: a photo from a folder or a frame a capture program
/// wrote into a watched directory.
public struct Frame: Sendable, Hashable {
    public var url: URL
    /// The path as shown to the user and written in events (as given, or found under a given folder).
    public var path: String
    public var size: Int64
    public var modified: Date
    public var captureTime: CaptureTime

    public init(url: URL, path: String? = nil, size: Int64, modified: Date, captureTime: CaptureTime) {
        self.url = url
        self.path = path ?? url.path
        self.size = size
        self.modified = modified
        self.captureTime = captureTime
    }

    /// Reads size and modification time; the capture time comes from the name or the mtime.
    public static func file(at url: URL, path: String? = nil, timeZone: TimeZone = .current) throws -> Frame {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        let modified = attributes[.modificationDate] as? Date ?? Date(timeIntervalSince1970: 0)
        return Frame(url: url, path: path, size: size, modified: modified,
                     captureTime: .of(fileNamed: url.lastPathComponent, modified: modified, timeZone: timeZone))
    }
}

/// Stage "validate", its output: one code read from a frame, already sorted into book,
/// other product, or rejected (the check digit failed).
public enum ReadCode: Sendable, Hashable {
    /// `addOn`: the EAN-5/EAN-2 printed beside the ISBN (on books usually the price), kept as metadata.
    case book(ISBN13, symbology: Symbology, text: String, addOn: AddOn? = nil)
    case product(GTIN)
    case rejected(symbology: Symbology, text: String, reason: String)

    /// The debounce key: codes are compared in GTIN-13 space (UPC-A 0… and EAN-13 are one code).
    public var debounceKey: String? {
        switch self {
        case .book(let isbn, _, _, _): isbn.digits
        case .product(let gtin): gtin.gtin13
        case .rejected: nil
        }
    }
}

/// Stage "decode", its output for one frame.
public struct DecodedFrame: Sendable {
    public enum Outcome: Sendable {
        case read([ReadCode])
        case unreadable(reason: String)
        /// Never decoded: newer frames were waiting (watch only).
        case dropped
    }

    public var frame: Frame
    public var outcome: Outcome

    public init(frame: Frame, outcome: Outcome) {
        self.frame = frame
        self.outcome = outcome
    }
}
