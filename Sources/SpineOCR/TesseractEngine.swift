import CLazyLibraries
import CTesseract
import Foundation
import WorkerPools
import Imaging

/// A pixel rectangle, `x0..<x1` × `y0..<y1`.
public struct Box: Sendable, Hashable, Codable {
    public var x0: Int, y0: Int, x1: Int, y1: Int
    public init(x0: Int, y0: Int, x1: Int, y1: Int) {
        self.x0 = x0; self.y0 = y0; self.x1 = x1; self.y1 = y1
    }
    public var width: Int { x1 - x0 }
    public var height: Int { y1 - y0 }
    public var area: Int { max(0, width) * max(0, height) }
    public var centerX: Double { Double(x0 + x1) / 2 }
    public var centerY: Double { Double(y0 + y1) / 2 }

    public func intersection(_ other: Box) -> Int {
        max(0, min(x1, other.x1) - max(x0, other.x0)) * max(0, min(y1, other.y1) - max(y0, other.y0))
    }

    public func union(_ other: Box) -> Box {
        Box(x0: min(x0, other.x0), y0: min(y0, other.y0), x1: max(x1, other.x1), y1: max(y1, other.y1))
    }

    func scaled(by factor: Double) -> Box {
        Box(x0: Int((Double(x0) * factor).rounded(.down)), y0: Int((Double(y0) * factor).rounded(.down)),
            x1: Int((Double(x1) * factor).rounded(.up)), y1: Int((Double(y1) * factor).rounded(.up)))
    }
}

/// One word as Tesseract read it, in the coordinates of the image it was given.
public struct OCRWord: Sendable, Hashable, Codable {
    public var text: String
    /// Tesseract's word confidence, 0–100.
    public var confidence: Double
    public var box: Box
    /// Tesseract found the word in its dictionary.
    public var isDictionaryWord: Bool
    /// Index of the text line Tesseract put it on (reading order within a pass).
    public var line: Int

    public init(text: String, confidence: Double, box: Box, isDictionaryWord: Bool, line: Int) {
        self.text = text
        self.confidence = confidence
        self.box = box
        self.isDictionaryWord = isDictionaryWord
        self.line = line
    }
}

/// One TessBaseAPI behind a safe type. Not thread-safe: one engine per worker thread
/// (the reader's pool hands each pass its own).
public final class TesseractEngine {
    private let handle: OpaquePointer
    public let languages: String
    private let defaultMode: Int

    /// Loads the language data; a missing traineddata file is an error naming its package.
    public init(options: TesseractOptions) throws(TesseractError) {
        let folder = try LanguageData.folder(for: options.languages, explicit: options.dataPath)
        // libtesseract is opened on first use (CLazyLibraries), not at every command's start.
        if let reason = rs_tesseract_load() { throw .libraryUnavailable(reason: String(cString: reason)) }
        guard let api = TessBaseAPICreate() else {
            throw .initializationFailed(language: options.languageArgument, dataPath: folder)
        }
        // Tesseract's own diagnostics go nowhere; errors come back as values.
        _ = TessBaseAPISetVariable(api, "debug_file", "/dev/null")
        let status = TessBaseAPIInit2(api, folder, options.languageArgument, OEM_LSTM_ONLY)
        guard status == 0 else {
            TessBaseAPIDelete(api)
            throw .initializationFailed(language: options.languageArgument, dataPath: folder)
        }
        let mode = TessPageSegMode(rawValue: UInt32(clamping: max(0, min(13, options.pageSegmentationMode))))
        TessBaseAPISetPageSegMode(api, mode)
        defaultMode = options.pageSegmentationMode
        for (name, value) in options.variables.sorted(by: { $0.key < $1.key }) {
            _ = TessBaseAPISetVariable(api, name, value)
        }
        handle = api
        languages = options.languageArgument
    }

    deinit {
        TessBaseAPIEnd(handle)
        TessBaseAPIDelete(handle)
    }

    /// Words with boxes and confidences; nil when Tesseract reports a failure. With a
    /// deadline, a pass cut short returns the words finished by then. `deadlineMilliseconds`
    /// is wall time; `cpuMilliseconds` is this thread's CPU time, which a busy machine stretches
    /// far less.
    public func words(in image: GrayImage, deadlineMilliseconds: Int = 0, cpuMilliseconds: Int = 0,
                      pageSegmentationMode: Int? = nil) -> [OCRWord]? {
        guard image.width > 0, image.height > 0 else { return [] }
        TessBaseAPISetPageSegMode(handle, TessPageSegMode(rawValue: UInt32(clamping: max(0, min(13, pageSegmentationMode ?? defaultMode)))))
        return image.pixels.withUnsafeBufferPointer { buffer -> [OCRWord]? in
            TessBaseAPISetImage(handle, buffer.baseAddress, Int32(image.width), Int32(image.height), 1,
                                Int32(image.width))
            // No resolution in a gray buffer; 300 dpi keeps Tesseract's size heuristics sane.
            TessBaseAPISetSourceResolution(handle, 300)
            defer { TessBaseAPIClear(handle) }
            let monitor = TessMonitorCreate()
            defer { TessMonitorDelete(monitor) }
            if deadlineMilliseconds > 0 { TessMonitorSetDeadlineMSecs(monitor, Int32(deadlineMilliseconds)) }
            // Tesseract asks the cancel function after each word, on this thread.
            var cpuDeadline = ThreadCPUClock.nanoseconds() + UInt64(max(0, cpuMilliseconds)) * 1_000_000
            if cpuMilliseconds > 0 {
                TessMonitorSetCancelFunc(monitor) { deadline, _ in
                    guard let deadline else { return false }
                    return ThreadCPUClock.nanoseconds() > deadline.load(as: UInt64.self)
                }
            }
            OpenMP.serializeOnThisThread()
            let status = withUnsafeMutablePointer(to: &cpuDeadline) { deadline in
                if cpuMilliseconds > 0 { TessMonitorSetCancelThis(monitor, deadline) }
                return TessBaseAPIRecognize(handle, monitor)
            }
            guard status == 0 else {
                // Past a deadline Tesseract stops and reports failure, but the words it
                // finished are kept: a cut pass is bounded work, not an error.
                return deadlineMilliseconds > 0 || cpuMilliseconds > 0 ? collectWords() : nil
            }
            return collectWords()
        }
    }

    /// Sets one of Tesseract's variables for the passes after this call (`tessedit_char_whitelist`:
    /// one engine reading digits only, then any text); false when Tesseract has no such variable.
    @discardableResult
    public func setVariable(_ name: String, _ value: String) -> Bool {
        TessBaseAPISetVariable(handle, name, value) != 0
    }

    /// A word of four letters or more that Tesseract's dictionary knows (punctuation aside).
    /// The LSTM recogniser's own "from dictionary" flag is set on nearly every word, junk
    /// included, and its dictionary accepts most 2–3 letter strings, so neither tells junk apart.
    public func isDictionaryWord(_ text: String) -> Bool {
        let letters = String(text.filter(\.isLetter))
        return letters.count >= 4 && TessBaseAPIIsValidWord(handle, letters) != 0
    }

    private func collectWords() -> [OCRWord] {
        guard let iterator = TessBaseAPIGetIterator(handle) else { return [] }
        defer { TessResultIteratorDelete(iterator) }
        let page = TessResultIteratorGetPageIteratorConst(iterator)
        var words: [OCRWord] = []
        var line = -1
        repeat {
            if TessPageIteratorIsAtBeginningOf(page, RIL_TEXTLINE) != 0 { line += 1 }
            guard let raw = TessResultIteratorGetUTF8Text(iterator, RIL_WORD) else { continue }
            let text = String(cString: raw).trimmingCharacters(in: .whitespacesAndNewlines)
            TessDeleteText(raw)
            var left: Int32 = 0, top: Int32 = 0, right: Int32 = 0, bottom: Int32 = 0
            guard !text.isEmpty,
                  TessPageIteratorBoundingBox(page, RIL_WORD, &left, &top, &right, &bottom) != 0 else { continue }
            words.append(OCRWord(
                text: text, confidence: Double(TessResultIteratorConfidence(iterator, RIL_WORD)),
                box: Box(x0: Int(left), y0: Int(top), x1: Int(right), y1: Int(bottom)),
                isDictionaryWord: isDictionaryWord(text),
                line: max(0, line)))
        } while TessResultIteratorNext(iterator, RIL_WORD) != 0
        return words
    }
}

/// Debian's libtesseract is built with OpenMP and asks for several threads per LSTM step;
/// beside rapidscan's own one-pass-per-core parallelism that oversubscribes the cores and
/// spins (measured here: 4× slower, most of it system time). OMP_THREAD_LIMIT only works when
/// set before the process starts, so each worker thread turns nested OpenMP teams off for
/// itself (`omp_set_max_active_levels(0)`: libgomp keeps it per thread), looked up in the
/// already loaded libgomp.
enum OpenMP {
    private typealias SetLevels = @convention(c) (Int32) -> Void
    /// Looked up in libgomp itself when the global scope lacks it: libtesseract (and libgomp
    /// with it) is opened with `dlopen` on first use (CLazyLibraries), whose symbols the global
    /// lookup does not see; without it Tesseract's OpenMP threads spun beside every pass (a third
    /// of `decode`'s CPU on small photos).
    private static let setMaxActiveLevels: SetLevels? = {
        let name = "omp_set_max_active_levels"
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name)
            ?? dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD).flatMap({ dlsym($0, name) }) else { return nil }
        return unsafeBitCast(symbol, to: SetLevels.self)
    }()

    /// Whether the serialising call was found (after an engine opened libtesseract).
    static var canSerialize: Bool { setMaxActiveLevels != nil }

    static func serializeOnThisThread() {
        setMaxActiveLevels?(0)
    }
}
