import BookMetadata
import Foundation
import Vision

/// The local OCR provider behind the `SpineReader` seam: Tesseract reads the spines, the
/// matcher decides what they are. Readings carry the spine's words in reading order; OCR
/// cannot tell a title from an author, so `title` and `author` stay nil.
public struct TesseractSpineReader: SpineReader {
    public let ocr: ShelfOCR

    /// Fails at once when a language's traineddata is missing (the error names the package).
    public init(options: TesseractOptions = TesseractOptions()) throws(TesseractError) {
        ocr = try ShelfOCR(options: options)
    }

    /// Changes when PP-OCR's readings do (a cached reply keeps the readings it was made with):
    /// `+ppocr2` reads lines at the working image's size, one at a time, and keeps stacked
    /// Chinese titles; `+ppocr3` also reads the photo turned clockwise where no sure line was read;
    /// `+strips` the spine strips where a line but no sure one was read, each read on its own;
    /// `+apart` (stop 44) lines printed opposite ways never one reading, an imprint's name kept
    /// inside a title: a reply cached before that is read again. `+yield` (stop 45, with or without
    /// PP-OCR): a wide reading over spines read apart inside it no longer keeps them as its alternatives;
    /// with PP-OCR's strips, a strip whose sure lines cover under a third of it is read again too.
    public var identity: String {
        let options = ocr.options
        return "tesseract:\(options.languageArgument):psm\(options.pageSegmentationMode):"
            + options.rotations.map { String($0.degrees) }.joined(separator: ",") + "+yield"
            + (ocr.sceneText.map { "+apart" + ($0.readsUnreadTurned ? "+ppocr3" : "+ppocr2") + ($0.unreadStripLimit > 0 ? "+strips" : "") } ?? "")
    }

    public func readSpines(in photo: ShelfPhoto) async throws -> ShelfReading {
        let ocr = self.ocr
        // Recognition is seconds of CPU on worker threads, off the cooperative pool.
        let shelf = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<OCRShelf, Error>) in
            DispatchQueue.global(qos: .userInitiated).async {
                do { continuation.resume(returning: try ocr.read(data: photo.data, name: photo.path)) } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        return ShelfReading(readings: Self.readings(from: shelf))
    }

    static func readings(from shelf: OCRShelf) -> [SpineReading] {
        readings(of: shelf.spines, photoWidth: shelf.workingWidth, photoHeight: shelf.workingHeight)
    }

    /// One reading per spine, its other readings as alternatives; with the photo's (working)
    /// size, each with its box, turned the way the spine was read.
    public static func readings(of spines: [OCRSpine], photoWidth: Int = 0, photoHeight: Int = 0) -> [SpineReading] {
        spines.enumerated().map { index, spine in
            // An unsure reading's confidence is halved under the matcher's floor: never strong.
            SpineReading(text: spine.text, position: index, confidence: (spine.confidence / 100 * (spine.isUnsure ? 0.5 : 1)).clamped01,
                         alternatives: spine.alternatives, box: box(of: spine, photoWidth: photoWidth, photoHeight: photoHeight))
        }
    }

    /// The spine's box in the working image, its corners in the order its text was read.
    static func box(of spine: OCRSpine, photoWidth: Int, photoHeight: Int) -> SpineBox? {
        let direction: SpineBox.Direction = switch spine.rotation {
        case .none: .across
        case .clockwise270: .down
        case .clockwise90: .up
        }
        return SpineBox(width: photoWidth, height: photoHeight, x0: Double(spine.box.x0), y0: Double(spine.box.y0),
                        x1: Double(spine.box.x1), y1: Double(spine.box.y1), direction: direction)
    }
}

/// `[vision] provider = "tesseract"` and its settings, as the `spines` command hands them over.
public struct TesseractProviderSettings: Sendable, Hashable {
    public var languages: [String]
    public var pageSegmentationMode: Int?
    public var rotations: [Int]?
    public var dataPath: String?
    /// `[vision] ppocr`: "auto" (nil too), "off", or PP-OCR's interpreter.
    public var ppocr: String?
    /// `[vision] ppocrTurned`: PP-OCR also reads the photo turned 90° clockwise where no sure line was read.
    public var ppocrTurned: Bool
    /// `[vision] ppocrStrips`: PP-OCR also reads, each on its own, the spine strips where it read a line but no sure one.
    public var ppocrStrips: Bool
    /// Where `RAPIDSCAN_PPOCR_PYTHON` is looked up; it wins over `ppocr`.
    public var environment: [String: String]

    public init(languages: [String] = ["eng"], pageSegmentationMode: Int? = nil, rotations: [Int]? = nil,
                dataPath: String? = nil, ppocr: String? = nil, ppocrTurned: Bool = false, ppocrStrips: Bool = false,
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.languages = languages
        self.pageSegmentationMode = pageSegmentationMode
        self.rotations = rotations
        self.dataPath = dataPath
        self.ppocr = ppocr
        self.ppocrTurned = ppocrTurned
        self.ppocrStrips = ppocrStrips
        self.environment = environment
    }
}

public enum TesseractProvider {
    /// The provider name in `[vision] provider`; also the default when no endpoint is configured.
    public static let name = "tesseract"

    /// Whether `spines` should use Tesseract: asked for by name, or no endpoint configured.
    public static func isSelected(provider: String?, baseURL: String?) -> Bool {
        if let provider, !provider.isEmpty { return provider.lowercased() == name }
        return baseURL?.isEmpty ?? true
    }

    /// The reader for these settings; rotations other than 0, 90, 270 are a configuration error.
    public static func makeReader(_ settings: TesseractProviderSettings) throws(TesseractProviderError) -> TesseractSpineReader {
        var options = TesseractOptions(languages: settings.languages.isEmpty ? ["eng"] : settings.languages,
                                       dataPath: settings.dataPath)
        if let mode = settings.pageSegmentationMode {
            guard (0...13).contains(mode) else { throw .invalidPageSegmentationMode(mode) }
            options.pageSegmentationMode = mode
        }
        if let degrees = settings.rotations {
            options.rotations = try degrees.map { (value: Int) throws(TesseractProviderError) -> SpineRotation in
                guard let rotation = SpineRotation(rawValue: ((value % 360) + 360) % 360) else {
                    throw .invalidRotation(value)
                }
                return rotation
            }
        }
        // PP-OCR when installed (scripts/setup) or named; one found but broken is skipped unless named.
        let named = SceneTextReader.namedPython(environment: settings.environment, configured: settings.ppocr) != nil
        options.sceneTextPython = SceneTextReader.locatePython(environment: settings.environment, configured: settings.ppocr)
        options.sceneTextReadsUnreadTurned = settings.ppocrTurned
        options.sceneTextUnreadStripLimit = settings.ppocrStrips ? TesseractOptions.unreadStripLimitByDefault : 0
        do { return try TesseractSpineReader(options: options) } catch {
            guard case .sceneTextUnavailable = error, !named else { throw .tesseract(error) }
            options.sceneTextPython = nil
            do { return try TesseractSpineReader(options: options) } catch { throw .tesseract(error) }
        }
    }
}

public enum TesseractProviderError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidPageSegmentationMode(Int)
    case invalidRotation(Int)
    case tesseract(TesseractError)

    public var description: String {
        switch self {
        case .invalidPageSegmentationMode(let mode):
            "[vision] psm = \(mode): Tesseract page segmentation modes are 0 to 13 (11 reads sparse spine text)"
        case .invalidRotation(let degrees):
            "[vision] rotations: \(degrees)° is not one of 0, 90, 270"
        case .tesseract(let error):
            error.description
        }
    }
}

extension Double {
    fileprivate var clamped01: Double { Swift.max(0, Swift.min(1, self)) }
}
