import BarcodeReading
import BookCodes
import Foundation
import Imaging

/// One picture entering the pipeline: a photo from a folder, a frame a capture program
/// wrote into a watched directory, or a frame read from a camera.
public struct Frame: Sendable, Hashable {
    public var url: URL
    /// The path as shown to the user and written in events (as given, or found under a given folder).
    public var path: String
    public var size: Int64
    public var modified: Date
    public var captureTime: CaptureTime
    /// The frame's pixels when it never was a file (`watch --device`); nil: read `url`.
    public var pixels: GrayImage?

    public init(url: URL, path: String? = nil, size: Int64, modified: Date, captureTime: CaptureTime,
                pixels: GrayImage? = nil) {
        self.url = url
        self.path = path ?? url.path
        self.size = size
        self.modified = modified
        self.captureTime = captureTime
        self.pixels = pixels
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

/// Stage "confirm", its output: one code read from a frame, sorted into book, other
/// product, or rejected (the check digit failed).
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

    /// The confirm rule: every detection was checked against its check digit by the reader;
    /// here they are sorted into books (Bookland 978/979), other products and rejected codes,
    /// one per code (GTIN-13 space), so "9780306406157" read as EAN-13 and as ISBN-13 counts once.
    public static func confirmed(from detections: [Detection]) -> [ReadCode] {
        var seen = Set<String>()
        var codes: [ReadCode] = []
        // An EAN-2/EAN-5 add-on is price metadata printed beside a main code, never a code of its own.
        for detection in detections where !detection.symbology.isAddOn {
            let code: ReadCode
            switch detection.validity {
            case .valid(.book(let isbn)): code = .book(isbn, symbology: detection.symbology, text: detection.text, addOn: detection.addOn)
            case .valid(.product(let gtin)): code = .product(gtin)
            case .rejected(let error):
                code = .rejected(symbology: detection.symbology, text: detection.text, reason: error.description)
            }
            let identity = code.debounceKey ?? "rejected:\(detection.symbology.rawValue):\(detection.text)"
            if seen.insert(identity).inserted { codes.append(code) }
        }
        return codes
    }
}

/// Stage "decode", its output for one frame: what zbar read, not yet confirmed.
public struct DecodedFrame: Sendable {
    public enum Outcome: Sendable {
        /// Valid and rejected detections alike; stage "confirm" sorts them. `ambiguities`:
        /// places where two different valid codes were read and neither was reported;
        /// `unconfirmed`: valid codes read once, too weakly to report; `contradicted`: codes
        /// read and confirmed whose digits the pixels contradict; `sawUnreadCode`: bars were
        /// seen that no code could be read from (`FileScanResult.sawUnreadCode`).
        case read([Detection], ambiguities: Int = 0, unconfirmed: Int = 0, contradicted: Int = 0, sawUnreadCode: Bool = false)
        case unreadable(reason: String)
        /// Never decoded: newer frames were waiting (watch only).
        case dropped

        public init(_ scan: Result<FileScanResult, ImageError>) {
            switch scan {
            case .failure(let error): self = .unreadable(reason: error.description)
            case .success(let scan):
                self = .read(scan.codes + scan.rejected, ambiguities: scan.ambiguities, unconfirmed: scan.unconfirmed,
                             contradicted: scan.contradicted, sawUnreadCode: scan.sawUnreadCode)
            }
        }
    }

    public var frame: Frame
    public var outcome: Outcome

    public init(frame: Frame, outcome: Outcome) {
        self.frame = frame
        self.outcome = outcome
    }
}
