import Imaging

/// Cheap image tricks tried when a plain scan finds nothing: zbar reads bars from the
/// intensity profile of each scan line, so low contrast, blur and barcodes only a pixel
/// or so per module wide are its usual failures.
extension GrayImage {
    /// Twice the size, bilinear: gives zbar's edge detector more than one sample per module.
    func upscaledTwice() -> GrayImage {
        guard width > 1, height > 1 else { return self }
        let outputWidth = width * 2, outputHeight = height * 2
        var output = [UInt8](repeating: 0, count: outputWidth * outputHeight)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                for outputY in 0..<outputHeight {
                    // Sample centres: output pixel i sits at source coordinate (i - 0.5) / 2.
                    let sourceY = max(0, Double(outputY) * 0.5 - 0.25)
                    let y0 = min(Int(sourceY), height - 2), fy = sourceY - Double(y0)
                    for outputX in 0..<outputWidth {
                        let sourceX = max(0, Double(outputX) * 0.5 - 0.25)
                        let x0 = min(Int(sourceX), width - 2), fx = sourceX - Double(x0)
                        let i = y0 * width + x0
                        let top = Double(source[i]) * (1 - fx) + Double(source[i + 1]) * fx
                        let bottom = Double(source[i + width]) * (1 - fx) + Double(source[i + width + 1]) * fx
                        let value = top * (1 - fy) + bottom * fy
                        destination[outputY * outputWidth + outputX] = UInt8(min(255, max(0, value + 0.5)))
                    }
                }
            }
        }
        return GrayImage(width: outputWidth, height: outputHeight, pixels: output)
    }

    /// The darkest and brightest percent pushed to black and white, the rest stretched between.
    func contrastStretched(clipping fraction: Double = 0.01) -> GrayImage {
        var histogram = [Int](repeating: 0, count: 256)
        for value in pixels { histogram[Int(value)] += 1 }
        let clip = Int(Double(pixels.count) * fraction)
        var low = 0, seen = 0
        while low < 255, seen + histogram[low] <= clip { seen += histogram[low]; low += 1 }
        var high = 255
        seen = 0
        while high > 0, seen + histogram[high] <= clip { seen += histogram[high]; high -= 1 }
        guard high > low else { return self }
        let scale = 255.0 / Double(high - low)
        let table = (0...255).map { UInt8(min(255, max(0, (Double($0 - low) * scale).rounded()))) }
        return GrayImage(width: width, height: height, pixels: pixels.map { table[Int($0)] })
    }

    /// 3×3 box blur: averages away sensor noise and JPEG ringing that split wide bars.
    func boxBlurred() -> GrayImage {
        convolved3x3 { sum, _ in (sum + 4) / 9 }
    }

    /// Unsharp mask (2 × pixel − 3×3 mean): steepens soft bar edges.
    func sharpened() -> GrayImage {
        convolved3x3 { sum, centre in 2 * centre - (sum + 4) / 9 }
    }

    /// `combine(sum of the 3×3 neighbourhood, centre)`; border pixels are copied.
    private func convolved3x3(_ combine: (Int, Int) -> Int) -> GrayImage {
        guard width > 2, height > 2 else { return self }
        var output = pixels
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                for y in 1..<height - 1 {
                    for x in 1..<width - 1 {
                        let i = y * width + x
                        var sum = 0
                        for row in [i - width, i, i + width] {
                            sum += Int(source[row - 1]) + Int(source[row]) + Int(source[row + 1])
                        }
                        destination[i] = UInt8(min(255, max(0, combine(sum, Int(source[i])))))
                    }
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: output)
    }
}
