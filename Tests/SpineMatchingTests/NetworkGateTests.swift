import Foundation
import SpineMatching
import Synchronization
import Testing
import Vision

/// No waiting for junk: a reading that is mostly texture read as letters is matched against what
/// is on this machine only, never sent to a network source; a reading with words is.
@Suite struct NetworkGateTests {
    /// A source that records what it is asked and knows one book (a network one unless told).
    final class CountingNetworkSource: CandidateSource, Sendable {
        let asked = Mutex<[String]>([])
        let asksNetwork: Bool
        init(asksNetwork: Bool = true) { self.asksNetwork = asksNetwork }
        let index = WorkIndex([MatchCandidate(workKey: "civil", title: "Civil Engineering Materials", authors: ["Neil Jackson"],
                                              isbn13: "9780333639634", source: "network")])
        func candidates(for query: CandidateQuery, limit: Int) async throws -> [PreparedCandidate] {
            asked.withLock { $0.append(query.text) }
            return index.candidates(for: query, limit: limit)
        }
    }

    /// Readings from the real shelves' OCR (scripts/bench-spines-ocr) that matched nothing there.
    static let texture: [(String, Double)] = [
        ("ERHRKRSERE", 0.0), ("FEPESEES", 0.0), ("SSBSE resesesers", 0.02), ("wtemene Biseeas", 0.0),
        ("seseene", 0.0), ("KRERAME", 0.26), ("Dissics Biisy Beapcdioion", 0.0), ("BLOOOSWORN", 0.83),
        ("sHEE", 0.9), ("TrRrKbsS", 0.9),
    ]

    @Test func textureReadAsLettersAsksNoNetworkSource() async {
        let source = CountingNetworkSource()
        for (text, confidence) in Self.texture {
            let match = await SpineMatcher().match(SpineReading(text: text, confidence: confidence), sources: [source])
            #expect(match.decision == .none)
            #expect(match.reason == "no known word read: not searched online", "\(text): \(match.reason ?? "-")")
        }
        #expect(source.asked.withLock { $0 }.isEmpty, "\(source.asked.withLock { $0 })")
    }

    @Test func readingsWithWordsAreSearched() async {
        let readings: [(String, Double)] = [
            ("Civil Engineering Material", 0.98),   // dictionary words
            ("HADOOP生态系统", 0.99),                 // another script
            ("Shantaram", 0.9),                     // no dictionary word, shaped like one, read surely
            ("toFasterReading", 0.7),               // glued capitalised words
            ("UnWHOLLy", 0.9),                      // a title's stylised capitals (minhan_img1539)
            ("Par TERESA DE 14 Pana Valid SAME vines", 0.9),
        ]
        for (text, confidence) in readings {
            let source = CountingNetworkSource()
            _ = await SpineMatcher().match(SpineReading(text: text, confidence: confidence), sources: [source])
            #expect(!source.asked.withLock { $0 }.isEmpty, "\(text) was not searched")
        }
        let source = CountingNetworkSource()
        let civil = await SpineMatcher().match(SpineReading(text: "Civil Engineering Material", confidence: 0.98), sources: [source])
        #expect(civil.best?.workKey == "civil")
        // The same shape read by an unsure reader is texture until a word is known.
        let unsure = CountingNetworkSource()
        _ = await SpineMatcher().match(SpineReading(text: "Shantaram", confidence: 0.2), sources: [unsure])
        #expect(unsure.asked.withLock { $0 }.isEmpty)
    }

    @Test func whatIsOnThisMachineIsAskedForJunkToo() async {
        let local = CountingNetworkSource(asksNetwork: false), network = CountingNetworkSource()
        _ = await SpineMatcher().match(SpineReading(text: "ERHRKRSERE", confidence: 0.0), sources: [local, network])
        #expect(local.asked.withLock { $0 } == ["ERHRKRSERE"])
        #expect(network.asked.withLock { $0 }.isEmpty)
    }
}
