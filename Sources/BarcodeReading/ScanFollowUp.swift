import Foundation
import Imaging

/// A second reader the file and frame pipelines ask after the bars were read (the printed
/// ISBN and the digits under the bars: `PrintedISBN`). One per worker thread, like the
/// scanner: it need not be thread-safe.
public protocol ScanFollowUp: AnyObject {
    /// `result` as the bars gave it, changed by what the printed text says. `pixels` gives the
    /// photo turned upright (the coordinates of `result`'s boxes), each form made on first use:
    /// a follow-up with nothing to do costs no decode and no copy.
    func followUp(_ result: FileScanResult, pixels: FollowUpPixels) -> FileScanResult
}

/// The photo as a follow-up may ask for it, upright: the full pixels, and the reduced copy the
/// scanner already made of a large photo (its first scan's, 1/2 or 1/4), so that a look that
/// needs no more (the printed ISBN's gate) neither reduces 12 MP again nor turns them upright.
public struct FollowUpPixels {
    private let makeFull: () -> GrayImage?
    private let makeReduced: () -> (image: GrayImage, factor: Int)?

    /// `reduced`: a copy `factor` times smaller on each side than `full` (nil: none made).
    public init(full: @escaping () -> GrayImage?, reduced: @escaping () -> (image: GrayImage, factor: Int)? = { nil }) {
        makeFull = full
        makeReduced = reduced
    }

    /// The full pixels.
    public func full() -> GrayImage? { makeFull() }
    /// The scanner's reduced copy and its factor, if it made one.
    public func reduced() -> (image: GrayImage, factor: Int)? { makeReduced() }
}

/// Makes one follow-up per worker; nil when it cannot start (its reader is then skipped).
public typealias ScanFollowUpFactory = @Sendable () -> (any ScanFollowUp)?

extension ScanFollowUp {
    /// The follow-up given the full pixels only.
    public func followUp(_ result: FileScanResult, image: @escaping () -> GrayImage?) -> FileScanResult {
        followUp(result, pixels: FollowUpPixels(full: image))
    }

    /// The follow-up for a file `FileScanner` read, its pixels decoded again only if asked for.
    public func followUp(_ result: FileScanResult, fileAt url: URL, options: ScanOptions) -> FileScanResult {
        followUp(result) {
            let load = ImageLoadOptions(maxPixels: options.maxPixels, applyOrientation: true, rawFormat: options.rawFormat)
            return try? ImageLoader.load(contentsOf: url, options: load).image
        }
    }
}
