import ArgumentParser
import BookCodes
import BookLookup
import BookMetadata
import Catalogue
import Foundation

/// Hidden: measures cache-hit lookups (`LookupService.lookup(offline:)`) in a large cache.
/// scripts/bench-lookup runs it; not a user command.
struct CacheBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Fill the cache with generated works and time cache-hit lookups.",
        shouldDisplay: false)

    @Option(help: "Works the cache should hold (generated ones are added up to this count).")
    var works = 100_000

    @Option(help: "Cache-hit lookups to time.")
    var lookups = 10_000

    @Option(name: .customLong("write-isbns"), help: ArgumentHelp("Write the looked-up ISBNs here, one per line.", valueName: "path"))
    var writeISBNs: String?

    @OptionGroup var library: LibraryOptions

    func validate() throws {
        guard works > 0, works < 100_000_000, lookups > 0 else { throw ValidationError("--works and --lookups must be positive.") }
    }

    func run() async throws {
        let settings = try library.settings()
        let catalogue = try library.openCatalogue(settings)
        let have = try catalogue.stats().isbnIndexEntries
        if have < works {
            let start = ContinuousClock.now
            let editions = (have..<works).map { n in
                (EditionMetadata(title: "Benchmark Book \(n)", authors: ["Author \(n % 9973)"], categories: ["Benchmark"],
                                 pageCount: 100 + n % 400, publishDate: "2001", apiSource: "manual"), Self.isbn(n))
            }
            try catalogue.recordAll(editions)
            print("filled \(works - have) works in \(ContinuousClock.now - start)")
        }
        let service = LookupService(catalogue: catalogue, sources: [])
        // A fixed pseudo-random sample spread over the whole cache.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let sample = (0..<lookups).map { _ -> ISBN13 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Self.isbn(Int((state >> 33) % UInt64(works)))
        }
        var durations: [Double] = []
        durations.reserveCapacity(lookups)
        let clock = ContinuousClock()
        for isbn in sample {
            let start = clock.now
            let result = await service.lookup(isbn, offline: true)
            let elapsed = clock.now - start
            guard case .found = result else { throw ValidationError("\(isbn) missing from the cache: \(result)") }
            durations.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        }
        durations.sort()
        let total = durations.reduce(0, +)
        func percentile(_ p: Double) -> Double { durations[min(durations.count - 1, Int(Double(durations.count) * p))] }
        print(String(format: "cache-hit lookups: %d in a %d-work cache: median %.3f ms, p99 %.3f ms, mean %.3f ms, total %.2f s",
                     lookups, works, percentile(0.5), percentile(0.99), total / Double(lookups), total / 1000))
        if let writeISBNs {
            try sample.map(\.digits).joined(separator: "\n").appending("\n").write(toFile: writeISBNs, atomically: true, encoding: .utf8)
        }
    }

    /// The n-th generated ISBN-13 in the 979-8 range (no real book is touched by accident).
    static func isbn(_ n: Int) -> ISBN13 {
        let body = "9798" + String(format: "%08d", n)
        // The one check digit that validates.
        return (0...9).lazy.compactMap { try? ISBN13(validating: body + String($0)) }.first!
    }
}
