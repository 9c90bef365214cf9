import Foundation
import Imaging

/// A photo made ready for a model: upright (EXIF orientation applied), in colour when it is
/// a JPEG, scaled so its long side fits `maxSide`, re-encoded as JPEG (libjpeg); optionally
/// cut into overlapping tiles.
public struct PreparedImage: Sendable {
    public var jpeg: Data
    public var width: Int
    public var height: Int
    /// "2 of 3" for a tile, nil for the whole photo.
    public var tile: String?
    /// Where the image lies across the photo: its left edge and its width, in fractions of the photo's width.
    public var left = 0.0
    public var share = 1.0
}

public enum ShelfImage {
    /// Share of a tile's width it has in common with its neighbour, so a spine on a cut is whole in one tile.
    static let overlap = 0.2

    public static func prepare(_ photo: ShelfPhoto, maxSide: Int, tiles: Int = 1, quality: Int = 85) throws(VisionError) -> [PreparedImage] {
        let count = max(1, tiles)
        let (picture, gray) = try self.picture(photo, minimumLongSide: maxSide * count)
        var pieces: [(ColorImage, String?, left: Double, share: Double)] = []
        if count == 1 {
            pieces = [(picture, nil, 0, 1)]
        } else {
            // Width of each tile so that `count` tiles with `overlap` cover the photo.
            let width = picture.width
            let tileWidth = Int((Double(width) / (Double(count) - Double(count - 1) * overlap)).rounded(.up))
            let step = (width - tileWidth) / (count - 1)
            for index in 0..<count {
                let x = index == count - 1 ? width - tileWidth : index * step
                let (left, cut) = (max(0, x), min(tileWidth, width))
                pieces.append((picture.map { crop($0, x: left, width: cut) }, "\(index + 1) of \(count)",
                               Double(left) / Double(width), Double(cut) / Double(width)))
            }
        }
        return try pieces.map { piece, label, left, share throws(VisionError) in
            let scaled: ColorImage
            if gray {
                let plane = fit(piece.red, maxSide: maxSide)
                scaled = ColorImage(red: plane, green: plane, blue: plane)
            } else {
                scaled = piece.map { fit($0, maxSide: maxSide) }
            }
            do {
                let jpeg = gray ? try ImageEncoder.jpegData(scaled.red, quality: quality)
                    : try ImageEncoder.jpegData(rgb: scaled.interleaved, width: scaled.width, height: scaled.height, quality: quality)
                return PreparedImage(jpeg: jpeg, width: scaled.width, height: scaled.height, tile: label, left: left, share: share)
            } catch {
                throw .image(photo: photo.path, message: "cannot be encoded as JPEG (\(error))")
            }
        }
    }

    /// The photo upright, its long side at least `minimumLongSide` where it has that many
    /// pixels (a JPEG is decoded at the smallest DCT scale that gives it). Colour when the
    /// photo is a JPEG libjpeg can give as RGB (colour helps a model tell spine text from its
    /// background); otherwise the gray loader (`gray`: the three planes are one), which also
    /// names what is wrong with a bad file.
    public static func picture(_ photo: ShelfPhoto, minimumLongSide: Int) throws(VisionError) -> (picture: ColorImage, gray: Bool) {
        let picture: ColorImage
        let gray: Bool
        if let color = ColorJPEG.decode(photo.data, minimumLongSide: minimumLongSide) {
            picture = color
            gray = false
        } else {
            let loaded: LoadedImage
            do {
                loaded = try ImageLoader.load(data: photo.data, name: photo.path, options: ImageLoadOptions(jpegMinimumLongSide: minimumLongSide))
            } catch {
                throw .image(photo: photo.path, message: "cannot be read as an image (\(error))")
            }
            picture = ColorImage(red: loaded.image, green: loaded.image, blue: loaded.image)
            gray = true
        }
        guard picture.width > 0, picture.height > 0 else { throw .image(photo: photo.path, message: "is empty") }
        return (picture, gray)
    }

    static func crop(_ image: GrayImage, x: Int, width: Int) -> GrayImage {
        var pixels = [UInt8]()
        pixels.reserveCapacity(width * image.height)
        for y in 0..<image.height {
            let row = y * image.width + x
            pixels.append(contentsOf: image.pixels[row..<row + width])
        }
        return GrayImage(width: width, height: image.height, pixels: pixels)
    }

    /// Box-filter downscale to fit `maxSide` (never upscales).
    public static func fit(_ image: GrayImage, maxSide: Int) -> GrayImage {
        let longSide = max(image.width, image.height)
        guard longSide > maxSide, maxSide > 0 else { return image }
        let scale = Double(maxSide) / Double(longSide)
        let width = max(1, Int((Double(image.width) * scale).rounded())), height = max(1, Int((Double(image.height) * scale).rounded()))
        var output = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            let y0 = y * image.height / height, y1 = max(y0 + 1, (y + 1) * image.height / height)
            for x in 0..<width {
                let x0 = x * image.width / width, x1 = max(x0 + 1, (x + 1) * image.width / width)
                var sum = 0
                for yy in y0..<y1 {
                    let row = yy * image.width
                    for xx in x0..<x1 { sum += Int(image.pixels[row + xx]) }
                }
                output[y * width + x] = UInt8(sum / ((y1 - y0) * (x1 - x0)))
            }
        }
        return GrayImage(width: width, height: height, pixels: output)
    }

    /// Readings of overlapping tiles as one shelf: a spine seen in two neighbouring tiles
    /// counts once (two copies of a book inside one tile stay two).
    public static func merge(_ tiles: [ShelfReading]) -> ShelfReading {
        var previousTile = Set<String>()
        var readings: [SpineReading] = []
        var usage = TokenUsage()
        var truncated = false
        var dropped = 0, shortened = 0
        for tile in tiles {
            dropped += tile.dropped
            shortened += tile.shortened
            usage.input += tile.usage.input
            usage.output += tile.usage.output
            truncated = truncated || tile.truncated
            var thisTile = Set<String>()
            for reading in tile.readings.sorted(by: { ($0.position ?? .max) < ($1.position ?? .max) }) {
                let key = String((reading.title ?? reading.text).lowercased().filter { $0.isLetter || $0.isNumber })
                if !reading.unreadable, !key.isEmpty {
                    thisTile.insert(key)
                    if previousTile.contains(key) { continue }
                }
                var placed = reading
                placed.position = readings.count
                readings.append(placed)
            }
            previousTile = thisTile
        }
        return ShelfReading(readings: readings, usage: usage, truncated: truncated, dropped: dropped, shortened: shortened)
    }
}

/// A stable content hash (two FNV-1a 64-bit lanes) for the reply cache; not for security.
public enum ContentHash {
    public static func hex(_ data: Data) -> String {
        var a: UInt64 = 0xcbf29ce484222325, b: UInt64 = 0x84222325cbf29ce4
        for byte in data {
            a = (a ^ UInt64(byte)) &* 0x100000001b3
            b = (b ^ UInt64(byte ^ 0x5c)) &* 0x100000001b3
        }
        return String(format: "%016llx%016llx", a, b)
    }

    public static func hex(_ text: String) -> String { hex(Data(text.utf8)) }
}
