import Foundation
import Pipeline
import Testing

@Suite struct CaptureTimeTests {
    private let utc = TimeZone(identifier: "UTC")!
    /// 2025-11-22 10:15:30 UTC
    private let reference = Date(timeIntervalSince1970: 1_763_806_530)

    @Test(arguments: [
        ("frame-20251122-101530.250.jpg", 0.25),
        ("20251122_101530.jpg", 0.0),
        ("IMG_20251122_101530.jpg", 0.0),
        ("IMG_20251122_101530_1.jpg", 0.0),
        ("PXL_20251122_101530123.jpg", 0.123),
        ("2025-11-22_10-15-30.jpg", 0.0),
        ("2025-11-22 10.15.30.png", 0.0),
        ("2025-11-22T10:15:30.5.jpg", 0.5),
        ("Screenshot_20251122-101530.png", 0.0),
        ("1763806530250.jpg", 0.25),
        ("1763806530.jpg", 0.0),
        ("cam-1763806530.250.pgm", 0.25),
    ])
    func readsTimestampsFromNames(name: String, fraction: Double) throws {
        let date = try #require(FrameNameTimestamp.parse(name, timeZone: utc))
        #expect(abs(date.timeIntervalSince(reference) - fraction) < 0.0005)
    }

    @Test(arguments: [
        "000123.jpg", "IMG_0042.JPG", "photo.png", "20261322_101530.jpg", "20260231_101530.jpg",
        "2025-11-22_25-15-30.jpg", "120251122_101530.jpg", "0000000001.jpg", "9999999999999.jpg", "4006381333931.jpg", "9780306406157.png",
    ])
    func ignoresNamesWithoutATimestamp(name: String) {
        #expect(FrameNameTimestamp.parse(name, timeZone: utc) == nil)
    }

    @Test func localTimeNamesUseTheGivenZone() throws {
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        let date = try #require(FrameNameTimestamp.parse("IMG_20251122_111530.jpg", timeZone: paris))
        #expect(date == reference)  // 11:15:30 in Paris (UTC+1 in November) is 10:15:30 UTC
    }

    @Test func nameWinsOverModificationTime() {
        let mtime = Date(timeIntervalSince1970: 0)
        let named = CaptureTime.of(fileNamed: "IMG_20251122_101530.jpg", modified: mtime, timeZone: utc)
        #expect(named == CaptureTime(date: reference, origin: .fileName))
        let plain = CaptureTime.of(fileNamed: "000001.jpg", modified: mtime, timeZone: utc)
        #expect(plain == CaptureTime(date: mtime, origin: .modificationTime))
    }
}
