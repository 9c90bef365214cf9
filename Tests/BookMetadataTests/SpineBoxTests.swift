import BookMetadata
import Foundation
import Testing

/// Where a spine lies in its photo: corners in reading order, on the photo, stored as JSON.
@Suite struct SpineBoxTests {
    @Test func anUprightRectangleTakesItsCornersInTheOrderItsTextIsRead() throws {
        // A spine 40 px wide and 360 px long.
        func box(_ direction: SpineBox.Direction) throws -> SpineBox {
            try #require(SpineBox(width: 800, height: 600, x0: 100, y0: 40, x1: 140, y1: 400, direction: direction))
        }
        // Top to bottom: the text starts at the top right (its letters' tops face right).
        #expect(try box(.down).corners == [.init(x: 140, y: 40), .init(x: 140, y: 400), .init(x: 100, y: 400), .init(x: 100, y: 40)])
        // Bottom to top: it starts at the bottom left.
        #expect(try box(.up).corners == [.init(x: 100, y: 400), .init(x: 100, y: 40), .init(x: 140, y: 40), .init(x: 140, y: 400)])
        #expect(try box(.across).corners.first == .init(x: 100, y: 40))
        // Read turned, the text is the spine's length long and its width high.
        #expect(try box(.down).readingWidth == 360 && box(.down).readingHeight == 40)
        #expect(try box(.across).readingWidth == 40 && box(.across).readingHeight == 360)
    }

    @Test func aBoxOffThePhotoOrOfNoSizeIsNone() {
        let inside = [SpineBox.Point(x: 10, y: 10), .init(x: 50, y: 10), .init(x: 50, y: 30), .init(x: 10, y: 30)]
        #expect(SpineBox(width: 100, height: 100, corners: inside) != nil)
        #expect(SpineBox(width: 100, height: 100, corners: Array(inside.prefix(3))) == nil)
        #expect(SpineBox(width: 0, height: 100, corners: inside) == nil)
        #expect(SpineBox(width: 100, height: 100, corners: inside.map { .init(x: $0.x * 3, y: $0.y) }) == nil)
        #expect(SpineBox(width: 100, height: 100, corners: inside.map { _ in .init(x: 20, y: 20) }) == nil)
        #expect(SpineBox(width: 100, height: 100, corners: inside.map { .init(x: $0.x, y: .nan) }) == nil)
        // A corner a pixel off the edge (a model's rounding) is brought onto it.
        #expect(SpineBox(width: 100, height: 100, corners: [.init(x: -1, y: 10)] + inside.dropFirst())?.corners.first == .init(x: 0, y: 10))
    }

    @Test func itIsStoredAsJSONAndScaledWithItsPhoto() throws {
        let box = try #require(SpineBox(width: 1800, height: 840, corners: [.init(x: 612.44, y: 40), .init(x: 590, y: 800.5),
                                                                            .init(x: 530, y: 798), .init(x: 552.6, y: 38)]))
        #expect(box.storedText == #"{"corners":[[612.4,40],[590,800.5],[530,798],[552.6,38]],"height":840,"width":1800}"#)
        #expect(SpineBox(storedText: box.storedText) == box)
        #expect(SpineBox(storedText: #"{"corners":[[1,2]],"height":840,"width":1800}"#) == nil)
        #expect(SpineBox(storedText: "not json") == nil)
        let half = try #require(box.scaled(toWidth: 900, height: 420))
        #expect(half.corners[1] == .init(x: 295, y: 400.3) && half.width == 900)
    }
}
