import Foundation

/// CPU time the calling thread has used since the clock was made (not wall time: a busy
/// machine's waits are not counted), for per-file costs measured on worker threads.
public struct ThreadCPUClock: Sendable {
    private let start = ThreadCPUClock.nanoseconds()

    public init() {}

    public var milliseconds: Double { Double(ThreadCPUClock.nanoseconds() - start) / 1_000_000 }

    /// The calling thread's CPU time so far (for deadlines checked on that thread).
    public static func nanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}
