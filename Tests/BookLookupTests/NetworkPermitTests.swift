import BookCodes
import BookMetadata
import BookLookup
import Catalogue
import Foundation
import MetadataSources
import Synchronization
import TestSupport
import Testing

/// `LookupService(concurrentNetworkLookups:)`: the bound a scan puts on its lookups lives in
/// the service, after the one cache read, so a cache hit never waits for a permit.
@Suite struct NetworkPermitTests {
    @Test func networkLookupsAreBoundedAndCacheHitsPassFreely() async throws {
        try await withTemporaryDirectory { folder in
            let catalogue = try Catalogue(path: folder.appendingPathComponent("library.sqlite").path)
            let cached = generatedISBN(1, prefix: "978")
            _ = try catalogue.record(EditionMetadata(isbn13: cached.digits, title: "Cached", authors: ["A"], apiSource: "googleBooks"),
                                     for: cached)
            let source = GatedSource()
            let service = LookupService(catalogue: catalogue, sources: [source], concurrentNetworkLookups: 2)
            let misses = generatedISBNs(5, startingAt: 10, prefix: "978")
            let lookups = Task {
                await withTaskGroup(of: Void.self) { group in
                    for isbn in misses { group.addTask { _ = await service.lookup(isbn) } }
                }
            }
            // Two lookups hold the permits and wait at the source.
            for _ in 0..<500 where source.inFlight < 2 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(source.inFlight == 2)
            // A cache hit answers while every permit is taken.
            let hit = await service.lookup(cached)
            #expect(hit.work?.title == "Cached")
            try await Task.sleep(for: .milliseconds(100))
            #expect(source.inFlight == 2, "no third network lookup while two are in flight")
            source.open()
            await lookups.value
            #expect(source.maxInFlight == 2)
            #expect(source.calls == 5)
        }
    }
}

/// A source whose answers wait until `open()`, counting how many calls are in flight at once.
private final class GatedSource: MetadataSource {
    let name = "gated"
    private struct State { var open = false, inFlight = 0, maxInFlight = 0, calls = 0 }
    private let state = Mutex(State())

    var inFlight: Int { state.withLock { $0.inFlight } }
    var maxInFlight: Int { state.withLock { $0.maxInFlight } }
    var calls: Int { state.withLock { $0.calls } }
    func open() { state.withLock { $0.open = true } }

    func edition(isbn: ISBN13) async throws(SourceError) -> EditionMetadata? {
        state.withLock { s in
            s.inFlight += 1
            s.calls += 1
            s.maxInFlight = max(s.maxInFlight, s.inFlight)
        }
        while !state.withLock({ $0.open }) { try? await Task.sleep(for: .milliseconds(5)) }
        state.withLock { $0.inFlight -= 1 }
        return EditionMetadata(isbn13: isbn.digits, title: "Book \(isbn.digits)", authors: ["B"], apiSource: name)
    }

    func search(title: String, author: String?, limit: Int) async throws(SourceError) -> [EditionMetadata] { [] }
}
