/// Headerless frames: Y800 is the luma plane itself, YUYV interleaves luma with chroma.
enum RawFrameDecoder {
    static let fileExtensions: Set<String> = ["yuv", "y800", "grey", "gray", "raw", "yuyv"]

    static func decode(_ bytes: UnsafeRawBufferPointer, format: RawFrameFormat, file: String,
                       maxPixels: Int) throws(ImageError) -> GrayImage {
        let (width, height) = (format.width, format.height)
        guard width > 0, height > 0, bytes.count == format.frameByteCount else {
            throw .rawSizeMismatch(file: file, format: format, byteCount: bytes.count)
        }
        guard width * height <= maxPixels else {
            throw .tooLarge(file: file, width: width, height: height, maxPixels: maxPixels)
        }
        let pixels: [UInt8] = switch format {
        case .y800: Array(bytes)
        case .yuyv: (0..<width * height).map { bytes[2 * $0] }
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }
}
