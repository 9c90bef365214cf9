import BookMetadata
import Imaging
@testable import RapidScanCLI
import Testing

/// The review page's cut-out: a leaning spine printed top to bottom comes out straight and
/// reading across, its margin around it.
@Suite struct SpineCropTests {
    @Test func aLeaningSpineIsStraightenedAndTurnedToReadAcross() throws {
        // A light 400×300 photo with a dark spine 30 px thick leaning from (195, 20) to (175, 280).
        let (topLeft, topRight, bottomLeft) = (SpineBox.Point(x: 210, y: 20), SpineBox.Point(x: 190, y: 280), SpineBox.Point(x: 180, y: 20))
        let bottomRight = SpineBox.Point(x: 160, y: 280)
        let (ax, ay, bx, by) = (topRight.x - topLeft.x, topRight.y - topLeft.y, bottomLeft.x - topLeft.x, bottomLeft.y - topLeft.y)
        var pixels = [UInt8](repeating: 220, count: 400 * 300)
        for y in 0..<300 {
            for x in 0..<400 {
                // (u, v) of the pixel's centre along and across the spine.
                let (px, py) = (Double(x) + 0.5 - topLeft.x, Double(y) + 0.5 - topLeft.y)
                let determinant = ax * by - ay * bx
                let (u, v) = ((px * by - py * bx) / determinant, (ax * py - ay * px) / determinant)
                if (0...1).contains(u) && (0...1).contains(v) { pixels[y * 400 + x] = 30 }
            }
        }
        let plane = GrayImage(width: 400, height: 300, pixels: pixels)
        let box = try #require(SpineBox(width: 400, height: 300, corners: [topLeft, topRight, bottomRight, bottomLeft]))
        // Given at another scale (a reader's working size): the same place.
        let working = try #require(box.scaled(toWidth: 800, height: 600))
        let crop = try #require(SpineCrop.cut(ColorImage(red: plane, green: plane, blue: plane), box: working))
        // 260.8 px long, 30 thick, a 9 px margin: 278.8 × 48 scaled to 120 high.
        #expect(crop.height == SpineCrop.height && abs(crop.width - 697) <= 1, "\(crop.width)×\(crop.height)")
        func mean(rows: Range<Int>, columns: Range<Int>) -> Double {
            var sum = 0
            for row in rows { for column in columns { sum += Int(crop.red.pixels[row * crop.width + column]) } }
            return Double(sum) / Double(rows.count * columns.count)
        }
        // The spine fills the middle band end to end; the margin above and below stays light.
        #expect(mean(rows: 30..<90, columns: 40..<657) < 45)
        #expect(mean(rows: 0..<16, columns: 0..<697) > 200 && mean(rows: 104..<120, columns: 0..<697) > 200)
        #expect(mean(rows: 30..<90, columns: 0..<16) > 200 && mean(rows: 30..<90, columns: 681..<697) > 200)
    }
}
