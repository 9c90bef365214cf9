import Foundation
import Synchronization

/// Pending lookups one process retries while every other process skips them: on a shared
/// server, `pending retry` at two stations at once retries each code once. A store one
/// machine owns (a SQLite file) needs no claim and does not conform; its queue is read as it is.
public protocol PendingClaims: AnyObject, Sendable {
    /// The rows due at `dueBefore` (all when nil) that no other process holds, earliest
    /// retry first, held by this process until the claim is released (or the process ends).
    func claimPending(dueBefore: Date?) throws(CatalogueError) -> PendingClaim
}

/// Rows held for one retry run; `release` (or the claim's end) lets other processes have them.
public final class PendingClaim: Sendable {
    public let rows: [PendingLookup]
    private let releaser: Mutex<(@Sendable () -> Void)?>

    public init(rows: [PendingLookup], release: @escaping @Sendable () -> Void) {
        self.rows = rows
        releaser = Mutex(release)
    }

    public func release() {
        let release = releaser.withLock { held in
            defer { held = nil }
            return held
        }
        release?()
    }

    deinit { release() }
}
