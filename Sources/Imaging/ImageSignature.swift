/// What the first bytes of a file say it is. The extension is not trusted.
enum ImageSignature: Equatable {
    case decodable(ImageFormat)
    /// An ISO-BMFF (HEIF) image container: HEIC, AVIF or another HEIF brand, by name.
    case heif(String)
    /// A recognised format that rapidscan does not read, by name.
    case unsupported(String)
    case unknown

    static func detect(_ bytes: UnsafeRawBufferPointer) -> ImageSignature {
        func starts(with prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count
                && prefix.indices.allSatisfy { bytes[offset + $0] == prefix[$0] }
        }
        func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .decodable(.png) }
        if starts(with: [0xFF, 0xD8, 0xFF]) { return .decodable(.jpeg) }
        if bytes.count >= 3, bytes[0] == UInt8(ascii: "P"), isNetpbmSeparator(bytes[2]) {
            if let format = NetpbmDecoder.format(magic: bytes[1]) { return .decodable(format) }
            switch bytes[1] {
            case UInt8(ascii: "1"), UInt8(ascii: "4"): return .unsupported("PBM (bitmap)")
            case UInt8(ascii: "7"): return .unsupported("PAM")
            default: break
            }
        }
        if starts(with: ascii("GIF87a")) || starts(with: ascii("GIF89a")) { return .unsupported("GIF") }
        if isBMP(bytes) { return .unsupported("BMP") }
        if starts(with: [0x49, 0x49, 0x2A, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
            return .unsupported("TIFF")
        }
        if starts(with: ascii("RIFF")) && starts(with: ascii("WEBP"), at: 8) { return .decodable(.webp) }
        if starts(with: ascii("ftyp"), at: 4), let family = heifFamily(bytes) { return family }
        if starts(with: [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20]) { return .unsupported("JPEG 2000") }
        if starts(with: [0xFF, 0x0A]) || starts(with: [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) {
            return .unsupported("JPEG XL")
        }
        if starts(with: ascii("%PDF")) { return .unsupported("PDF") }
        if starts(with: ascii("8BPS")) { return .unsupported("Photoshop PSD") }
        return .unknown
    }

    /// The major brand names the codec; a file whose major brand is something else but that
    /// lists a HEIF structural brand (mif1/msf1) among its compatible brands is still tried.
    private static func heifFamily(_ bytes: UnsafeRawBufferPointer) -> ImageSignature? {
        func brand(at offset: Int) -> String? {
            guard bytes.count >= offset + 4 else { return nil }
            return String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
        }
        let hevc: Set = ["heic", "heix", "heim", "heis", "hevc", "hevx"], av1: Set = ["avif", "avis"]
        guard let major = brand(at: 8) else { return nil }
        if hevc.contains(major) { return .heif("HEIC") }
        if av1.contains(major) { return .heif("AVIF") }
        if major == "crx " { return .unsupported("Canon CR3 raw") }
        let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        var offset = 16
        while offset + 4 <= min(boxSize, bytes.count, 256), let compatible = brand(at: offset) {
            if hevc.contains(compatible) { return .heif("HEIC") }
            if av1.contains(compatible) { return .heif("AVIF") }
            if compatible == "mif1" || compatible == "msf1" { return .heif("HEIF") }
            offset += 4
        }
        return nil
    }

    private static func isNetpbmSeparator(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == UInt8(ascii: "#")
    }

    /// "BM" alone is too weak (text can start with it): also require a known DIB header size.
    private static func isBMP(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 18, bytes[0] == UInt8(ascii: "B"), bytes[1] == UInt8(ascii: "M") else {
            return false
        }
        let dibSize = Int(bytes[14]) | Int(bytes[15]) << 8 | Int(bytes[16]) << 16 | Int(bytes[17]) << 24
        return [12, 40, 52, 56, 64, 108, 124].contains(dibSize)
    }
}
