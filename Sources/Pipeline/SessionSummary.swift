import Foundation

/// The end of a session: totals, unreadable files, how long it took and whether it was cut short.
public struct SessionSummary: Sendable {
    public var totals: SessionRecord.Totals
    public var unreadableFiles: [(file: String, reason: String)]
    /// Files where a barcode was seen and could not be read: to take again.
    public var unreadCodeFiles: [String]
    public var elapsed: TimeInterval
    public var interrupted: Bool
    /// The station that ran the session (nil: not said).
    public var station: String?

    public init(record: SessionRecord, elapsed: TimeInterval, interrupted: Bool, station: String? = nil) {
        totals = record.totals
        unreadableFiles = record.unreadableFiles
        unreadCodeFiles = record.unreadCodeFiles
        self.elapsed = elapsed
        self.interrupted = interrupted
        self.station = station
    }

    public var framesPerSecond: Double { elapsed > 0 ? Double(totals.frames) / elapsed : 0 }
}
