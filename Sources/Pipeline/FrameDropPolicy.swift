/// Latency over completeness for a live feed: when frames land faster than they can be
/// decoded, keep only the newest `capacity` waiting frames and drop the older ones (counted
/// and reported as `dropped`). A webcam frame that waited is a picture of a book that has
/// probably already moved on; decoding it would only delay the frame that shows the next one.
public struct FrameDropPolicy<Element>: Sendable where Element: Sendable {
    public let capacity: Int
    public private(set) var waiting: [Element] = []

    /// `capacity` 0 means unbounded: nothing is ever dropped (`watch --keep-all`).
    public init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// Adds a landed frame; returns the frames dropped to make room, oldest first.
    public mutating func admit(_ element: Element) -> [Element] {
        waiting.append(element)
        guard capacity > 0, waiting.count > capacity else { return [] }
        let dropped = Array(waiting.prefix(waiting.count - capacity))
        waiting.removeFirst(dropped.count)
        return dropped
    }

    /// The oldest frame still kept, so kept frames are decoded in landing order.
    public mutating func next() -> Element? {
        waiting.isEmpty ? nil : waiting.removeFirst()
    }

    public var isEmpty: Bool { waiting.isEmpty }
}
