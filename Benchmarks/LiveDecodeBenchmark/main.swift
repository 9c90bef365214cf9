// CPU per stage of reading one webcam frame, and how many of the frames' codes each way
// reads (run by scripts/bench-watch --stages; VERBOSE=1 lists every frame's reads).
import BarcodeReading
import BookCodes
import Foundation
import Imaging

/// This thread's CPU time, in milliseconds: the machine is shared, wall time is not the cost.
func threadCPU() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) * 1000 + Double(spec.tv_nsec) / 1_000_000
}

func measure<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let start = threadCPU()
    let value = try body()
    return (value, threadCPU() - start)
}

struct Frame {
    let name: String
    let data: Data
    let expected: Set<String>
}

func frames(in directory: String) throws -> [Frame] {
    let manifest = try String(contentsOfFile: directory + "/manifest.tsv", encoding: .utf8)
    return try manifest.split(separator: "\n").dropFirst().map { line in
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        let name = String(fields[0])
        // Main codes only: an add-on is not what makes a frame read.
        let expected = Set(fields[1].split(separator: " ").map(String.init).filter { !$0.hasPrefix("EAN-2") && !$0.hasPrefix("EAN-5") })
        return Frame(name: name, data: try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)), expected: expected)
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

let arguments = Array(CommandLine.arguments.dropFirst())
let runs = 3
for directory in arguments {
    let set = try frames(in: directory)
    print("\(directory): \(set.count) frames, median thread CPU ms of \(runs) runs per frame")
    var stageTimes: [String: [Double]] = [:]
    var readCounts: [String: (right: Int, wrong: Int)] = [:]
    let expectedCodes = set.map(\.expected.count).reduce(0, +)
    func note(_ stage: String, _ ms: Double) { stageTimes[stage, default: []].append(ms) }
    /// Codes read (of all the frames' codes) and frames with a code that is not on them.
    func score(_ label: String, _ codes: [Detection], _ frame: Frame) {
        let texts = Set(codes.filter { $0.symbology != .ean2 && $0.symbology != .ean5 }.map { "\($0.symbology.rawValue):\($0.text)" })
        var count = readCounts[label] ?? (0, 0)
        count.right += texts.intersection(frame.expected).count
        if !texts.isSubset(of: frame.expected) {
            count.wrong += 1
            print("  wrong: \(label): \(frame.name) read \(texts.sorted()), expected \(frame.expected.sorted())")
        }
        if ProcessInfo.processInfo.environment["VERBOSE"] != nil { print("  \(frame.name) \(label): \(texts.sorted())") }
        readCounts[label] = count
    }
    let d2 = try BarcodeReader(density: 2)
    let d1 = try BarcodeReader(density: 1)
    let live = try LiveFrameReader()
    let variants: [(String, LiveFrameReader)] = try [
        ("live, reduced first", live),
        ("live, full size only", try LiveFrameReader(coarseFirst: false)),
    ]
    for frame in set {
        for run in 0..<runs {
            let url = URL(fileURLWithPath: directory + "/" + frame.name)
            let (_, readMs) = try measure { try Data(contentsOf: url) }
            note("read file", readMs)
            let (full, fullMs) = try measure { try ImageLoader.load(data: frame.data, name: frame.name) }
            note("decode full", fullMs)
            let (half, halfMs) = try measure { try ImageLoader.load(data: frame.data, name: frame.name, options: .init(jpegScale: .half)) }
            note("decode 1/2 DCT", halfMs)
            let (fastFull, fastMs) = try measure { try ImageLoader.load(data: frame.data, name: frame.name, options: .init(fastJPEGDecoding: true)) }
            note("decode full fast DCT", fastMs)
            _ = fastFull
            let (boxHalf, boxMs) = measure { full.image.downscaled(by: 2) }
            note("downscale full 2x", boxMs)
            let (old, oldMs) = measure { d2.scan(full.image) }
            note("zbar d2 full (today)", oldMs)
            let (fullD1, fullD1Ms) = measure { d1.scan(full.image) }
            note("zbar d1 full", fullD1Ms)
            let (halfD2, halfD2Ms) = measure { d2.scan(half.image) }
            note("zbar d2 1/2 DCT", halfD2Ms)
            let (halfD1, halfD1Ms) = measure { d1.scan(half.image) }
            note("zbar d1 1/2 DCT", halfD1Ms)
            let (boxD1, boxD1Ms) = measure { d1.scan(boxHalf) }
            note("zbar d1 1/2 box", boxD1Ms)
            var liveReads: [(String, Result<LiveFrameReader.Reading, ImageError>)] = []
            for (label, variant) in variants {
                let (read, ms) = measure { Result { () throws(ImageError) in try variant.read(data: frame.data, name: frame.name) } }
                note(label, ms)
                liveReads.append((label, read))
            }
            guard run == 0 else { continue }
            score("today: full d2, any valid", old.filter(\.isValid), frame)
            score("today: full d2, quality>=6", old.filter { $0.isValid && $0.quality >= 6 }, frame)
            score("full d1, quality>=6", fullD1.filter { $0.isValid && $0.quality >= 6 }, frame)
            score("1/2 DCT d2, quality>=6", halfD2.filter { $0.isValid && $0.quality >= 6 }, frame)
            score("1/2 DCT d1, quality>=6", halfD1.filter { $0.isValid && $0.quality >= 6 }, frame)
            score("1/2 box d1, quality>=6", boxD1.filter { $0.isValid && $0.quality >= 6 }, frame)
            for (label, read) in liveReads {
                let codes = (try? read.get())?.codes ?? []
                score(label, codes, frame)
                if label == "live, reduced first", let result = try? read.get() {
                    if result.passes.count > 1, ProcessInfo.processInfo.environment["VERBOSE"] != nil {
                        print("  \(frame.name): \(result.passes.joined(separator: " → ")) → \(result.codes.map { "\($0.text) q\($0.quality)" })")
                    }
                    for pass in Set(result.passes) { stageTimes["passes: " + pass, default: []].append(0) }
                }
            }
        }
    }
    for (stage, times) in stageTimes.sorted(by: { $0.key < $1.key }) {
        if stage.hasPrefix("passes: ") {
            print(String(format: "  %-44@ %d frames", stage as NSString, times.count))
        } else {
            print(String(format: "  %-44@ median %6.2f  mean %6.2f ms", stage as NSString, median(times), times.reduce(0, +) / Double(times.count)))
        }
    }
    for (label, count) in readCounts.sorted(by: { $0.key < $1.key }) {
        print(String(format: "  read %-36@ %3d/%d codes, %d frames with a wrong code", label as NSString, count.right, expectedCodes, count.wrong))
    }
}
