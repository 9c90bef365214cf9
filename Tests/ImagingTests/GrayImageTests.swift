import Testing
@testable import Imaging

@Suite struct GrayImageTests {
    // 3×2, every pixel distinct:  1 2 3
    //                             4 5 6
    let image = GrayImage(width: 3, height: 2, pixels: [1, 2, 3, 4, 5, 6])

    @Test func rotationsTurnTheImageAsAViewerWould() {
        let clockwise = image.rotated(.clockwise90)
        #expect(clockwise.width == 2 && clockwise.height == 3)
        #expect(clockwise.pixels == [4, 1, 5, 2, 6, 3])
        #expect(image.rotated(.upsideDown).pixels == [6, 5, 4, 3, 2, 1])
        let counterclockwise = image.rotated(.counterclockwise90)
        #expect(counterclockwise.width == 2 && counterclockwise.height == 3)
        #expect(counterclockwise.pixels == [3, 6, 2, 5, 1, 4])
        #expect(image.rotated(.none) == image)
        #expect(image.rotated(.clockwise90).rotated(.counterclockwise90) == image)
    }

    /// The upright image each EXIF orientation yields from the stored 3×2 image.
    static let exifExpectations: [(orientation: Int, width: Int, pixels: [UInt8])] = [
        (1, 3, [1, 2, 3, 4, 5, 6]),
        (2, 3, [3, 2, 1, 6, 5, 4]),        // mirrored left-right
        (3, 3, [6, 5, 4, 3, 2, 1]),        // 180°
        (4, 3, [4, 5, 6, 1, 2, 3]),        // mirrored top-bottom
        (5, 2, [1, 4, 2, 5, 3, 6]),        // transposed
        (6, 2, [4, 1, 5, 2, 6, 3]),        // 90° clockwise
        (7, 2, [6, 3, 5, 2, 4, 1]),        // transversed
        (8, 2, [3, 6, 2, 5, 1, 4]),        // 90° counterclockwise
    ]

    @Test(arguments: exifExpectations)
    func exifOrientationIsApplied(_ expectation: (orientation: Int, width: Int, pixels: [UInt8])) {
        let upright = image.applyingEXIFOrientation(expectation.orientation)
        #expect(upright.width == expectation.width)
        #expect(upright.height == 6 / expectation.width)
        #expect(upright.pixels == expectation.pixels)
    }

    /// Images wider and taller than a copy tile (and not multiples of it) turn as the
    /// 3×2 one does: every pixel lands where the orientation's definition puts it.
    @Test(arguments: 2...8)
    func exifOrientationIsAppliedAcrossTiles(_ orientation: Int) {
        let width = GrayImage.transformTile * 2 + 13, height = GrayImage.transformTile + 7
        let pixels = (0..<width * height).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 / width &* 7) }
        let stored = GrayImage(width: width, height: height, pixels: pixels)
        let upright = stored.applyingEXIFOrientation(orientation)
        let swaps = orientation >= 5
        #expect(upright.width == (swaps ? height : width) && upright.height == (swaps ? width : height))
        var mismatches = 0
        for y in 0..<upright.height {
            for x in 0..<upright.width {
                // Where the stored pixel shown at upright (x, y) sits, by the EXIF definitions.
                let (sx, sy): (Int, Int) = switch orientation {
                case 2: (width - 1 - x, y)
                case 3: (width - 1 - x, height - 1 - y)
                case 4: (x, height - 1 - y)
                case 5: (y, x)
                case 6: (y, height - 1 - x)
                case 7: (width - 1 - y, height - 1 - x)
                default: (width - 1 - y, x)
                }
                if upright.pixels[y * upright.width + x] != pixels[sy * width + sx] { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    /// A reader that works on the stored pixels reports places as the viewer sees them: a
    /// rectangle of the stored image holds the same pixels as its upright rectangle does
    /// in the turned image; once the turn is applied the rectangle is left alone.
    @Test(arguments: 1...8)
    func storedRectanglesMapToWhereTheTurnPutsThem(_ orientation: Int) {
        let width = 7, height = 5
        let stored = GrayImage(width: width, height: height, pixels: (0..<width * height).map { UInt8($0) })
        let upright = stored.applyingEXIFOrientation(orientation)
        var loaded = LoadedImage(image: stored, format: .jpeg, originalWidth: width, originalHeight: height,
                                 exifOrientation: orientation)
        for (x, y, w, h) in [(1, 2, 3, 2), (0, 0, 1, 1), (6, 4, 1, 1), (0, 0, 7, 5), (5, 0, 2, 4)] {
            let rect = loaded.uprightRect(x: x, y: y, width: w, height: h)
            var inStored: [UInt8] = [], inUpright: [UInt8] = []
            for row in y..<y + h { for column in x..<x + w { inStored.append(stored[column, row]) } }
            for row in rect.y..<rect.y + rect.height {
                for column in rect.x..<rect.x + rect.width { inUpright.append(upright[column, row]) }
            }
            #expect(inStored.sorted() == inUpright.sorted(), "orientation \(orientation), \((x, y, w, h)) -> \(rect)")
        }
        loaded.orientationApplied = true
        #expect(loaded.uprightRect(x: 1, y: 2, width: 3, height: 2) == (1, 2, 3, 2))
    }

    @Test func outOfRangeOrientationLeavesTheImageAlone() {
        #expect(image.applyingEXIFOrientation(0) == image)
        #expect(image.applyingEXIFOrientation(9) == image)
    }

    @Test func downscalingAveragesBoxesAndDropsPartialEdges() {
        // 5×4: boxes of 2×2 -> 2×2 output; the fifth column is dropped.
        let source = GrayImage(width: 5, height: 4, pixels: [
            0, 10, 100, 100, 255,
            20, 30, 100, 101, 255,
            200, 200, 0, 0, 255,
            200, 201, 255, 255, 255,
        ])
        let small = source.downscaled(by: 2)
        #expect(small.width == 2 && small.height == 2)
        #expect(small.pixels == [15, 100, 200, 128])
        #expect(source.downscaled(by: 1) == source)
        #expect(source.downscaled(by: 8).pixels.isEmpty)
    }

    /// Halving has a fast path of its own: the same rounded 2×2 means as any other factor.
    @Test func halvingMatchesTheBoxMeanOnAnOddSizedImage() {
        var state: UInt32 = 7
        let pixels = (0..<(131 * 77)).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        let source = GrayImage(width: 131, height: 77, pixels: pixels)
        let half = source.downscaled(by: 2)
        #expect(half.width == 65 && half.height == 38)
        var expected = [UInt8]()
        for y in 0..<38 {
            for x in 0..<65 {
                let sum = Int(source[2 * x, 2 * y]) + Int(source[2 * x + 1, 2 * y])
                    + Int(source[2 * x, 2 * y + 1]) + Int(source[2 * x + 1, 2 * y + 1])
                expected.append(UInt8((sum + 2) / 4))
            }
        }
        #expect(half.pixels == expected)
        // A box of it, reaching past the right and bottom edges: as if cropped, then halved.
        for (x, y, w, h) in [(3, 5, 70, 40), (40, 50, 200, 200), (0, 0, 131, 77), (-4, -4, 20, 20)] {
            #expect(source.halved(x: x, y: y, width: w, height: h) == source.cropped(x: x, y: y, width: w, height: h).downscaled(by: 2),
                    "box \(x), \(y), \(w)×\(h)")
        }
        #expect(source.halved(x: 130, y: 0, width: 10, height: 10).pixels.isEmpty)
    }
}
