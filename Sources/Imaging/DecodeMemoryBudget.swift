import Foundation

/// Decode memory shared by every thread of the process: a decode reserves what it will
/// allocate before it starts and waits while others hold the rest, so N workers on N huge
/// images cannot hold N times the memory of one. A reservation larger than the whole budget
/// is capped at it (it runs alone); the per-file plausibility check in the codec keeps that
/// one bounded too.
public final class DecodeMemoryBudget: @unchecked Sendable {
    /// 256 MB: two workers decoding 12 MP photos at full scale never wait on each other.
    public static let shared = DecodeMemoryBudget(total: 256 << 20)

    public let total: Int
    private let condition = NSCondition()
    private var used = 0

    public init(total: Int) {
        self.total = max(1, total)
    }

    public var inUse: Int {
        condition.lock(); defer { condition.unlock() }
        return used
    }

    /// Blocks until `bytes` (capped at `total`) fit; returns what was reserved.
    public func reserve(_ bytes: Int) -> Int {
        let amount = min(max(bytes, 0), total)
        condition.lock()
        while used + amount > total { condition.wait() }
        used += amount
        condition.unlock()
        return amount
    }

    public func release(_ reserved: Int) {
        condition.lock()
        used -= reserved
        condition.broadcast()
        condition.unlock()
    }

    /// Runs `body` holding a reservation of `bytes`.
    public func withReservation<T, E: Error>(_ bytes: Int, _ body: () throws(E) -> T) throws(E) -> T {
        let reserved = reserve(bytes)
        defer { release(reserved) }
        return try body()
    }
}
