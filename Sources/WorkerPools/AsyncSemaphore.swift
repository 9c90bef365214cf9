/// A counting semaphore for tasks: `acquire` suspends (never blocks a thread) until one of
/// `limit` permits is free. Bounds the HTTP requests in flight (MetadataSources.HTTPClient) and
/// the network lookups of a scan (BookLookup.LookupService's concurrentNetworkLookups).
public actor AsyncSemaphore {
    private var available: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    public init(limit: Int) {
        available = max(1, limit)
    }

    public func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// Tasks waiting for a permit (tests wait for a queue to form).
    var waiting: Int { waiters.count }

    public func release() {
        if waiters.isEmpty {
            available += 1
        } else {
            // Hand the slot straight to the next waiter.
            waiters.removeFirst().resume()
        }
    }
}
