import Foundation
import SpineMatching

// Usage: SpineMatchingBenchmark TABLE.csv GOODBOOKS.csv [repeats]
// Prints the table's precision/recall and the matching time per reading against an
// in-memory index of the 10,000 goodbooks works.
let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: SpineMatchingBenchmark TABLE.csv GOODBOOKS.csv [repeats]\n".utf8))
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
