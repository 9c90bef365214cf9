import BookCodes
import BookLookup
import BookMetadata
import Catalogue
import Foundation
import MetadataSources
import Testing
import TestSupport

/// `--offline` means no network, not "cache only": a source on this machine (a loaded dump)
/// still answers, and network sources are never asked.
@Suite struct LocalSourceOrderTests {
    @Test func offlineAsksOnlyTheLocalSourceAndFilesItsAnswer() async throws {
        let network = FakeSource(error: .network("cannot connect to 127.0.0.1"))
        let local = LocalFake(known: [isbn("9780439023481"): "The Hunger Games"])
        let service = LookupService(catalogue: try Catalogue.inMemory(), sources: [network, local])

        guard case let .found(work, fromCache) = await service.lookup(isbn("9780439023481"), offline: true) else {
            Issue.record("the local source's answer was not used offline")
            return
        }
        #expect(work.title == "The Hunger Games" && !fromCache && work.apiSource == "localFake")
        #expect(network.calls == 0)
        // What the local source lacks is unavailable offline (the network may know it), never "not found".
        guard case .unavailable = await service.lookup(isbn("9780306406157"), offline: true) else {
            Issue.record("a book the dump lacks was settled offline")
            return
        }
        #expect(network.calls == 0)
        let search = await service.search(title: "hunger", offline: true)
        #expect(search.works.first?.title == "The Hunger Games")
        #expect(network.calls == 0)
    }
}

/// A local source knowing a few books.
private struct LocalFake: MetadataSource {
    let name = "localFake"
    let isLocal = true
    let known: [ISBN13: String]

    func edition(isbn: ISBN13) async throws(SourceError) -> EditionMetadata? {
        known[isbn].map { EditionMetadata(isbn13: isbn.digits, title: $0, authors: ["Suzanne Collins"], apiSource: name) }
    }

    func search(title: String, author: String?, limit: Int) async throws(SourceError) -> [EditionMetadata] {
        known.filter { $0.value.lowercased().contains(title.lowercased()) }
            .map { EditionMetadata(isbn13: $0.key.digits, title: $0.value, authors: ["Suzanne Collins"], apiSource: name) }
    }
}
