import Foundation
import Imaging

/// A second reader the file and frame pipelines ask after the bars were read (the printed
/// ISBN and the digits under the bars: `PrintedISBN`). One per worker thread, like the
/// scanner: it need not be thread-safe.
public protocol ScanFollowUp: AnyObject {
    /// `result` as the bars gave it, changed by what the printed text says. `image` gives the
    /// photo's pixels turned upright (the coordinates of `result`'s boxes), decoded on first
    /// use: a follow-up with nothing to do costs no decode.
    func followUp(_ result: FileScanResult, image: () -> GrayImage?) -> FileScanResult
}

/// Makes one follow-up per worker; nil when it cannot start (its reader is then skipped).
public typealias ScanFollowUpFactory = @Sendable () -> (any ScanFollowUp)?

extension ScanFollowUp {
    /// The follow-up for a file `FileScanner` read, its pixels decoded again only if asked for.
    public func followUp(_ result: FileScanResult, fileAt url: URL, options: ScanOptions) -> FileScanResult {
        followUp(result) {
            let load = ImageLoadOptions(maxPixels: options.maxPixels, applyOrientation: true, rawFormat: options.rawFormat)
            return try? ImageLoader.load(contentsOf: url, options: load).image
        }
    }
}
