/// PGM (P2 ASCII, P5 binary) and PPM (P3, P6): maxval up to 65535, `#` comments in the
/// header. Samples are scaled to 0…255; color becomes luma with
/// libjpeg's BT.601 weights (0.299, 0.587, 0.114 in 16-bit fixed point).
struct NetpbmDecoder {
    enum Failure: Error {
        case corrupt(String)
        case truncated(String)
        case tooLarge(width: Int, height: Int)
    }

    struct Header {
        var binary: Bool
        var channels: Int
        var width: Int
        var height: Int
        var maxValue: Int
        var dataOffset: Int
    }

    let bytes: UnsafeRawBufferPointer

    static func format(magic: UInt8) -> ImageFormat? {
        switch magic {
        case UInt8(ascii: "2"), UInt8(ascii: "5"): .pgm
        case UInt8(ascii: "3"), UInt8(ascii: "6"): .ppm
        default: nil
        }
    }

    func decode(maxPixels: Int) throws(Failure) -> (GrayImage, Header) {
        let header = try readHeader()
        guard header.width * header.height <= maxPixels else {
            throw .tooLarge(width: header.width, height: header.height)
        }
        let sampleCount = header.width * header.height * header.channels
        let samples = header.binary ? try binarySamples(header, count: sampleCount)
                                    : try asciiSamples(header, count: sampleCount)
        let pixels: [UInt8]
        if header.channels == 1 {
            pixels = samples
        } else {
            pixels = (0..<header.width * header.height).map { index in
                let r = Int(samples[3 * index]), g = Int(samples[3 * index + 1]), b = Int(samples[3 * index + 2])
                return UInt8((r * 19595 + g * 38470 + b * 7471 + 32768) >> 16)
            }
        }
        return (GrayImage(width: header.width, height: header.height, pixels: pixels), header)
    }

    private func readHeader() throws(Failure) -> Header {
        guard bytes.count >= 2 else { throw .truncated("no header") }
        let kind = bytes[1]
        var offset = 2
        let width = try nextNumber(&offset, what: "width")
        let height = try nextNumber(&offset, what: "height")
        let maxValue = try nextNumber(&offset, what: "maxval")
        guard width > 0, height > 0 else { throw .corrupt("size \(width)×\(height)") }
        guard (1...65535).contains(maxValue) else { throw .corrupt("maxval \(maxValue) is not 1…65535") }
        guard offset < bytes.count, isWhitespace(bytes[offset]) else {
            throw offset < bytes.count ? .corrupt("no whitespace after maxval") : .truncated("no pixel data")
        }
        let binary = kind == UInt8(ascii: "5") || kind == UInt8(ascii: "6")
        let channels = kind == UInt8(ascii: "3") || kind == UInt8(ascii: "6") ? 3 : 1
        return Header(binary: binary, channels: channels, width: width, height: height,
                      maxValue: maxValue, dataOffset: offset + 1)
    }

    private func binarySamples(_ header: Header, count: Int) throws(Failure) -> [UInt8] {
        let wide = header.maxValue > 255
        let needed = count * (wide ? 2 : 1)
        let available = bytes.count - header.dataOffset
        guard available >= needed else {
            throw .truncated("\(available) of \(needed) bytes of pixel data")
        }
        var samples = [UInt8](repeating: 0, count: count)
        for index in 0..<count {
            let value = wide
                ? Int(bytes[header.dataOffset + 2 * index]) << 8 | Int(bytes[header.dataOffset + 2 * index + 1])
                : Int(bytes[header.dataOffset + index])
            guard value <= header.maxValue else { throw .corrupt("sample \(value) over maxval \(header.maxValue)") }
            samples[index] = scaled(value, maxValue: header.maxValue)
        }
        return samples
    }

    private func asciiSamples(_ header: Header, count: Int) throws(Failure) -> [UInt8] {
        var samples = [UInt8](repeating: 0, count: count)
        var offset = header.dataOffset
        for index in 0..<count {
            let value: Int
            do {
                value = try nextNumber(&offset, what: "sample")
            } catch .truncated {
                throw .truncated("\(index) of \(count) samples")
            }
            guard value <= header.maxValue else { throw .corrupt("sample \(value) over maxval \(header.maxValue)") }
            samples[index] = scaled(value, maxValue: header.maxValue)
        }
        return samples
    }

    private func scaled(_ value: Int, maxValue: Int) -> UInt8 {
        maxValue == 255 ? UInt8(value) : UInt8((value * 255 + maxValue / 2) / maxValue)
    }

    /// Skips whitespace and comments, then reads a decimal number.
    private func nextNumber(_ offset: inout Int, what: String) throws(Failure) -> Int {
        while offset < bytes.count {
            if isWhitespace(bytes[offset]) {
                offset += 1
            } else if bytes[offset] == UInt8(ascii: "#") {
                while offset < bytes.count, bytes[offset] != UInt8(ascii: "\n"), bytes[offset] != UInt8(ascii: "\r") {
                    offset += 1
                }
            } else {
                break
            }
        }
        guard offset < bytes.count else { throw .truncated("ends before the \(what)") }
        var value = 0
        var digits = 0
        while offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) {
            value = value * 10 + Int(bytes[offset] - UInt8(ascii: "0"))
            digits += 1
            offset += 1
            guard value <= 1 << 30 else { throw .corrupt("\(what) is too big") }
        }
        guard digits > 0 else { throw .corrupt("\(what) is not a number") }
        return value
    }

    private func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C
    }
}
