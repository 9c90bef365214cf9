import Foundation
import Pipeline
import Testing

@Suite struct DebouncerTests {
    private let start = Date(timeIntervalSince1970: 1_795_342_530)

    /// SPEC §2 / issue 4: same code at 0.0, 1.0, 2.9, 3.1, 7.0 s → accepted at 0.0, 3.1, 7.0.
    @Test func acceptsOncePerWindowNotExtendedByRepeats() {
        var debouncer = Debouncer(window: 3)
        let times: [TimeInterval] = [0.0, 1.0, 2.9, 3.1, 7.0]
        let accepted = times.filter { debouncer.check("9780306406157", at: start.addingTimeInterval($0)) == .accepted }
        #expect(accepted == [0.0, 3.1, 7.0])
    }

    @Test func repeatsReportWhenTheWindowEnds() {
        var debouncer = Debouncer(window: 3)
        _ = debouncer.check("9780306406157", at: start)
        #expect(debouncer.check("9780306406157", at: start.addingTimeInterval(2.9))
            == .debounced(acceptedAt: start, until: start.addingTimeInterval(3)))
        // Exactly at t + window the seed's setTimeout has already fired.
        #expect(debouncer.check("9780306406157", at: start.addingTimeInterval(3)) == .accepted)
    }

    @Test func codesAreDebouncedIndependently() {
        var debouncer = Debouncer(window: 3)
        #expect(debouncer.check("9780306406157", at: start) == .accepted)
        #expect(debouncer.check("9781250313188", at: start.addingTimeInterval(0.5)) == .accepted)
        #expect(debouncer.check("9780306406157", at: start.addingTimeInterval(1)) != .accepted)
    }

    @Test func zeroWindowAcceptsEveryScan() {
        var debouncer = Debouncer(window: 0)
        #expect(debouncer.check("9780306406157", at: start) == .accepted)
        #expect(debouncer.check("9780306406157", at: start) == .accepted)
    }

    @Test func forgetsOldCodesWithoutChangingDecisions() {
        var debouncer = Debouncer(window: 3)
        // Enough distinct codes to trigger pruning; the last one must still be debounced.
        for i in 0..<3000 { _ = debouncer.check("code\(i)", at: start.addingTimeInterval(Double(i))) }
        #expect(debouncer.check("code2999", at: start.addingTimeInterval(3000)) != .accepted)
        #expect(debouncer.check("code0", at: start.addingTimeInterval(3000)) == .accepted)
    }
}
