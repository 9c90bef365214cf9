/// Generic pixel operations on gray images (cropping, levels, local thresholding) that
/// readers of text and codes prepare their input with.
extension GrayImage {
    /// The `width × height` rectangle at (`x`, `y`), clipped to the image.
    public func cropped(x: Int, y: Int, width cropWidth: Int, height cropHeight: Int) -> GrayImage {
        let x0 = max(0, min(width, x)), y0 = max(0, min(height, y))
        let x1 = max(x0, min(width, x + cropWidth)), y1 = max(y0, min(height, y + cropHeight))
        var output = [UInt8]()
        output.reserveCapacity((x1 - x0) * (y1 - y0))
        if x1 > x0 { for row in y0..<y1 { output += pixels[(row * width + x0)..<(row * width + x1)] } }
        return GrayImage(width: x1 - x0, height: y1 - y0, pixels: output)
    }

    /// How many pixels have each of the 256 values.
    public var histogram: [Int] {
        var counts = [Int](repeating: 0, count: 256)
        for value in pixels { counts[Int(value)] += 1 }
        return counts
    }

    /// Every pixel through a 256-entry table.
    public func mapped(_ table: [UInt8]) -> GrayImage {
        precondition(table.count == 256, "a lookup table has 256 entries")
        return GrayImage(width: width, height: height, pixels: pixels.map { table[Int($0)] })
    }

    /// Black (0) and white (255) by Sauvola's local threshold: a pixel is ink when it is darker
    /// than `mean × (1 + k × (deviation / 128 − 1))` of the `(2 radius + 1)²` window around it.
    /// Unlike one global threshold, text stays ink beside a large dark or light block (a logo,
    /// a shadow, the next spine's edge), and flat areas turn white whatever their shade.
    public func sauvolaBinarized(radius: Int, k: Double = 0.2) -> GrayImage {
        mappedByNeighbourhood(radius: radius) { value, mean, deviation in
            value <= mean * (1 + k * (deviation / 128 - 1)) ? 0 : 255
        }
    }

    /// Each pixel set against its `(2 radius + 1)²` window: `128 + 60 × (value − mean) /
    /// max(deviation, minimumDeviation)`. Every part of the image gets the same contrast, so one
    /// global threshold after it splits ink from paper everywhere: a title beside a dark picture
    /// band, which pulls a global threshold its way, reads as well as one on a plain spine.
    public func contrastNormalized(radius: Int, minimumDeviation: Double = 12) -> GrayImage {
        mappedByNeighbourhood(radius: radius) { value, mean, deviation in
            UInt8(max(0, min(255, 128 + 60 * (value - mean) / max(deviation, minimumDeviation))))
        }
    }

    /// Each pixel mapped from its value and its window's mean and standard deviation
    /// (integral images: the cost does not grow with the radius).
    private func mappedByNeighbourhood(radius: Int, _ map: (_ value: Double, _ mean: Double, _ deviation: Double) -> UInt8) -> GrayImage {
        guard width > 0, height > 0 else { return self }
        // Integral images of the values and their squares, one row and column of zeros ahead.
        let stride = width + 1
        var sums = [Double](repeating: 0, count: stride * (height + 1))
        var squares = [Double](repeating: 0, count: stride * (height + 1))
        pixels.withUnsafeBufferPointer { source in
            for y in 0..<height {
                var rowSum = 0.0, rowSquares = 0.0
                for x in 0..<width {
                    let value = Double(source[y * width + x])
                    rowSum += value
                    rowSquares += value * value
                    sums[(y + 1) * stride + x + 1] = sums[y * stride + x + 1] + rowSum
                    squares[(y + 1) * stride + x + 1] = squares[y * stride + x + 1] + rowSquares
                }
            }
        }
        var output = [UInt8](repeating: 255, count: width * height)
        pixels.withUnsafeBufferPointer { source in
            for y in 0..<height {
                let top = max(0, y - radius), bottom = min(height, y + radius + 1)
                for x in 0..<width {
                    let left = max(0, x - radius), right = min(width, x + radius + 1)
                    let count = Double((bottom - top) * (right - left))
                    let sum = sums[bottom * stride + right] - sums[top * stride + right] - sums[bottom * stride + left] + sums[top * stride + left]
                    let square = squares[bottom * stride + right] - squares[top * stride + right]
                        - squares[bottom * stride + left] + squares[top * stride + left]
                    let mean = sum / count
                    let deviation = max(0, square / count - mean * mean).squareRoot()
                    output[y * width + x] = map(Double(source[y * width + x]), mean, deviation)
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: output)
    }

    /// A black-and-white image with every ink (dark, < 128) region that touches the top or the
    /// bottom row and runs along it for more than `longerThan` pixels turned white: the dark
    /// sides of a strip cut out of a photo, which would otherwise join the letters near them
    /// into one blob that is not text. Shorter regions (a big letter reaching the edge) stay.
    public func clearingInkAlongTopAndBottom(longerThan length: Int) -> GrayImage {
        guard width > 0, height > 0 else { return self }
        var output = pixels
        var seen = [Bool](repeating: false, count: width * height)
        var stack: [Int] = [], region: [Int] = []
        for x in 0..<width {
            for start in [x, (height - 1) * width + x] where output[start] < 128 && !seen[start] {
                seen[start] = true
                stack.append(start)
                region.removeAll(keepingCapacity: true)
                var minimumX = x, maximumX = x
                while let index = stack.popLast() {
                    region.append(index)
                    let x = index % width, y = index / width
                    minimumX = min(minimumX, x)
                    maximumX = max(maximumX, x)
                    for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                        let nx = x + dx, ny = y + dy
                        guard nx >= 0, nx < width, ny >= 0, ny < height else { continue }
                        let next = ny * width + nx
                        if output[next] < 128 && !seen[next] { seen[next] = true; stack.append(next) }
                    }
                }
                if maximumX - minimumX + 1 > length {
                    for index in region { output[index] = 255 }
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: output)
    }

    /// The image inside a `margin`-pixel frame of `value`.
    public func padded(by margin: Int, value: UInt8) -> GrayImage {
        let outputWidth = width + 2 * margin, outputHeight = height + 2 * margin
        var output = [UInt8](repeating: value, count: outputWidth * outputHeight)
        for y in 0..<height {
            let source = y * width, destination = (y + margin) * outputWidth + margin
            for x in 0..<width { output[destination + x] = pixels[source + x] }
        }
        return GrayImage(width: outputWidth, height: outputHeight, pixels: output)
    }
}
