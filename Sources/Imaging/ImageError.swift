/// Why a file could not be turned into an image. Every case carries the file's name
/// (the path as the caller gave it) and `description` reads "name: what is wrong".
public enum ImageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// open/read failed; `reason` is the system's message ("No such file or directory").
    case cannotOpen(file: String, reason: String)
    case isDirectory(file: String)
    case emptyFile(file: String)
    /// No known signature; `start` holds the first few bytes.
    case notAnImage(file: String, start: [UInt8])
    /// A recognised image format rapidscan does not read (GIF, BMP, TIFF, camera raw…).
    case unsupportedFormat(file: String, format: String)
    case tooLarge(file: String, width: Int, height: Int, maxPixels: Int)
    case truncated(file: String, format: ImageFormat, detail: String)
    case corrupt(file: String, format: ImageFormat, detail: String)
    /// A raw frame whose size does not match the width × height × bytes per pixel given.
    case rawSizeMismatch(file: String, format: RawFrameFormat, byteCount: Int)
    /// A raw frame file (by extension) but no `rawFormat` to read it with.
    case rawFormatMissing(file: String)
    case outOfMemory(file: String, detail: String)
    /// The format's decoder library (opened on first use) could not be loaded; `reason` names the package.
    case decoderUnavailable(file: String, format: ImageFormat, reason: String)
    /// The header declares far more than the file's bytes can hold (a tiny progressive JPEG
    /// declaring 9999×9999): refused before the decoder allocates for it.
    case implausibleSize(file: String, format: ImageFormat, detail: String)

    public var file: String {
        switch self {
        case .cannotOpen(let file, _), .isDirectory(let file), .emptyFile(let file),
             .notAnImage(let file, _), .unsupportedFormat(let file, _),
             .tooLarge(let file, _, _, _), .truncated(let file, _, _), .corrupt(let file, _, _),
             .rawSizeMismatch(let file, _, _), .rawFormatMissing(let file),
             .outOfMemory(let file, _), .decoderUnavailable(let file, _, _), .implausibleSize(let file, _, _):
            file
        }
    }

    /// What is wrong, without the file name.
    public var reason: String {
        switch self {
        case .cannotOpen(_, let reason):
            "cannot open (\(reason))"
        case .isDirectory:
            "is a directory, not an image file"
        case .emptyFile:
            "empty file (0 bytes)"
        case .notAnImage(_, let start):
            "not an image (starts with \(Self.quoted(start)))"
        case .unsupportedFormat(_, let format):
            "unsupported format \(format) (rapidscan reads PNG, JPEG, WebP, HEIC/HEIF/AVIF, PGM/PPM and raw Y800/YUYV frames)"
        case .tooLarge(_, let width, let height, let maxPixels):
            "\(width)×\(height) pixels is over the \(Self.megapixels(maxPixels)) limit"
        case .truncated(_, let format, let detail):
            "truncated \(format) (\(detail))"
        case .corrupt(_, let format, let detail):
            "corrupt \(format) (\(detail))"
        case .rawSizeMismatch(_, let format, let byteCount):
            "\(byteCount) bytes is not a \(format.width)×\(format.height) \(format.name) frame "
                + "(\(format.frameByteCount) bytes expected)"
        case .rawFormatMissing:
            "raw frame without a size: give the width, height and pixel format (Y800 or YUYV)"
        case .outOfMemory(_, let detail):
            "out of memory (\(detail))"
        case .decoderUnavailable(_, let format, let reason):
            "cannot decode \(format): \(reason)"
        case .implausibleSize(_, let format, let detail):
            "refused \(format): \(detail)"
        }
    }

    public var description: String { "\(file): \(reason)" }

    /// Text as text ('Hello wor'), anything else as hex bytes (0x00 0x01 …).
    static func quoted(_ bytes: [UInt8]) -> String {
        if bytes.allSatisfy({ (0x20...0x7E).contains($0) }) {
            return "'" + String(decoding: bytes, as: UTF8.self) + "'"
        }
        return "bytes " + bytes.map { "0x" + String($0, radix: 16, uppercase: true).leftPadded(to: 2) }
            .joined(separator: " ")
    }

    static func megapixels(_ pixels: Int) -> String {
        pixels % 1_000_000 == 0 ? "\(pixels / 1_000_000) MP" : "\(pixels) pixel"
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
