/// Writes PNG files byte by byte (stored deflate blocks, no compression), independently of
/// libpng, so every PNG variant the decoder must handle can be made in a test.
public enum PNGWriter {
    public enum ColorType: UInt8, Sendable {
        case gray = 0, rgb = 2, palette = 3, grayAlpha = 4, rgba = 6
    }

    /// `rows` are the raw scanlines (packed as the bit depth says), without filter bytes.
    public static func png(width: Int, height: Int, colorType: ColorType, bitDepth: UInt8 = 8,
                    rows: [[UInt8]], palette: [UInt8]? = nil, transparency: [UInt8]? = nil) -> [UInt8] {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += chunk("IHDR", bigEndian32(width) + bigEndian32(height)
                       + [bitDepth, colorType.rawValue, 0, 0, 0])
        if let palette { bytes += chunk("PLTE", palette) }
        if let transparency { bytes += chunk("tRNS", transparency) }
        bytes += chunk("IDAT", zlibStored(rows.flatMap { [0] + $0 }))
        bytes += chunk("IEND", [])
        return bytes
    }

    /// A header and the first bytes of image data: enough for a decoder to learn the
    /// size, far too little to decode.
    public static func headerOnly(width: Int, height: Int) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", bigEndian32(width) + bigEndian32(height) + [8, 0, 0, 0, 0])
            + chunk("IDAT", [0x78, 0x01, 0x00, 0x00])
    }

    public static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return bigEndian32(data.count) + typeBytes + data + bigEndian32(Int(crc32(typeBytes + data)))
    }

    public static func bigEndian32(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var output: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let end = min(start + 65535, data.count)
            let length = end - start
            output.append(end == data.count ? 1 : 0)
            output += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8 & 0xFF)]
            output += data[start..<end]
            start = end
        } while start < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return output + bigEndian32(Int(b << 16 | a))
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
