/// An 8-bit grayscale image: `width × height` bytes, row-major, no row padding.
public struct GrayImage: Sendable, Hashable {
    public let width: Int
    public let height: Int
    public let pixels: [UInt8]

    /// The pixel count must be `width * height`; a mismatch is a programming error.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height,
                     "GrayImage: \(pixels.count) bytes for \(width)×\(height)")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    public subscript(x: Int, y: Int) -> UInt8 { pixels[y * width + x] }

    /// The image turned as a viewer would turn the photo.
    public func rotated(_ rotation: Rotation) -> GrayImage {
        transformed(by: rotation.orientation)
    }

    /// The image as EXIF `orientation` (1…8) says it should be displayed;
    /// values outside 1…8 leave it unchanged.
    public func applyingEXIFOrientation(_ orientation: Int) -> GrayImage {
        transformed(by: ImageOrientation(exifValue: orientation) ?? .up)
    }

    /// Each output pixel is the mean of a `factor × factor` box; edge pixels that do not
    /// fill a whole box are dropped. A factor of 1 (or less) returns the image unchanged.
    public func downscaled(by factor: Int) -> GrayImage {
        guard factor > 1 else { return self }
        let outputWidth = width / factor, outputHeight = height / factor
        guard outputWidth > 0, outputHeight > 0 else {
            return GrayImage(width: 0, height: 0, pixels: [])
        }
        if factor == 2 { return halved(x: 0, y: 0, width: width, height: height) }
        let area = factor * factor
        var sums = [Int](repeating: 0, count: outputWidth)
        var output = [UInt8](repeating: 0, count: outputWidth * outputHeight)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                for outputY in 0..<outputHeight {
                    for index in sums.indices { sums[index] = 0 }
                    for y in outputY * factor..<(outputY + 1) * factor {
                        let row = y * width
                        for outputX in 0..<outputWidth {
                            var sum = 0
                            let start = row + outputX * factor
                            for x in start..<start + factor { sum += Int(source[x]) }
                            sums[outputX] += sum
                        }
                    }
                    let outputRow = outputY * outputWidth
                    for outputX in 0..<outputWidth {
                        destination[outputRow + outputX] = UInt8((sums[outputX] + area / 2) / area)
                    }
                }
            }
        }
        return GrayImage(width: outputWidth, height: outputHeight, pixels: output)
    }

    /// `downscaled(by: 2)` without the general loop: the same rounded 2×2 means, a few
    /// times faster (large photos are halved on every scan). Of the box at (`x`, `y`) only,
    /// clipped to the image: a region's surroundings are reduced without being copied out first.
    public func halved(x: Int, y: Int, width boxWidth: Int, height boxHeight: Int) -> GrayImage {
        let x0 = max(0, min(width, x)), y0 = max(0, min(height, y))
        let outputWidth = (max(x0, min(width, x + boxWidth)) - x0) / 2
        let outputHeight = (max(y0, min(height, y + boxHeight)) - y0) / 2
        guard outputWidth > 0, outputHeight > 0 else { return GrayImage(width: 0, height: 0, pixels: []) }
        let output = [UInt8](unsafeUninitializedCapacity: outputWidth * outputHeight) { destination, count in
            pixels.withUnsafeBufferPointer { source in
                guard let origin = source.baseAddress.map({ $0 + y0 * width + x0 }), let out = destination.baseAddress else { return }
                // Sixteen output pixels at a time: each 16-bit lane holds a pixel pair
                // (little-endian: the left one in its low byte).
                let vectorWidth = outputWidth / 16 * 16
                let low = SIMD16<UInt16>(repeating: 0xFF), two = SIMD16<UInt16>(repeating: 2)
                for outputY in 0..<outputHeight {
                    let top = origin + 2 * outputY * width, bottom = top + width
                    let row = out + outputY * outputWidth
                    var outputX = 0
                    while outputX < vectorWidth {
                        let t = UnsafeRawPointer(top + 2 * outputX).loadUnaligned(as: SIMD16<UInt16>.self)
                        let b = UnsafeRawPointer(bottom + 2 * outputX).loadUnaligned(as: SIMD16<UInt16>.self)
                        let sum = (t & low) &+ (t &>> 8) &+ (b & low) &+ (b &>> 8) &+ two
                        UnsafeMutableRawPointer(row + outputX).storeBytes(of: SIMD16<UInt8>(truncatingIfNeeded: sum &>> 2), as: SIMD16<UInt8>.self)
                        outputX += 16
                    }
                    while outputX < outputWidth {
                        let x = 2 * outputX
                        let sum = UInt16(top[x]) &+ UInt16(top[x + 1]) &+ UInt16(bottom[x]) &+ UInt16(bottom[x + 1])
                        row[outputX] = UInt8(truncatingIfNeeded: (sum &+ 2) >> 2)
                        outputX += 1
                    }
                }
            }
            count = outputWidth * outputHeight
        }
        return GrayImage(width: outputWidth, height: outputHeight, pixels: output)
    }

    /// Side of the square tiles a quarter turn is copied in.
    static let transformTile = 64

    /// Every output pixel `(x, y)` is read from `origin + x * stepX + y * stepY` in the source.
    func transformed(by orientation: ImageOrientation) -> GrayImage {
        if orientation == .up { return self }
        let (w, h) = (width, height)
        let swapsAxes = orientation.swapsAxes
        let outputWidth = swapsAxes ? h : w, outputHeight = swapsAxes ? w : h
        let (origin, stepX, stepY): (Int, Int, Int) = switch orientation {
        case .up: (0, 1, w)
        case .upMirrored: (w - 1, -1, w)
        case .down: ((h - 1) * w + w - 1, -1, -w)
        case .downMirrored: ((h - 1) * w, 1, -w)
        case .leftMirrored: (0, w, 1)
        case .right: ((h - 1) * w, -w, 1)
        case .rightMirrored: ((h - 1) * w + w - 1, -w, -1)
        case .left: (w - 1, w, -1)
        }
        // In tiles: a quarter turn walks the source down its columns, and row by row over a
        // whole 12 MP photo every read was a cache (and TLB) miss, ~70 ms; tile by tile the
        // source rows a tile touches stay in cache.
        let tile = swapsAxes ? Self.transformTile : max(outputWidth, 1)
        let output = [UInt8](unsafeUninitializedCapacity: pixels.count) { destination, count in
            pixels.withUnsafeBufferPointer { source in
                guard let from = source.baseAddress, let to = destination.baseAddress else { return }
                for tileY in stride(from: 0, to: outputHeight, by: tile) {
                    for tileX in stride(from: 0, to: outputWidth, by: tile) {
                        let tileWidth = min(tile, outputWidth - tileX)
                        for y in tileY..<min(tileY + tile, outputHeight) {
                            var sourceIndex = origin + y * stepY + tileX * stepX
                            let row = to + y * outputWidth + tileX
                            for x in 0..<tileWidth {
                                row[x] = from[sourceIndex]
                                sourceIndex += stepX
                            }
                        }
                    }
                }
            }
            count = pixels.count
        }
        return GrayImage(width: outputWidth, height: outputHeight, pixels: output)
    }
}

/// A quarter turn of the whole image, clockwise as seen by the viewer.
public enum Rotation: Sendable, Hashable, CaseIterable {
    case none, clockwise90, upsideDown, counterclockwise90

    var orientation: ImageOrientation {
        switch self {
        case .none: .up
        case .clockwise90: .right
        case .upsideDown: .down
        case .counterclockwise90: .left
        }
    }
}

/// The eight EXIF orientations, named (as in EXIF 2.3 and TIFF) by the transform that
/// displays the stored pixels upright. Raw values are the EXIF tag values.
enum ImageOrientation: Int, Sendable, CaseIterable {
    case up = 1             // as stored
    case upMirrored = 2     // mirror left-right
    case down = 3           // rotate 180°
    case downMirrored = 4   // mirror top-bottom
    case leftMirrored = 5   // transpose (mirror, then rotate 270° clockwise)
    case right = 6          // rotate 90° clockwise
    case rightMirrored = 7  // transverse (mirror, then rotate 90° clockwise)
    case left = 8           // rotate 270° clockwise

    init?(exifValue: Int) { self.init(rawValue: exifValue) }

    var swapsAxes: Bool { rawValue >= 5 }

    /// Where the stored pixel (`x`, `y`) of a `width`×`height` image lands once turned.
    func place(_ x: Int, _ y: Int, width w: Int, height h: Int) -> (x: Int, y: Int) {
        switch self {
        case .up: (x, y)
        case .upMirrored: (w - 1 - x, y)
        case .down: (w - 1 - x, h - 1 - y)
        case .downMirrored: (x, h - 1 - y)
        case .leftMirrored: (y, x)
        case .right: (h - 1 - y, x)
        case .rightMirrored: (h - 1 - y, w - 1 - x)
        case .left: (y, w - 1 - x)
        }
    }
}

extension LoadedImage {
    /// The rectangle `x..<x+width`, `y..<y+height` of `image` as it lies in the upright
    /// photo: for images loaded with `applyOrientation: false` (a reader that finds codes
    /// at any angle need not turn 12 MP first), to report where things are as seen.
    /// Unchanged when the orientation was applied, or there was none.
    public func uprightRect(x: Int, y: Int, width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        guard image.width > 0, image.height > 0, width > 0, height > 0,
              !orientationApplied, let orientation = ImageOrientation(exifValue: exifOrientation), orientation != .up
        else { return (x, y, width, height) }
        let a = orientation.place(x, y, width: image.width, height: image.height)
        let b = orientation.place(x + width - 1, y + height - 1, width: image.width, height: image.height)
        return (min(a.x, b.x), min(a.y, b.y), abs(a.x - b.x) + 1, abs(a.y - b.y) + 1)
    }
}
