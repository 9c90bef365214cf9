import Imaging

extension GrayImage {
    /// The image scaled to about `pixels` pixels, its long side at most `maxLongSide` (up to
    /// `maxUpscale` up, any factor down): box-averaged by whole factors first (no aliasing), then
    /// bilinear to the exact size.
    public func scaled(toPixels pixels: Int, maxLongSide: Int, maxUpscale: Double = 2.5) -> (image: GrayImage, factor: Double) {
        let long = max(width, height)
        guard long > 0, pixels > 0, maxLongSide > 0 else { return (self, 1) }
        let wanted = min((Double(pixels) / Double(width * height)).squareRoot(), Double(maxLongSide) / Double(long), maxUpscale)
        guard abs(wanted - 1) > 0.02 else { return (self, 1) }
        var source = self
        let whole = Int(1 / wanted)
        if whole >= 2 { source = downscaled(by: whole) }
        let outputWidth = max(1, Int((Double(width) * wanted).rounded()))
        let outputHeight = max(1, Int((Double(height) * wanted).rounded()))
        return (source.bilinear(width: outputWidth, height: outputHeight), wanted)
    }

    /// Each output column's source columns and weight are the same on every row: worked out once
    /// (the same arithmetic, so the same bytes), not per pixel. The witness scales every
    /// EAN-13/UPC-A's box this way; per pixel they were ~2% of a small photo's decode (stop 45).
    private func bilinear(width outputWidth: Int, height outputHeight: Int) -> GrayImage {
        if outputWidth == width, outputHeight == height { return self }
        let scaleX = Double(width) / Double(outputWidth), scaleY = Double(height) / Double(outputHeight)
        var output = [UInt8](repeating: 0, count: outputWidth * outputHeight)
        let (w, h) = (width, height)
        var left = [Int](repeating: 0, count: outputWidth), right = left
        var weight = [Double](repeating: 0, count: outputWidth)
        for x in 0..<outputWidth {
            let sx = max(0, min(Double(w - 1), (Double(x) + 0.5) * scaleX - 0.5))
            left[x] = Int(sx)
            right[x] = min(w - 1, left[x] + 1)
            weight[x] = sx - Double(left[x])
        }
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                left.withUnsafeBufferPointer { left in
                    right.withUnsafeBufferPointer { right in
                        weight.withUnsafeBufferPointer { weight in
                            for y in 0..<outputHeight {
                                let sy = max(0, min(Double(h - 1), (Double(y) + 0.5) * scaleY - 0.5))
                                let y0 = Int(sy), y1 = min(h - 1, y0 + 1)
                                let fy = sy - Double(y0)
                                let upper = y0 * w, lower = y1 * w, out = y * outputWidth
                                for x in 0..<outputWidth {
                                    let x0 = left[x], x1 = right[x], fx = weight[x]
                                    let top = Double(source[upper + x0]) * (1 - fx) + Double(source[upper + x1]) * fx
                                    let bottom = Double(source[lower + x0]) * (1 - fx) + Double(source[lower + x1]) * fx
                                    destination[out + x] = UInt8(max(0, min(255, (top * (1 - fy) + bottom * fy).rounded())))
                                }
                            }
                        }
                    }
                }
            }
        }
        return GrayImage(width: outputWidth, height: outputHeight, pixels: output)
    }
}

extension SpineRotation {
    /// A box in the turned image, in the upright photo's coordinates (`width × height`).
    func boxInPhoto(_ box: Box, photoWidth: Int, photoHeight: Int) -> Box {
        switch self {
        case .none:
            box
        case .clockwise270:
            // Turned counterclockwise: turned (x, y) is photo (W-1-y, x).
            Box(x0: photoWidth - box.y1, y0: box.x0, x1: photoWidth - box.y0, y1: box.x1)
        case .clockwise90:
            // Turned clockwise: turned (x, y) is photo (y, H-1-x).
            Box(x0: box.y0, y0: photoHeight - box.x1, x1: box.y1, y1: photoHeight - box.x0)
        }
    }
}
