/// JPEG DCT scaling: libjpeg decodes straight to 1/2, 1/4 or 1/8 of the stored size,
/// skipping most of the inverse DCT work.
public enum JPEGScale: Int, Sendable, Hashable, CaseIterable {
    case full = 1, half = 2, quarter = 4, eighth = 8
}

/// A headerless frame as a capture tool writes it; the size must come from the caller.
public enum RawFrameFormat: Sendable, Hashable {
    /// 8-bit luma only (V4L2 `GREY`, fourcc `Y800`).
    case y800(width: Int, height: Int)
    /// Packed 4:2:2, `Y0 U Y1 V` (V4L2 `YUYV`); only the luma is kept.
    case yuyv(width: Int, height: Int)

    public var width: Int {
        switch self { case .y800(let width, _), .yuyv(let width, _): width }
    }

    public var height: Int {
        switch self { case .y800(_, let height), .yuyv(_, let height): height }
    }

    public var bytesPerPixel: Int {
        switch self { case .y800: 1; case .yuyv: 2 }
    }

    public var name: String {
        switch self { case .y800: "Y800"; case .yuyv: "YUYV" }
    }

    /// The exact file size a frame of this format has.
    public var frameByteCount: Int { width * height * bytesPerPixel }
}

public struct ImageLoadOptions: Sendable, Hashable {
    /// Images with more stored pixels than this are refused before any pixel is decoded.
    public var maxPixels: Int
    /// DCT scaling for JPEG; other formats are always decoded at full size.
    public var jpegScale: JPEGScale
    /// When set, a JPEG is decoded at the first DCT scale from `jpegScale` down to 1/8
    /// whose output has at most this many pixels (e.g. 3_000_000 for a fast first pass
    /// over phone photos, without reading the header separately).
    public var jpegTargetPixels: Int?
    /// When set, a JPEG is decoded at `jpegScale`, or finer (up to 1/1) while that scale
    /// would leave its long side (⌊side / scale⌋) shorter than this: one decode at the
    /// coarsest scale that keeps enough detail, without reading the header separately.
    /// Applied before `jpegTargetPixels`.
    public var jpegMinimumLongSide: Int?
    /// Turn JPEG, WebP and HEIF images as their EXIF orientation says (HEIF's own
    /// irot/imir transforms are always applied: they are the image's geometry).
    public var applyOrientation: Bool
    /// How to read headerless frames (.yuv, .y800, .grey, .gray, .raw files).
    public var rawFormat: RawFrameFormat?
    /// libjpeg's fast integer DCT: a little faster at full scale, barely less exact.
    public var fastJPEGDecoding: Bool

    public init(maxPixels: Int = 100_000_000, jpegScale: JPEGScale = .full,
                applyOrientation: Bool = true, rawFormat: RawFrameFormat? = nil,
                fastJPEGDecoding: Bool = false, jpegTargetPixels: Int? = nil, jpegMinimumLongSide: Int? = nil) {
        self.maxPixels = maxPixels
        self.jpegScale = jpegScale
        self.jpegTargetPixels = jpegTargetPixels
        self.jpegMinimumLongSide = jpegMinimumLongSide
        self.applyOrientation = applyOrientation
        self.rawFormat = rawFormat
        self.fastJPEGDecoding = fastJPEGDecoding
    }
}

public enum ImageFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case png = "PNG", jpeg = "JPEG", pgm = "PGM", ppm = "PPM", raw = "raw", webp = "WebP"
    /// HEIC, AVIF and other HEIF containers (libheif).
    case heif = "HEIF"

    public var description: String { rawValue }
}

public struct LoadedImage: Sendable {
    /// Gray pixels, scaled and turned upright as the options asked.
    public var image: GrayImage
    public var format: ImageFormat
    /// Size stored in the file, before scaling and orientation.
    public var originalWidth: Int
    public var originalHeight: Int
    /// EXIF orientation found in the file (1…8), 1 when none; already applied to `image`
    /// when `applyOrientation` was set.
    public var exifOrientation: Int
    /// Codec warnings that did not stop the decode (e.g. extraneous bytes before a marker).
    public var warnings: [String]
    /// The DCT scale the JPEG was decoded at (`.full` for other formats).
    public var scale: JPEGScale
    /// True once `exifOrientation` has been applied to `image` (`applyOrientation`).
    public internal(set) var orientationApplied = false

    public init(image: GrayImage, format: ImageFormat, originalWidth: Int, originalHeight: Int,
                exifOrientation: Int = 1, warnings: [String] = [], scale: JPEGScale = .full) {
        self.scale = scale
        self.image = image
        self.format = format
        self.originalWidth = originalWidth
        self.originalHeight = originalHeight
        self.exifOrientation = exifOrientation
        self.warnings = warnings
    }
}
