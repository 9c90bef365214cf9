import Foundation
import Testing
import TestSupport
@testable import Imaging

/// A JPEG's header can declare far more than its bytes hold: a few hundred bytes of
/// progressive JPEG declaring 9999×9999 made libjpeg allocate ~600 MB of coefficients and
/// spend seconds filling them (issue 7, item 6).
@Suite struct DecodeMemoryTests {
    /// A small progressive (or baseline) JPEG whose frame header is rewritten to declare
    /// `width`×`height`: the bytes of a 16×16 image, the size of a 100 MP one.
    static func lyingJPEG(width: Int, height: Int, progressive: Bool) throws -> [UInt8] {
        var bytes = try TestImages.jpeg(TestImages.blocky([40, 200, 120, 90], columns: 2),
                                        quality: 90, progressive: progressive)
        // SOF0 (baseline) or SOF2 (progressive): FF Cx, length, precision, height, width.
        let marker: UInt8 = progressive ? 0xC2 : 0xC0
        let at = try #require(bytes.indices.dropLast().first { bytes[$0] == 0xFF && bytes[$0 + 1] == marker })
        bytes[at + 5] = UInt8(height >> 8); bytes[at + 6] = UInt8(height & 0xFF)
        bytes[at + 7] = UInt8(width >> 8); bytes[at + 8] = UInt8(width & 0xFF)
        return bytes
    }

    @Test(arguments: [true, false])
    func aTinyFileDeclaringAHugeImageIsRefusedBeforeDecoding(progressive: Bool) throws {
        let bytes = try Self.lyingJPEG(width: 9999, height: 9999, progressive: progressive)
        #expect(bytes.count < 1000)
        // At full scale the output alone would be 100 MB: implausible for < 1 kB either way.
        #expect {
            try ImageLoader.load(data: Data(bytes), name: "bomb.jpg", options: ImageLoadOptions(jpegScale: .full))
        } throws: { error in
            guard case .implausibleSize(let file, .jpeg, let detail) = error as? ImageError else { return false }
            return file == "bomb.jpg" && detail.contains("9999×9999")
        }
    }

    @Test func progressiveCoefficientsCountEvenAtReducedScale() throws {
        // At 1/8 the output is 1.5 MB, but libjpeg keeps every coefficient of a progressive
        // file (~200 MB here) whatever the scale: still refused.
        let bytes = try Self.lyingJPEG(width: 9999, height: 9999, progressive: true)
        let estimate = bytes.withUnsafeBytes { NativeCodecs.planJPEG($0, options: NativeCodecs.jpegOptions(scale: .eighth)).memory }
        #expect(estimate > 190_000_000)
        #expect(throws: ImageError.self) {
            try ImageLoader.load(data: Data(bytes), name: "bomb.jpg", options: ImageLoadOptions(jpegScale: .eighth))
        }
    }

    @Test func realSizedProgressivePhotosStillDecode() throws {
        var pixels = [UInt8](repeating: 0, count: 1600 * 1200)
        var state: UInt32 = 12345
        for index in pixels.indices {  // noise compresses poorly, like a photo's detail
            state = state &* 1_664_525 &+ 1_013_904_223
            pixels[index] = UInt8(truncatingIfNeeded: state >> 24)
        }
        let image = GrayImage(width: 1600, height: 1200, pixels: pixels)
        let bytes = try TestImages.jpeg(image, quality: 85, progressive: true)
        let loaded = try ImageLoader.load(data: Data(bytes), name: "photo.jpg", options: ImageLoadOptions(jpegScale: .full))
        #expect(loaded.image.width == 1600 && loaded.image.height == 1200)
    }

    @Test func theSharedBudgetBoundsConcurrentReservations() async throws {
        let budget = DecodeMemoryBudget(total: 100)
        let first = budget.reserve(60)
        let second = budget.reserve(30)
        #expect(budget.inUse == 90)
        // A third reservation must wait until the first is given back.
        let started = Date()
        let waiter = Thread {
            let third = budget.reserve(50)
            budget.release(third)
        }
        waiter.start()
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(budget.inUse == 90)
        budget.release(first)
        while budget.inUse > 30, Date().timeIntervalSince(started) < 30 { try await Task.sleep(nanoseconds: 5_000_000) }
        #expect(budget.inUse == 30)
        budget.release(second)
        // Larger than the whole budget: granted alone, capped at the total.
        let huge = budget.reserve(1000)
        #expect(budget.inUse == 100)
        budget.release(huge)
        #expect(budget.inUse == 0)
    }
}
