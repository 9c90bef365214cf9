// Times JPEG decoding of a phone-size photo at each DCT scale (run by scripts/bench-imaging).
import Foundation
import Imaging

let arguments = CommandLine.arguments.dropFirst()
let runs = arguments.first.flatMap(Int.init) ?? 7
let width = 4000, height = 3000

/// A busy color scene: gradients, texture, noise and a barcode-like stripe block, so the
/// entropy-coded data is as dense as a real photo's.
func scene() -> [UInt8] {
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    var seed: UInt32 = 12345
    for y in 0..<height {
        for x in 0..<width {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            let noise = Int(seed >> 27) - 16
            let texture = Int(40 * sin(Double(x) / 23) * cos(Double(y) / 31))
            var r = x * 255 / width + texture + noise
            var g = y * 255 / height - texture + noise
            var b = 128 + texture / 2 + noise
            if (1500..<2500).contains(x), (1200..<1800).contains(y) {   // stripes on white paper
                let bar = (x / 7) % 3 == 0 || (x / 11) % 4 == 1
                (r, g, b) = bar ? (20 + noise, 20 + noise, 20 + noise) : (235 + noise, 235 + noise, 235 + noise)
            }
            let index = (y * width + x) * 3
            pixels[index] = UInt8(clamping: r)
            pixels[index + 1] = UInt8(clamping: g)
            pixels[index + 2] = UInt8(clamping: b)
        }
    }
    return pixels
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
}

do {
    let jpeg = try ImageEncoder.jpegData(rgb: scene(), width: width, height: height, quality: 90)
    print("JPEG \(width)×\(height), \(jpeg.count / 1024) KiB, 4:2:0 YCbCr; median of \(runs) runs")
    print("scale     output       accurate DCT   fast DCT")
    for scale in JPEGScale.allCases {
        var times: [Bool: [Double]] = [false: [], true: []]
        var size = ""
        for _ in 0..<runs {
            for fast in [false, true] {
                let options = ImageLoadOptions(jpegScale: scale, fastJPEGDecoding: fast)
                times[fast, default: []].append(try milliseconds {
                    let loaded = try ImageLoader.load(data: jpeg, name: "bench.jpg", options: options)
                    size = "\(loaded.image.width)×\(loaded.image.height)"
                })
            }
        }
        let label = "1/\(scale.rawValue)".padding(toLength: 10, withPad: " ", startingAt: 0)
        print(label + size.padding(toLength: 13, withPad: " ", startingAt: 0)
              + String(format: "%8.1f ms    %8.1f ms", median(times[false] ?? []), median(times[true] ?? [])))
    }
    let full = try ImageLoader.load(data: jpeg, name: "bench.jpg").image
    let rotate = median((0..<runs).map { _ in milliseconds { _ = full.rotated(.clockwise90) } })
    let box = median((0..<runs).map { _ in milliseconds { _ = full.downscaled(by: 2) } })
    print(String(format: "GrayImage 4000×3000: rotated(.clockwise90) %.1f ms, downscaled(by: 2) %.1f ms", rotate, box))
} catch {
    print("bench-imaging: \(error)")
    exit(1)
}
