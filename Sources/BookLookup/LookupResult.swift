import BookCodes
import BookMetadata
import Catalogue
import Foundation
import MetadataSources

/// The answer to "which book is this ISBN?".
public enum LookupResult: Sendable, Hashable {
    /// The work the ISBN belongs to; `fromCache` when no source was asked.
    case found(Work, fromCache: Bool)
    /// Every source answered "no such book".
    case notFound
    /// A source could not answer (network, quota, server error) and none found the book;
    /// the ISBN is kept in pendingLookups for a later retry. Never a "not found".
    case unavailable(source: LookupProvenance, reason: String)

    public var work: Work? {
        if case let .found(work, _) = self { return work }
        return nil
    }
}

/// Where a lookup was answered, or who is awaited when it was not: the one typed answer
/// every command and the scan pipeline report (its `name` is the `"source"` in output).
public enum LookupProvenance: Sendable, Hashable, CustomStringConvertible {
    /// A metadata source by its name ("googleBooks", "openLibrary").
    case source(String)
    /// The local cache (no network).
    case cache
    /// The library database (reading or queueing failed there).
    case database
    /// `--offline`: only the cache was asked; a miss waits for `pending retry`.
    case offline

    public var name: String {
        switch self {
        case .source(let name): name
        case .cache: "cache"
        case .database: "database"
        case .offline: "offline"
        }
    }

    /// What a person reads: "Google Books", "the local cache", "the library database", "offline".
    public var displayName: String {
        switch self {
        case .source(let name): SourceDisplayName.of(name)
        case .cache: "the local cache"
        case .database: "the library database"
        case .offline: "offline"
        }
    }

    public var description: String { name }
}

/// One source that could not answer, and why.
public struct SourceFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public let source: String
    public let error: SourceError

    public init(source: String, error: SourceError) {
        self.source = source
        self.error = error
    }

    public var description: String { "\(source): \(error)" }
}

/// An edition a source's search returned, with the cached work it was filed under.
public struct SearchHit: Sendable, Hashable {
    public let edition: EditionMetadata
    public let work: Work
}

/// A title/author search: works from the cache or the first source that had any.
public struct SearchOutcome: Sendable, Hashable {
    public var works: [Work]
    /// The cache or the source that had works; nil when nothing was found anywhere.
    public var source: LookupProvenance?
    /// Sources that could not answer; when `works` is empty and this is not, the search
    /// is inconclusive rather than empty.
    public var failures: [SourceFailure]
}

/// What `retryPending` did with one queued ISBN.
public struct PendingRetryOutcome: Sendable, Hashable {
    public let isbn: ISBN13
    public let result: LookupResult
    /// Set when the scan that queued it wanted the book owned and it was found.
    public let added: AddOutcome?
    /// The row as rescheduled, when the lookup is still unavailable.
    public let stillPending: PendingLookup?
}

/// When to try a pending lookup again: exponential back-off from `base`, capped at
/// `maximum`, ± `jitter` so many queued ISBNs do not retry in lockstep; never sooner than
/// a server's Retry-After, nor than an hour after a daily-quota answer.
public struct RetrySchedule: Sendable, Hashable {
    public var base: TimeInterval
    public var maximum: TimeInterval
    public var jitter: Double

    public init(base: TimeInterval = 60, maximum: TimeInterval = 6 * 3600, jitter: Double = 0.2) {
        self.base = base
        self.maximum = maximum
        self.jitter = jitter
    }

    /// The delay after the `attempts`-th failed attempt (1 for the first).
    public func delay(afterAttempts attempts: Int, error: SourceError?, random: Double = Double.random(in: 0...1)) -> TimeInterval {
        var delay = Backoff(base: base, maximum: maximum, spread: max(0, 1 - abs(jitter))...(1 + abs(jitter))).delay(afterAttempt: attempts, random: random)
        if let retryAfter = error?.retryAfter { delay = max(delay, retryAfter) }
        if error == .quotaExceeded { delay = max(delay, 3600) }
        return delay
    }
}
