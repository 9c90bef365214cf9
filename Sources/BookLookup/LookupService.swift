import BookCodes
import BookMetadata
import Catalogue
import Foundation
import MetadataSources
import WorkerPools

/// ISBN → book, the seed's lookup flow: the local cache first (no network), then each
/// source in order (Google Books, then Open Library) until one knows the book, which is
/// filed into the cache (workKey, best-data merge, isbnIndex) in one transaction.
/// A source that cannot answer never turns into "not found": the ISBN is queued in
/// pendingLookups and `retryPending` resolves it later.
public final class LookupService: Sendable {
    public let catalogue: any CatalogueStore
    public let sources: [any MetadataSource]
    public let schedule: RetrySchedule
    /// Shared by every lookup through this service: a source that cannot be reached is
    /// skipped (its books queued at once) until a probe finds it back.
    public let breaker: SourceBreaker
    private let clock: @Sendable () -> Date
    /// Network lookups in flight at once through `lookup` (nil: no bound). Cache hits need
    /// no permit; the others wait here, so they see the breaker's verdict on the ones before
    /// them instead of all queuing up behind a dead network.
    private let networkPermits: AsyncSemaphore?

    public init(catalogue: any CatalogueStore, sources: [any MetadataSource], clock: @escaping @Sendable () -> Date = { Date() },
                schedule: RetrySchedule = RetrySchedule(), breaker: SourceBreaker = SourceBreaker(),
                concurrentNetworkLookups: Int? = nil) {
        networkPermits = concurrentNetworkLookups.map { AsyncSemaphore(limit: max(1, $0)) }
        self.catalogue = catalogue
        self.sources = sources
        self.clock = clock
        self.schedule = schedule
        self.breaker = breaker
    }

    /// Looks `isbn` up. `offline` consults the cache and the local sources (a loaded dump)
    /// only; a miss is then `.unavailable`
    /// (queued only when an `intent` says a scan wants the book). Online, an unavailable
    /// answer always queues the ISBN with `intent` (default: look up only).
    public func lookup(_ isbn: ISBN13, offline: Bool = false, intent: PendingIntent? = nil) async -> LookupResult {
        do {
            if let work = try catalogue.work(forISBN: isbn) { return .found(work, fromCache: true) }
        } catch {
            return .unavailable(source: .database, reason: error.description)
        }
        if offline {
            // "No network": a dump on this machine still answers. What it lacks is not "not found".
            let local = sources.filter(\.isLocal)
            if !local.isEmpty, case let .found(edition) = await askSources(isbn, among: local),
               let work = try? catalogue.record(edition, for: isbn, now: clock()) {
                settlePending(isbn, callerWillOwn: intent?.addOwned ?? false)
                return .found(work, fromCache: false)
            }
            let reason = "not in the local cache (offline)"
            if let intent, let unqueued = queue(isbn, failure: nil, reason: reason, source: "offline", intent: intent) {
                return unqueued
            }
            return .unavailable(source: .offline, reason: reason)
        }
        if let networkPermits { await networkPermits.acquire() }
        defer { if let networkPermits { Task { await networkPermits.release() } } }
        let result = await resolve(isbn, intent: intent ?? .lookupOnly)
        switch result {
        case .found: settlePending(isbn, callerWillOwn: intent?.addOwned ?? false)
        case .notFound: try? catalogue.removePending(isbn: isbn)
        case .unavailable: break
        }
        return result
    }

    /// A queued row is done with once the book is known, unless an earlier scan wanted it
    /// owned and this caller will not add it: `retryPending` then adds it from the cache.
    private func settlePending(_ isbn: ISBN13, callerWillOwn: Bool) {
        guard let row = (try? catalogue.pendingLookup(isbn: isbn)) ?? nil else { return }
        if row.intent.addOwned && !callerWillOwn { return }
        try? catalogue.removePending(isbn: isbn)
    }

    /// Retries queued lookups (those due at `now`, or all of them), adding the books whose
    /// scan wanted them owned. Resolved rows are removed; rows still unavailable are
    /// rescheduled with a longer back-off. Lookups run a few at a time (the sources pace
    /// their own requests); books are then added in queue order, so which ones fit in a
    /// nearly full library does not depend on network timing.
    ///
    /// `own` adds a book (the intake's add: this service never writes to the library itself).
    public func retryPending(now: Date? = nil, onlyDue: Bool = true, maxConcurrent: Int = 4,
                             own: (ISBN13, Work, PendingIntent) throws(CatalogueError) -> AddOutcome) async throws(CatalogueError) -> [PendingRetryOutcome] {
        let now = now ?? clock()
        // A queue that cannot be read is a failure to report, never "nothing pending".
        // A shared server's rows are claimed: another station retrying at once skips them.
        let claim = try (catalogue as? any PendingClaims)?.claimPending(dueBefore: onlyDue ? now : nil)
        defer { claim?.release() }
        let rows = if let claim { claim.rows } else { try catalogue.pendingLookups(dueBefore: onlyDue ? now : nil) }
        // Rows are only ever written with valid ISBN-13s.
        let queued = rows.sorted { ($0.queuedAt, $0.isbn) < ($1.queuedAt, $1.isbn) }
            .compactMap { row in (try? ISBN13(validating: row.isbn)).map { (row, $0) } }
        let lookUp: @Sendable ((PendingLookup, ISBN13)) async -> LookupResult = { queued in
            if let cached = (try? self.catalogue.work(forISBN: queued.1)) ?? nil { return LookupResult.found(cached, fromCache: true) }
            return await self.resolve(queued.1, intent: .lookupOnly)
        }
        // The first lookup goes alone: it is the breaker's probe when the sources were
        // paused, and the others then either run or are queued again at once.
        var results: [LookupResult] = []
        if let first = queued.first { results.append(await lookUp(first)) }
        results += await concurrentMap(Array(queued.dropFirst()), width: maxConcurrent) { await lookUp($0) }
        return zip(queued, results).map { queued, result in settle(queued.0, isbn: queued.1, result: result, own: own) }
    }

    /// Title/author search: the cache (case-insensitive title prefix) first, then each
    /// source in order (offline: the local ones); what a source returns is recorded into the cache.
    public func search(title: String, author: String? = nil, offline: Bool = false, limit: Int = 20) async -> SearchOutcome {
        let cached = (try? catalogue.searchWorks(title: title, author: author, limit: limit)) ?? []
        let asked = offline ? sources.filter(\.isLocal) : sources
        if !cached.isEmpty || asked.isEmpty {
            return SearchOutcome(works: cached, source: cached.isEmpty ? nil : .cache, failures: [])
        }
        var failures: [SourceFailure] = []
        for source in asked {
            do {
                var seen = Set<String>()
                let works = try await search(source, title: title, author: author, limit: limit).map(\.work)
                    .filter { seen.insert($0.workKey).inserted }
                if !works.isEmpty { return SearchOutcome(works: works, source: .source(source.name), failures: failures) }
            } catch {
                failures.append(error)
                // Answers the cache cannot file are no answer (a caller must not take "nothing found" from it).
                if error.source == LookupProvenance.database.name { return SearchOutcome(works: [], source: nil, failures: failures) }
            }
        }
        return SearchOutcome(works: [], source: nil, failures: failures)
    }

    /// One source's title/author search (the one way every search asks a source, spine
    /// candidates included): a source the breaker paused is not asked (its pause is the
    /// failure), its answer or failure is recorded with the breaker, and what it returns is
    /// filed into the cache. Offline, a source that is not local answers nothing.
    /// The failure names the source, or the database when the cache could not file the answer.
    public func search(_ source: any MetadataSource, title: String, author: String?, offline: Bool = false,
                       limit: Int = 20) async throws(SourceFailure) -> [SearchHit] {
        if offline && !source.isLocal { return [] }
        if let paused = breaker.pausedError(for: source.name, now: clock()) {
            throw SourceFailure(source: source.name, error: paused)
        }
        let editions: [EditionMetadata]
        do {
            editions = try await source.search(title: title, author: author, limit: limit)
            breaker.record(.success(()), for: source.name, now: clock())
        } catch {
            breaker.record(.failure(error), for: source.name, now: clock())
            throw SourceFailure(source: source.name, error: error)
        }
        do {
            return try editions.map { edition throws(CatalogueError) in
                SearchHit(edition: edition, work: try catalogue.recordSearchResult(edition, now: clock()))
            }
        } catch {
            throw SourceFailure(source: LookupProvenance.database.name, error: .badResponse("\(catalogue.location): \(error)"))
        }
    }

    // MARK: - Steps

    private enum RemoteAnswer {
        case found(EditionMetadata)
        case notFound
        case unavailable([SourceFailure])
    }

    /// Asks each source in order (all, or those given) until one has the book.
    private func askSources(_ isbn: ISBN13, among chosen: [any MetadataSource]? = nil) async -> RemoteAnswer {
        let sources = chosen ?? self.sources
        var failures: [SourceFailure] = []
        for source in sources {
            if let paused = breaker.pausedError(for: source.name, now: clock()) {
                failures.append(SourceFailure(source: source.name, error: paused))
                continue
            }
            do {
                let edition = try await source.edition(isbn: isbn)
                breaker.record(.success(()), for: source.name, now: clock())
                if let edition { return .found(edition) }
            } catch {
                breaker.record(.failure(error), for: source.name, now: clock())
                failures.append(SourceFailure(source: source.name, error: error))
            }
        }
        if sources.isEmpty {
            failures.append(SourceFailure(source: "none", error: .badResponse("no metadata source is enabled")))
        }
        return failures.isEmpty ? .notFound : .unavailable(failures)
    }

    private func resolve(_ isbn: ISBN13, intent: PendingIntent) async -> LookupResult {
        switch await askSources(isbn) {
        case let .found(edition):
            do {
                return .found(try catalogue.record(edition, for: isbn, now: clock()), fromCache: false)
            } catch {
                _ = queue(isbn, failure: nil, reason: error.description, source: "database", intent: intent)
                return .unavailable(source: .database, reason: error.description)
            }
        case .notFound:
            return .notFound
        case let .unavailable(failures):
            let first = failures[0]
            if let unqueued = queue(isbn, failure: first.error, reason: failures.map(\.description).joined(separator: "; "),
                                    source: first.source, intent: intent) {
                return unqueued
            }
            return .unavailable(source: .source(first.source), reason: first.error.description)
        }
    }

    /// Queues `isbn`; nil when it is queued, else the failure to report: a book that could
    /// not be queued must not be reported "queued" (nor its file marked processed), so it
    /// comes back as a database failure.
    private func queue(_ isbn: ISBN13, failure: SourceError?, reason: String, source: String,
                       intent: PendingIntent) -> LookupResult? {
        let now = clock()
        do {
            let attempts = ((try catalogue.pendingLookup(isbn: isbn))?.attempts ?? 0) + 1
            let next = now.addingTimeInterval(schedule.delay(afterAttempts: attempts, error: failure))
            try catalogue.enqueuePending(isbn: isbn, reason: reason, source: source, nextRetryAt: next, intent: intent, now: now)
            return nil
        } catch {
            return .unavailable(source: .database, reason: "\(isbn.digits) could not be queued for a later lookup: \(error)")
        }
    }

    /// What a retried lookup leaves behind: the book added when the scan wanted it, the row
    /// removed once resolved (found or known to no source), or kept for the next retry.
    private func settle(_ row: PendingLookup, isbn: ISBN13, result: LookupResult,
                        own: (ISBN13, Work, PendingIntent) throws(CatalogueError) -> AddOutcome) -> PendingRetryOutcome {
        if case .notFound = result { try? catalogue.removePending(isbn: isbn) }
        guard case let .found(work, _) = result else {
            let stillPending = (try? catalogue.pendingLookup(isbn: isbn)) ?? nil
            return PendingRetryOutcome(isbn: isbn, result: result, added: nil, stillPending: stillPending)
        }
        var added: AddOutcome?
        if row.intent.addOwned {
            do {
                added = try own(isbn, work, row.intent)
            } catch {
                // Keep the row so the wish to own the book is not lost.
                _ = queue(isbn, failure: nil, reason: error.description, source: "database", intent: row.intent)
                let stillPending = (try? catalogue.pendingLookup(isbn: isbn)) ?? nil
                return PendingRetryOutcome(isbn: isbn, result: result, added: nil, stillPending: stillPending)
            }
            // Library Full: the book stays queued (listed by `pending`, due again at once)
            // so `pending retry` adds it once the plan allows.
            if case let .libraryFull(owned, limit)? = added {
                let now = clock()
                let kept = try? catalogue.enqueuePending(
                    isbn: isbn, reason: "library full (\(owned)/\(limit) books): added once the plan allows",
                    source: "library", nextRetryAt: now, intent: row.intent, now: now)
                return PendingRetryOutcome(isbn: isbn, result: result, added: added, stillPending: kept)
            }
        }
        // Only after the book is owned: a crash before this line retries and finds it owned.
        try? catalogue.removePending(isbn: isbn)
        return PendingRetryOutcome(isbn: isbn, result: result, added: added, stillPending: nil)
    }
}
