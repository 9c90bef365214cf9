import BarcodeReading
import BookCodes
import Foundation
import ImageTestSupport
import Imaging
import TestSupport

/// Real book-back photos (../shared/images/barcodes) with their bars painted out, and with
/// the digit line under them painted out too: what a printed-ISBN reader must still read.
enum PaintedBookBacks {
    enum Paint { case bars, barsAndDigits, everything }

    /// The photo with the code zbar finds painted paper-white: its bars (down to where the
    /// digits start), its bars and the digit line, or the whole neighbourhood (ISBN line too).
    static func painted(_ relative: String, _ paint: Paint) throws -> GrayImage {
        let url = try SharedFiles.requireImage(relative)
        let image = try ImageLoader.load(contentsOf: url).image
        let scan = try FileScanner(options: ScanOptions(effort: .thorough)).scan(fileAt: url)
        guard let code = scan.codes.first else { throw PaintError.noCode(relative) }
        let b = code.bounds
        // zbar's box spans the scan lines that decoded, inside the bars; the bars run a little
        // past it, and the digit line sits under them, about a tenth of the code's width high.
        let x0 = b.x - b.width / 8, x1 = b.maxX + b.width / 8
        let (y0, y1): (Int, Int) = switch paint {
        case .bars: (b.y - b.height / 4, b.maxY + b.width / 50)
        case .barsAndDigits: (b.y - b.height / 4, b.maxY + b.width / 6)
        case .everything: (b.y - b.height, b.maxY + b.width / 5)
        }
        return filled(image, x0: x0, y0: y0, x1: x1, y1: y1, value: paperWhite(image, around: b))
    }

    /// zxing-ean13-3/10.png (240×240) with its bars under a white sticker, brighter than the
    /// paper it covers (`PrintedISBNCLITests` paints the same rectangle): its "ISBN 0-596-00857-0"
    /// line, x 31–199, y 79–90, stands just above the sticker's edge.
    static func stickered() throws -> GrayImage {
        let image = try ImageLoader.load(contentsOf: try SharedFiles.requireImage("barcodes/zxing-ean13-3/10.png")).image
        return filled(image, x0: 28, y0: 90, x1: 205, y1: 171, value: 235)
    }

    /// The brightest tenth of the code's neighbourhood: the paper it is printed on.
    static func paperWhite(_ image: GrayImage, around b: BoundingBox) -> UInt8 {
        var values: [UInt8] = []
        for y in max(0, b.y)..<min(image.height, b.maxY) { for x in max(0, b.x)..<min(image.width, b.maxX) {
            values.append(image.pixels[y * image.width + x])
        } }
        values.sort()
        return values.isEmpty ? 255 : values[values.count * 9 / 10]
    }

    static func filled(_ image: GrayImage, x0: Int, y0: Int, x1: Int, y1: Int, value: UInt8) -> GrayImage {
        var pixels = image.pixels
        for y in max(0, y0)..<min(image.height, max(y0, y1)) {
            for x in max(0, x0)..<min(image.width, max(x0, x1)) { pixels[y * image.width + x] = value }
        }
        return GrayImage(width: image.width, height: image.height, pixels: pixels)
    }

    enum PaintError: Error { case noCode(String) }
}
