import BookMetadata
import Foundation

/// One spine as a reader (vision model or OCR) saw it. Matching decides what it is.
public struct SpineReading: Sendable, Hashable, Codable {
    /// The text exactly as read (for OCR: the spine's words in reading order).
    public var text: String
    /// Cleaned title, when the reader could tell it apart from the author.
    public var title: String?
    public var author: String?
    public var series: String?
    public var volume: String?
    /// Left-to-right index on the shelf (0-based), when known.
    public var position: Int?
    /// The reader's own confidence, 0...1, when it gives one.
    public var confidence: Double?
    /// The reader saw a spine but could not read it; never matched.
    public var unreadable: Bool
    /// Other readings of the same spine (OCR: other passes, turns, segmentations), best first
    /// after `text`. The matcher weighs them all and refuses a strong match when they name
    /// different books. Replies and caches written before this field decode with none.
    public var alternatives: [String]
    /// Where the spine lies in the photo, when the reader says (OCR always; a model when its
    /// reply carries a box): the review page cuts the spine out with it.
    public var box: SpineBox?

    public init(
        text: String, title: String? = nil, author: String? = nil, series: String? = nil,
        volume: String? = nil, position: Int? = nil, confidence: Double? = nil, unreadable: Bool = false,
        alternatives: [String] = [], box: SpineBox? = nil
    ) {
        self.text = text
        self.title = title
        self.author = author
        self.series = series
        self.volume = volume
        self.position = position
        self.confidence = confidence
        self.unreadable = unreadable
        self.alternatives = alternatives
        self.box = box
    }

    private enum CodingKeys: String, CodingKey {
        case text, title, author, series, volume, position, confidence, unreadable, alternatives, box
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        text = try container.decode(String.self, forKey: .text)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        author = try container.decodeIfPresent(String.self, forKey: .author)
        series = try container.decodeIfPresent(String.self, forKey: .series)
        volume = try container.decodeIfPresent(String.self, forKey: .volume)
        position = try container.decodeIfPresent(Int.self, forKey: .position)
        confidence = try container.decodeIfPresent(Double.self, forKey: .confidence)
        unreadable = try container.decode(Bool.self, forKey: .unreadable)
        alternatives = try container.decodeIfPresent([String].self, forKey: .alternatives) ?? []
        // Replies cached before boxes were kept have none; a damaged one is no box, not a lost reply.
        box = (try? container.decodeIfPresent(SpineBox.self, forKey: .box)) ?? nil
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(text, forKey: .text)
        try container.encodeIfPresent(title, forKey: .title)
        try container.encodeIfPresent(author, forKey: .author)
        try container.encodeIfPresent(series, forKey: .series)
        try container.encodeIfPresent(volume, forKey: .volume)
        try container.encodeIfPresent(position, forKey: .position)
        try container.encodeIfPresent(confidence, forKey: .confidence)
        try container.encode(unreadable, forKey: .unreadable)
        // Absent when empty: what vision readers' replies were before stays byte for byte.
        if !alternatives.isEmpty { try container.encode(alternatives, forKey: .alternatives) }
        try container.encodeIfPresent(box, forKey: .box)
    }
}

/// Tokens a model reply reports (zero for local readers).
public struct TokenUsage: Sendable, Hashable, Codable {
    public var input: Int
    public var output: Int
    public init(input: Int = 0, output: Int = 0) {
        self.input = input
        self.output = output
    }
}

/// Everything one photo gave.
public struct ShelfReading: Sendable, Hashable {
    public var readings: [SpineReading]
    public var usage: TokenUsage
    /// The reply was cut (max tokens): `readings` holds the complete entries only.
    public var truncated: Bool
    /// Entries past `ReplyLimits.maxReadings` the reply held, not kept.
    public var dropped: Int
    /// Readings with a field cut to `ReplyLimits.maxCharacters`.
    public var shortened: Int
    public init(readings: [SpineReading], usage: TokenUsage = TokenUsage(), truncated: Bool = false, dropped: Int = 0, shortened: Int = 0) {
        self.readings = readings
        self.usage = usage
        self.truncated = truncated
        self.dropped = dropped
        self.shortened = shortened
    }
}

/// What one photo's readings may hold, whatever a model replies: a shelf photo shows at most
/// a few hundred spines, and a spine's text is a title, an author and a publisher. Every
/// reading is matched and may be searched for, and its text is stored: the bounds keep a
/// hostile or runaway reply from costing minutes of searches or megabytes per photo.
public enum ReplyLimits {
    public static let maxReadings = 400
    public static let maxCharacters = 300
    /// OCR's other readings of a spine (it gives at most six).
    static let maxAlternatives = 8

    /// `shelf` within the bounds, what was cut counted.
    public static func apply(_ shelf: ShelfReading) -> ShelfReading {
        var bounded = shelf
        if bounded.readings.count > maxReadings {
            bounded.dropped += bounded.readings.count - maxReadings
            bounded.readings.removeSubrange(maxReadings...)
        }
        for index in bounded.readings.indices {
            var reading = bounded.readings[index]
            var cut = false
            func bound(_ text: String) -> String {
                guard text.count > maxCharacters else { return text }
                cut = true
                return String(text.prefix(maxCharacters))
            }
            reading.text = bound(reading.text)
            reading.title = reading.title.map(bound)
            reading.author = reading.author.map(bound)
            reading.series = reading.series.map(bound)
            reading.volume = reading.volume.map(bound)
            if reading.alternatives.count > maxAlternatives {
                reading.alternatives.removeSubrange(maxAlternatives...)
                cut = true
            }
            reading.alternatives = reading.alternatives.map(bound)
            if cut {
                bounded.shortened += 1
                bounded.readings[index] = reading
            }
        }
        return bounded
    }
}

/// A photo handed to a reader: where it came from and its upright 8-bit gray pixels are
/// produced by `Imaging`; readers that need JPEG bytes encode them themselves.
public struct ShelfPhoto: Sendable {
    public var path: String
    public var data: Data
    public init(path: String, data: Data) {
        self.path = path
        self.data = data
    }
}

/// The seam every spine provider sits behind: HTTP vision models and local OCR alike.
public protocol SpineReader: Sendable {
    /// Stable name, part of the reply cache key (with model and prompt).
    var identity: String { get }
    func readSpines(in photo: ShelfPhoto) async throws -> ShelfReading
}
