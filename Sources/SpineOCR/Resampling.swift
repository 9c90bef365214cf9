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

    private func bilinear(width outputWidth: Int, height outputHeight: Int) -> GrayImage {
        if outputWidth == width, outputHeight == height { return self }
        let scaleX = Double(width) / Double(outputWidth), scaleY = Double(height) / Double(outputHeight)
        var output = [UInt8](repeating: 0, count: outputWidth * outputHeight)
        let (w, h) = (width, height)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                for y in 0..<outputHeight {
                    let sy = max(0, min(Double(h - 1), (Double(y) + 0.5) * scaleY - 0.5))
                    let y0 = Int(sy), y1 = min(h - 1, y0 + 1)
                    let fy = sy - Double(y0)
                    for x in 0..<outputWidth {
                        let sx = max(0, min(Double(w - 1), (Double(x) + 0.5) * scaleX - 0.5))
                        let x0 = Int(sx), x1 = min(w - 1, x0 + 1)
                        let fx = sx - Double(x0)
                        let top = Double(source[y0 * w + x0]) * (1 - fx) + Double(source[y0 * w + x1]) * fx
                        let bottom = Double(source[y1 * w + x0]) * (1 - fx) + Double(source[y1 * w + x1]) * fx
                        destination[y * outputWidth + x] = UInt8(max(0, min(255, (top * (1 - fy) + bottom * fy).rounded())))
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
