import Foundation
import Imaging

/// How the photo is turned before Tesseract reads it (clockwise, as a viewer turns it).
/// Spines read top-to-bottom (US/UK) become upright when turned 270°; bottom-to-top
/// (continental Europe) when turned 90°; 0° reads books lying flat.
public enum SpineRotation: Int, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case none = 0, clockwise90 = 90, clockwise270 = 270

    public var degrees: Int { rawValue }
    public var description: String { "\(rawValue)°" }

    var imagingRotation: Rotation {
        switch self {
        case .none: .none
        case .clockwise90: .clockwise90
        case .clockwise270: .counterclockwise90
        }
    }
}

/// Everything the Tesseract provider can be told (`[vision]` with `provider = "tesseract"`).
public struct TesseractOptions: Sendable, Hashable {
    /// Traineddata names, joined with '+' for Tesseract (`["eng", "spa"]`).
    public var languages: [String]
    /// Tesseract page segmentation mode; 11 (sparse text) finds words scattered over spines.
    public var pageSegmentationMode: Int
    /// Which turns of the photo are read; each is one Tesseract pass.
    public var rotations: [SpineRotation]
    /// A folder holding `<language>.traineddata`; nil searches TESSDATA_PREFIX and Debian's folders.
    public var dataPath: String?
    /// Photos with more stored pixels are refused before decoding (Imaging's limit).
    public var maxPixels: Int
    /// The pixel count the photo is scaled to before OCR (5 MP: a 12 MP shelf photo at 0.65,
    /// a 960×720 one at 2.5): spine text then lands near the 20–40 px height Tesseract reads
    /// best, and the work per photo is bounded whatever the camera.
    public var workingPixels: Int
    /// The long side is never scaled beyond this.
    public var workingLongSide: Int
    /// Shortest side a photo may have.
    public var minimumSide: Int
    /// Words under this confidence (0–100) are dropped unless they are dictionary words.
    public var minimumWordConfidence: Double
    /// Readings whose mean word confidence is under this are dropped (upside-down garbage).
    public var minimumReadingConfidence: Double
    /// Tesseract passes run at once (one TessBaseAPI each); 0 means one per core.
    public var workers: Int
    /// Each whole-photo pass is cut after this many milliseconds of its thread's CPU time (0: no
    /// limit; a strip pass gets half), keeping the words read by then: a 5 MP spine turn takes
    /// 0.4–2.7 s on real shelves, the flat pass 0.3–0.9 s, but 6.5 s on a library photo full of
    /// call-number labels. CPU time, not wall time, which a busy machine stretches far more.
    public var deadlineMilliseconds: Int
    /// Extra scales (pixel counts under the working size) at which the spine rotations are read
    /// again: one spine reads at one scale, its neighbour at another. With strips read on their
    /// own (below), 2 MP added nothing on real shelves and 1 MP two spines (of 158 Latin-script)
    /// for 1.1 s CPU per photo.
    public var extraScalePixels: [Int] = [1_000_000]
    /// The 0° pass (books lying flat) reads the photo at this many pixels (0: the working size).
    /// 2 MP saves a fifth of the CPU on real shelves (most on call-number-heavy library photos)
    /// but lost two of four flat books there, so the working size stays the default.
    public var flatScalePixels: Int = 0
    /// Scales (0: the working size) at which the spine rotations are read as a negative.
    public var invertedScalePixels: [Int] = []
    /// Spine strips found in the pixels (SpineStrips) are each read on their own as well.
    public var readsStrips = true
    /// How each strip is read: page segmentation mode, the width across the spine it is scaled
    /// to and who binarises it; each variant is one more Tesseract call per strip and direction.
    /// Tesseract's global threshold and a local one read different strips (a title beside a dark
    /// logo band reads only with the local one, a faint one only with Tesseract's); on real
    /// shelves the pair found 88 of 199 spines for 2.6 s of strip CPU a photo, where PSM 11 and
    /// PSM 6 both on gray had found 86 for 3.8 s (cuts off). A third, each pixel set against
    /// its neighbourhood first (`.normalized`), reads titles beside a dark picture band that
    /// pulls Tesseract's one threshold its way ("THE OTHER SIDE OF THE ISLAND"): 107 → 111 of
    /// 199 real spines, 117 → 118 of 130 rendered, nothing wrong, for ~0.7 s more strip CPU a
    /// photo (~0.9 s rendered). Alone it reads fewer (93 real, 112 rendered). A window radius of
    /// a half to a fifth of the strip and a deviation floor of 12–40 found 110–113 alike; 60–90
    /// (too little normalising) 107–108, radius two thirds 107.
    public var stripVariants: [StripVariant] = [StripVariant(pageSegmentationMode: 11, across: 32...64),
                                                StripVariant(pageSegmentationMode: 11, across: 32...64, binarization: .sauvola),
                                                StripVariant(pageSegmentationMode: 11, across: 32...64, binarization: .normalized)]
    /// Strip sides follow a spine's lean (SpineStrips.spineStrips): a leaning spine's title,
    /// which an upright box's side would cut, stays in one strip. Off: on real shelves sides
    /// found upright and then leaned found 103 of 199 spines, sides searched along leans 96–101,
    /// upright sides 104 (most spines there lean 1–3°, which the ±1 column already allows).
    public var stripsFollowLean = false
    /// A strip no turn read a sure word from, holding a column of upright letters one under
    /// another (StackedLetters), is read once more with its letters set side by side in a line
    /// ("ERAGON", "FEARLESS": two spines on real shelves, nothing wrong).
    public var readsStackedLetters = true
    /// Such a strip without stacked letters is read as it stands (0°, `uprightStripMode`):
    /// words across a wide spine ("ONE / OF US / IS / LYING": one spine on real shelves; PSM 6
    /// read none, the photo's own 0° pass none).
    public var readsUnreadStripsUpright = true
    public var uprightStripMode = 11
    /// A strip read this confidently, with a dictionary word, is not read again (in the other
    /// direction or the next variant).
    public var stripSecondDirectionBelow: Double = 80
    /// Page-pass word groups are cut at the spine sides the strip finder sees.
    public var splitsGroupsAtStrips = true
    /// Page-pass word groups lying in one strip are joined into one reading (title, author,
    /// call number: one spine); only with `splitsGroupsAtStrips`.
    public var joinsGroupsInStrips = true
    /// Every reading is kept, even several of one place (for measuring what merging loses).
    public var keepsEveryReading = false
    /// Strips and extra-scale passes not started by the time the photo's passes have used this
    /// many milliseconds of CPU time in all are skipped (0: no limit); the whole-photo turns at
    /// the working size always run, first. 9 s: on a quiet machine the two densest real shelf
    /// photos (a library wall of call numbers, 47 spines) took 5.0–5.5 s at 10 s, 4.8–4.9 s at
    /// 9 s, the same spines found (111/199; 8 s too); under load a pass's CPU time grows as
    /// well, and 8 s once lost 6 of 93 found spines (load 10).
    public var budgetMilliseconds = 9_000
    /// A strip reading's score is weighted by this when two readings of one place compete.
    public var stripScoreWeight: Double = 1
    /// Tesseract variables set on every engine (name → value), e.g. `thresholding_method`.
    public var variables: [String: String] = [:]
    /// A Python with RapidOCR (`SceneTextReader`): PP-OCR reads the whole photo once in place of
    /// most of Tesseract's page passes, and Tesseract still reads the spine strips. nil:
    /// Tesseract alone.
    public var sceneTextPython: String?
    /// PP-OCR's tall lines read under this score are read turned 180° too (`SceneTextReader`; 0: never, the default).
    public var sceneTextTurnsBelow: Double = 0
    /// PP-OCR also reads the photo turned 90° clockwise where it read no sure line
    /// (`SceneTextReader.readsUnreadTurned`): bottom-to-top spines read upright. Off here (the
    /// benchmarks and tests that build options); `spines` sets it from `[vision] ppocrTurned`, on by default.
    public var sceneTextReadsUnreadTurned = false
    /// PP-OCR also reads, each on its own, up to this many spine strips where its passes read a
    /// line but no sure one (`SceneTextReader.unreadStripLimit`; 0: none). Off here (the benchmarks
    /// and tests that build options); `spines` sets it from `[vision] ppocrStrips`, on by default.
    public var sceneTextUnreadStripLimit = 0
    /// The cap `[vision] ppocrStrips` sets (docs/PERFORMANCE.md, stop 40).
    public static let unreadStripLimitByDefault = 16
    /// With PP-OCR, the turns Tesseract still reads at the working size (nil: all of `rotations`
    /// and the extra scales). Real shelves (OCR replayed, same matcher): PP-OCR + strips 122 of
    /// 199 spines; + Tesseract's 270° turn 128; + its 90° or 0° turn instead 122; + the two 1 MP
    /// turns 125; + every turn 128 (Tesseract alone: 120). The 270° turn is one Tesseract pass,
    /// 0.7–1.6 s of CPU a photo.
    public var tesseractRotationsWithSceneText: [SpineRotation]? = [.clockwise270]
    /// Strips holding a PP-OCR line of 6+ letters read at this confidence or more get no second
    /// round (0: every strip does). Off: on the real shelves it found 129 of 199 spines instead of
    /// 130 at 90 and 95, for 0.4–0.9 s less strip CPU a photo; skipping such strips altogether
    /// (both rounds) found 117 at 95 and 115 at 90.
    public var stripSkipSceneTextConfidence: Double = 0
    /// Strips holding a PP-OCR line this confident (6+ letters) are read after the others in each
    /// round, so a photo's CPU budget goes first to spines with no confident reading yet; 0: in order.
    public var stripOrderSceneTextConfidence: Double = 90
    /// With PP-OCR, strips it read nothing confident in get their first round (one variant, both
    /// spine directions) until the photo has used this much CPU past `budgetMilliseconds`. Off:
    /// at 3 s the checking halves found the same spines (real 64/99, rendered hard 107 vs 108/136)
    /// for 0.7 s more CPU a photo on the real ones (stop 33, load 28–35).
    public var unreadStripReserveMilliseconds = 0

    public init(languages: [String] = ["eng"], pageSegmentationMode: Int = 11,
                rotations: [SpineRotation] = [.clockwise270, .clockwise90, .none], dataPath: String? = nil,
                maxPixels: Int = 100_000_000, workingPixels: Int = 5_000_000, workingLongSide: Int = 4000, minimumSide: Int = 64,
                minimumWordConfidence: Double = 55, minimumReadingConfidence: Double = 62,
                workers: Int = 0, deadlineMilliseconds: Int = 3_000) {
        self.languages = languages
        self.pageSegmentationMode = pageSegmentationMode
        self.rotations = rotations
        self.dataPath = dataPath
        self.maxPixels = maxPixels
        self.workingPixels = workingPixels
        self.workingLongSide = workingLongSide
        self.minimumSide = minimumSide
        self.minimumWordConfidence = minimumWordConfidence
        self.minimumReadingConfidence = minimumReadingConfidence
        self.workers = workers
        self.deadlineMilliseconds = deadlineMilliseconds
    }

    public var effectiveWorkers: Int {
        workers > 0 ? workers : max(1, ProcessInfo.processInfo.activeProcessorCount)
    }

    /// Tesseract's language argument ("eng+spa").
    var languageArgument: String { languages.joined(separator: "+") }
}

/// One way of reading a spine strip.
public struct StripVariant: Sendable, Hashable {
    public var pageSegmentationMode: Int
    /// The strip is scaled so its width across the spine lies in this range (pixels).
    public var across: ClosedRange<Int>
    /// Read the negative of what the Otsu split picks (light text taken for dark, and back).
    public var opposite: Bool
    /// Who turns the strip black and white.
    public var binarization: StripBinarization
    public init(pageSegmentationMode: Int, across: ClosedRange<Int>, opposite: Bool = false,
                binarization: StripBinarization = .tesseract) {
        self.pageSegmentationMode = pageSegmentationMode
        self.across = across
        self.opposite = opposite
        self.binarization = binarization
    }
}

/// How a strip's gray pixels become ink and paper.
public enum StripBinarization: Sendable, Hashable {
    /// Tesseract's own global (Otsu) threshold of the gray strip.
    case tesseract
    /// A local (Sauvola) threshold here, with the dark sides along the strip cleared: text
    /// beside a dark logo or band, which one global threshold loses, stays readable.
    case sauvola
    /// Each pixel set against its neighbourhood (`contrastNormalized`) before Tesseract's own
    /// threshold: a title beside a dark picture band, which pulls one global threshold its way.
    case normalized
}
