import BookLookup
import Testing

/// A queued lookup's schedule: the shared back-off, ± jitter, never sooner than a daily quota allows.
@Suite struct RetryScheduleTests {
    @Test func backsOffFromAMinuteWithJitterAndQuotaFloor() {
        let queued = RetrySchedule(base: 60, maximum: 6 * 3600, jitter: 0.2)
        #expect(queued.delay(afterAttempts: 2, error: nil, random: 0.5) == 120)
        #expect(queued.delay(afterAttempts: 2, error: nil, random: 0) == 96)
        #expect(queued.delay(afterAttempts: 2, error: nil, random: 1) == 144)
        #expect(queued.delay(afterAttempts: 30, error: nil, random: 0.5) == 6 * 3600)
        #expect(queued.delay(afterAttempts: 1, error: .quotaExceeded, random: 0.5) == 3600)
        #expect(queued.delay(afterAttempts: 1, error: .rateLimited(retryAfter: 300), random: 0.5) == 300)
    }
}
