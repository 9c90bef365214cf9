import CImageCodecs
import Foundation

/// Turns image files (or bytes) into upright 8-bit gray images.
public enum ImageLoader {
    /// Extensions of the files `load` decodes (matched case-insensitively).
    public static let imageExtensions: Set<String> = [
        "png", "jpg", "jpeg", "jpe", "jfif", "pgm", "ppm", "pnm", "webp", "heic", "heif", "hif", "avif",
    ]
    /// Image formats a photo folder may hold that rapidscan does not read: a folder walk
    /// takes them too, so that each is reported by name instead of skipped without a word.
    public static let unreadableImageExtensions: Set<String> = [
        "gif", "bmp", "tif", "tiff", "jp2", "j2k", "jxl", "psd", "pbm", "pam",
        "dng", "cr2", "cr3", "crw", "nef", "nrw", "arw", "raf", "orf", "rw2", "pef", "srw",
    ]
    /// Extensions of headerless frames; readable only with `ImageLoadOptions.rawFormat`.
    public static let rawFrameExtensions: Set<String> = RawFrameDecoder.fileExtensions

    /// Whether the file's extension names a format rapidscan reads (raw frames excluded:
    /// they need a size, see `isSupportedImage(_:rawFormat:)`).
    public static func isSupportedImage(_ url: URL) -> Bool {
        imageExtensions.contains(url.pathExtension.lowercased())
    }

    /// As `isSupportedImage(_:)`, counting raw frame files too when a raw format is given.
    public static func isSupportedImage(_ url: URL, rawFormat: RawFrameFormat?) -> Bool {
        isSupportedImage(url) || (rawFormat != nil && rawFrameExtensions.contains(url.pathExtension.lowercased()))
    }

    /// Whether a folder walk should hand this file to `load`: every image it reads, and the
    /// image formats it does not (so the user is told which photos were not read).
    public static func isImageFile(_ url: URL, rawFormat: RawFrameFormat?) -> Bool {
        isSupportedImage(url, rawFormat: rawFormat) || unreadableImageExtensions.contains(url.pathExtension.lowercased())
    }

    /// Large images are decoded into fresh 12 MB buffers (a 12 MP photo), which glibc
    /// serves with mmap and unmaps on free: every photo page-faulted its buffers in again,
    /// ~20 ms of CPU per photo. Once this has run, freed buffers stay in the heap for the
    /// next photo (trimmed past 64 MB free). Process-wide, set by the first decode (every
    /// reader — scan, watch, spines — decodes through here); true when the C library took it.
    static let largeBuffersStayInTheHeap: Bool = rs_keep_large_buffers_in_heap() == 1

    /// Reads and decodes a file; errors name the file as the URL gives it (relative paths stay relative).
    public static func load(contentsOf url: URL, options: ImageLoadOptions = .init()) throws(ImageError) -> LoadedImage {
        let name = url.isFileURL ? url.relativePath : url.absoluteString
        let bytes = try FileContents.bytes(atPath: url.path, name: name)
        return try bytes.withUnsafeBytes { buffer in
            decode(buffer, name: name, options: options)
        }.get()
    }

    /// Decodes bytes already in memory; `name` is used in errors and for raw-frame extensions.
    public static func load(data: Data, name: String, options: ImageLoadOptions = .init()) throws(ImageError) -> LoadedImage {
        guard !data.isEmpty else { throw .emptyFile(file: name) }
        return try data.withUnsafeBytes { buffer in
            decode(buffer, name: name, options: options)
        }.get()
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, name: String, options: ImageLoadOptions) -> Result<LoadedImage, ImageError> {
        _ = largeBuffersStayInTheHeap
        return Result { () throws(ImageError) -> LoadedImage in
            var loaded = try decodeStored(bytes, name: name, options: options)
            if options.applyOrientation, loaded.exifOrientation != 1 {
                loaded.image = loaded.image.applyingEXIFOrientation(loaded.exifOrientation)
                loaded.orientationApplied = true
            }
            return loaded
        }
    }

    private static func decodeStored(_ bytes: UnsafeRawBufferPointer, name: String, options: ImageLoadOptions) throws(ImageError) -> LoadedImage {
        let isRawFile = rawFrameExtensions.contains((name as NSString).pathExtension.lowercased())
        if isRawFile, let rawFormat = options.rawFormat {
            return try decodeRaw(bytes, format: rawFormat, name: name, options: options)
        }
        switch ImageSignature.detect(bytes) {
        case .decodable(.png):
            return try native(NativeCodecs.decodePNG(bytes, maxPixels: options.maxPixels), format: .png, name: name, options: options)
        case .decodable(.jpeg):
            // Threads share one decode-memory budget; the codec refuses what no budget could hold.
            let jpeg = NativeCodecs.jpegOptions(scale: options.jpegScale, minimumLongSide: options.jpegMinimumLongSide,
                                                targetPixels: options.jpegTargetPixels, maxPixels: options.maxPixels,
                                                fast: options.fastJPEGDecoding)
            let plan = NativeCodecs.planJPEG(bytes, options: jpeg)
            let decoded = DecodeMemoryBudget.shared.withReservation(plan.memory) {
                NativeCodecs.decodeJPEG(bytes, options: jpeg, plan: plan)
            }
            return try native(decoded, format: .jpeg, name: name, options: options)
        case .decodable(.webp):
            return try WebPDecoder.decode(bytes, name: name, maxPixels: options.maxPixels)
        case .heif(let codec):
            return try HEIFDecoder.decode(bytes, name: name, codec: codec, maxPixels: options.maxPixels)
        case .decodable(let format) where format == .pgm || format == .ppm:
            return try decodeNetpbm(bytes, format: format, name: name, options: options)
        case .decodable:
            throw .notAnImage(file: name, start: Array(bytes.prefix(9)))
        case .unsupported(let format):
            throw .unsupportedFormat(file: name, format: format)
        case .unknown:
            if let rawFormat = options.rawFormat {
                return try decodeRaw(bytes, format: rawFormat, name: name, options: options)
            }
            if isRawFile { throw .rawFormatMissing(file: name) }
            if bytes.isEmpty { throw .emptyFile(file: name) }
            // Camera raw files have signatures of their own makers: named by their extension.
            let ext = (name as NSString).pathExtension.lowercased()
            if unreadableImageExtensions.contains(ext) { throw .unsupportedFormat(file: name, format: ext.uppercased()) }
            throw .notAnImage(file: name, start: Array(bytes.prefix(9)))
        }
    }

    private static func native(_ result: Result<NativeDecodeResult, NativeDecodeFailure>, format: ImageFormat,
                               name: String, options: ImageLoadOptions) throws(ImageError) -> LoadedImage {
        switch result {
        case .success(let decoded):
            LoadedImage(image: decoded.image, format: format,
                        originalWidth: decoded.sourceWidth, originalHeight: decoded.sourceHeight,
                        exifOrientation: decoded.exifOrientation, warnings: decoded.warnings,
                        scale: decoded.scale)
        case .failure(let failure):
            throw failure.imageError(file: name, format: format, maxPixels: options.maxPixels)
        }
    }

    private static func decodeNetpbm(_ bytes: UnsafeRawBufferPointer, format: ImageFormat, name: String,
                                     options: ImageLoadOptions) throws(ImageError) -> LoadedImage {
        do {
            let (image, _) = try NetpbmDecoder(bytes: bytes).decode(maxPixels: options.maxPixels)
            return LoadedImage(image: image, format: format, originalWidth: image.width, originalHeight: image.height)
        } catch {
            switch error {
            case .corrupt(let detail): throw .corrupt(file: name, format: format, detail: detail)
            case .truncated(let detail): throw .truncated(file: name, format: format, detail: detail)
            case .tooLarge(let width, let height):
                throw .tooLarge(file: name, width: width, height: height, maxPixels: options.maxPixels)
            }
        }
    }

    private static func decodeRaw(_ bytes: UnsafeRawBufferPointer, format: RawFrameFormat, name: String,
                                  options: ImageLoadOptions) throws(ImageError) -> LoadedImage {
        let image = try RawFrameDecoder.decode(bytes, format: format, file: name, maxPixels: options.maxPixels)
        return LoadedImage(image: image, format: .raw, originalWidth: image.width, originalHeight: image.height)
    }
}
