import Foundation

/// Where one spine lies in its photo: four corners in pixels of the upright photo (EXIF
/// orientation applied) as the reader saw it, `width` x `height` (OCR's working size, the
/// image sent to a model); whoever shows the photo at another size scales them. The corners
/// go in reading order: the text's top-left, top-right, bottom-right, bottom-left. A spine
/// printed top to bottom therefore starts at its top right corner in the photo, a leaning one
/// has a slanted outline, and mapping the corners onto a rectangle turns the spine upright.
public struct SpineBox: Sendable, Hashable, Codable {
    public struct Point: Sendable, Hashable {
        public var x: Double
        public var y: Double
        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }

    /// Which way a spine's text runs in the photo, for an upright rectangle's corners.
    public enum Direction: Sendable, Hashable {
        /// Read as it stands (horizontal text, letters stacked upright).
        case across
        /// Top to bottom: read with the photo turned a quarter counter-clockwise.
        case down
        /// Bottom to top: read with the photo turned a quarter clockwise.
        case up
    }

    public let width: Int
    public let height: Int
    /// Exactly four, in reading order.
    public let corners: [Point]

    /// Corners off the photo by more than this share of its side are no box (a model that
    /// answered in another scale); nearer ones are brought onto it.
    static let overshoot = 0.02

    /// nil unless the frame has a size, there are four finite corners on it and they enclose
    /// something (a box that cuts out nothing is worse than none).
    public init?(width: Int, height: Int, corners: [Point]) {
        guard width > 0, height > 0, corners.count == 4 else { return nil }
        let (w, h) = (Double(width), Double(height))
        var placed: [Point] = []
        for corner in corners {
            guard corner.x.isFinite, corner.y.isFinite, corner.x >= -w * Self.overshoot, corner.x <= w * (1 + Self.overshoot),
                  corner.y >= -h * Self.overshoot, corner.y <= h * (1 + Self.overshoot) else { return nil }
            // Tenths of a pixel: what a crop can use, and short to store.
            placed.append(Point(x: (min(w, max(0, corner.x)) * 10).rounded() / 10, y: (min(h, max(0, corner.y)) * 10).rounded() / 10))
        }
        self.width = width
        self.height = height
        self.corners = placed
        guard readingWidth >= 1, readingHeight >= 1 else { return nil }
    }

    /// An upright rectangle (`x0`...`x1`, `y0`...`y1`) whose text runs `direction`.
    public init?(width: Int, height: Int, x0: Double, y0: Double, x1: Double, y1: Double, direction: Direction) {
        let (topLeft, topRight, bottomRight, bottomLeft) = (Point(x: x0, y: y0), Point(x: x1, y: y0), Point(x: x1, y: y1), Point(x: x0, y: y1))
        let corners = switch direction {
        case .across: [topLeft, topRight, bottomRight, bottomLeft]
        // The letters' tops face the photo's right side, the text starts at the top.
        case .down: [topRight, bottomRight, bottomLeft, topLeft]
        case .up: [bottomLeft, topLeft, topRight, bottomRight]
        }
        self.init(width: width, height: height, corners: corners)
    }

    /// The text's length and height in the photo's pixels: the crop's size before scaling.
    public var readingWidth: Double { Self.distance(corners[0], corners[1]) }
    public var readingHeight: Double { Self.distance(corners[0], corners[3]) }

    static func distance(_ a: Point, _ b: Point) -> Double { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }

    /// The same box in a `width` x `height` frame showing the same photo (another scale).
    public func scaled(toWidth newWidth: Int, height newHeight: Int) -> SpineBox? {
        let (sx, sy) = (Double(newWidth) / Double(width), Double(newHeight) / Double(height))
        return SpineBox(width: newWidth, height: newHeight, corners: corners.map { Point(x: $0.x * sx, y: $0.y * sy) })
    }

    // Stored and printed as {"width":W,"height":H,"corners":[[x,y],[x,y],[x,y],[x,y]]}.
    private enum CodingKeys: String, CodingKey { case width, height, corners }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let pairs = try container.decode([[Double]].self, forKey: .corners)
        guard pairs.allSatisfy({ $0.count == 2 }),
              let box = SpineBox(width: try container.decode(Int.self, forKey: .width), height: try container.decode(Int.self, forKey: .height),
                                 corners: pairs.map { Point(x: $0[0], y: $0[1]) }) else {
            throw DecodingError.dataCorruptedError(forKey: .corners, in: container, debugDescription: "not four corners on the photo")
        }
        self = box
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encode(corners.map { [$0.x, $0.y] }, forKey: .corners)
    }

    /// The JSON text a store keeps.
    public var storedText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// A stored box read back; nil when the text is none.
    public init?(storedText: String) {
        guard let box = try? JSONDecoder().decode(SpineBox.self, from: Data(storedText.utf8)) else { return nil }
        self = box
    }
}
