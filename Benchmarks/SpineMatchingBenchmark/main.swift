import BookCodes
import BookMetadata
import Catalogue
import Foundation
import SpineMatching
import SpineScanning

// Usage: SpineMatchingBenchmark TABLE.csv GOODBOOKS.csv [repeats] [TRAPS.csv SHELF-LABELS.json] [--distinctiveness]
// Prints the table's precision/recall and the matching time per reading against an
// in-memory index of the 10,000 goodbooks works; with a trap table, its false strong matches
// against the works plus the shelves' books; --distinctiveness: how many titles of each shape
// lie within strong distance of another book's title (SpineMatcher.standsAlone's measurement).
var arguments = CommandLine.arguments
let measuresDistinctiveness = arguments.contains("--distinctiveness")
arguments.removeAll { $0 == "--distinctiveness" }
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: SpineMatchingBenchmark TABLE.csv GOODBOOKS.csv [repeats] [TRAPS.csv SHELF-LABELS.json] [--distinctiveness]\n".utf8))
    exit(64)
}
let repeats = arguments.count > 3 ? Int(arguments[3]) ?? 5 : 5
let verbose = ProcessInfo.processInfo.environment["VERBOSE"] != nil
let table = try MatchingTable.load(table: URL(fileURLWithPath: arguments[1]), goodbooks: URL(fileURLWithPath: arguments[2]))
let clock = ContinuousClock()
let buildStart = clock.now
let index = WorkIndex(table.catalogue)
let buildTime = clock.now - buildStart
let matcher = SpineMatcher()
let report = table.evaluate(matcher, index: index)
print(report.summary)
if !report.wrongStrong.isEmpty { print("wrong strong matches:\n  " + report.wrongStrong.joined(separator: "\n  ")) }
if verbose { print("disagreements:\n  " + report.disagreements.joined(separator: "\n  ")) }
var shelvesIndex: WorkIndex?
if arguments.count > 5 {
    let traps = try TrapTable.load(traps: URL(fileURLWithPath: arguments[4]), goodbooks: URL(fileURLWithPath: arguments[2]),
                                   shelves: URL(fileURLWithPath: arguments[5]))
    let trapIndex = WorkIndex(traps.catalogue)
    shelvesIndex = trapIndex
    let wrong = traps.falseStrongMatches(matcher, index: trapIndex)
    print("trap table: \(traps.rows.count) junk readings against \(trapIndex.count) works (goodbooks + the shelves' books): "
        + "false strong matches \(wrong.count) (target 0), for review \(traps.reviewMatches(matcher, index: trapIndex))")
    for line in wrong { print("  FALSE STRONG: \(line)") }
}
if measuresDistinctiveness {
    print("distinctiveness (titles of the catalogue by shape):")
    print(TitleDistinctiveness.summary(TitleDistinctiveness.measure(index, matcher: matcher)))
    // goodbooks holds four Japanese titles: the Chinese ones are the labelled shelves' books.
    if let shelvesIndex {
        print("Chinese/Japanese titles, the works plus the shelves' books:")
        print(TitleDistinctiveness.summary(TitleDistinctiveness.measure(shelvesIndex, matcher: matcher).filter(\.ideographic)))
    }
}
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}
let cpuStart = cpuSeconds()
let start = clock.now
for _ in 0..<repeats {
    for row in table.rows { _ = matcher.match(row.reading, index: index) }
}
let elapsed = clock.now - start
let perReading = elapsed / (repeats * table.rows.count)
print("index: \(index.count) works built in \(buildTime)")
let cpu = cpuSeconds() - cpuStart
print("matching: \(repeats * table.rows.count) readings in \(elapsed) wall, \(String(format: "%.2f", cpu)) s CPU")
print("per reading: \(String(format: "%.3f", Double(perReading.components.attoseconds) / 1e15)) ms wall, \(String(format: "%.3f", cpu * 1000 / Double(repeats * table.rows.count))) ms CPU")

// The production path: the same 10,000 works filed into a real SQLite cache (Catalogue),
// read back by CacheCandidateSource, every reading matched through SpineMatcher.match(_:sources:).
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spine-bench-\(ProcessInfo.processInfo.processIdentifier)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let catalogue = try Catalogue(path: folder.appendingPathComponent("cache.sqlite").path)
let editions = table.catalogue.compactMap { work -> (EditionMetadata, ISBN13)? in
    guard let text = work.isbn13, let isbn = try? ISBN13(validating: text) else { return nil }
    return (EditionMetadata(isbn13: text, title: work.title, authors: work.authors, apiSource: "googleBooks"), isbn)
}
try catalogue.recordAll(editions)
let cache = CacheCandidateSource(catalogue: catalogue)
let loadStart = clock.now
_ = try await cache.candidates(for: CandidateQuery(title: "warm up", author: nil, text: "warm up"), limit: 1)
let loadTime = clock.now - loadStart
let sqliteCPUStart = cpuSeconds()
let sqliteStart = clock.now
var sqliteStrong = 0
for row in table.rows where await matcher.match(row.reading, sources: [cache]).decision == .strong { sqliteStrong += 1 }
let sqliteElapsed = clock.now - sqliteStart
let sqliteCPU = cpuSeconds() - sqliteCPUStart
print("sqlite cache: \(editions.count) editions filed; index loaded from SQLite in \(loadTime); \(sqliteStrong) strong")
print("per reading through the cache source: \(String(format: "%.3f", Double((sqliteElapsed / table.rows.count).components.attoseconds) / 1e15)) ms wall, \(String(format: "%.3f", sqliteCPU * 1000 / Double(table.rows.count))) ms CPU")
