/// Token-based title similarity that tolerates misread letters, dropped and merged words.
enum Similarity {
    /// 1 − edit distance / longer length, over bytes of already-normalised words.
    static func ratio(_ a: String, _ b: String) -> Double {
        if a == b { return 1 }
        let x = Array(a.utf8), y = Array(b.utf8)
        let longest = max(x.count, y.count)
        guard longest > 0 else { return 1 }
        return 1 - Double(levenshtein(x, y, limit: longest)) / Double(longest)
    }

    static func levenshtein(_ x: [UInt8], _ y: [UInt8], limit: Int) -> Int {
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var previous = Array(0...y.count)
        var current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            var rowMin = i
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                rowMin = min(rowMin, current[j])
            }
            if rowMin > limit { return limit + 1 }
            swap(&previous, &current)
        }
        return previous[y.count]
    }

    /// How much one word counts: function words little, so "of the" agreeing proves nothing.
    static func weight(_ word: String) -> Double {
        TextNormalizer.stopwords.contains(word) ? 0.25 : 1
    }

    /// Two words agree when equal, or (both at least 4 letters) nearly equal.
    static func wordSimilarity(_ a: String, _ b: String) -> Double {
        if a == b { return 1 }
        let la = a.utf8.count, lb = b.utf8.count
        // Under 4 letters, or lengths too far apart for a 0.75 ratio: no need to count edits.
        guard la >= 4, lb >= 4, abs(la - lb) * 4 <= max(la, lb) else { return 0 }
        let r = ratio(a, b)
        return r >= 0.75 ? r : 0
    }

    /// Soft F1 over weighted words: every read word pairs with its best unused candidate
    /// word. Also compares the words run together, so "harrypotter" meets "harry potter".
    static func titleSimilarity(_ read: [String], _ candidate: [String]) -> Double {
        titleComparison(read, candidate).score
    }

    /// The best contiguous run of `read` compared with `candidate`: an OCR reading holds the
    /// title as one run among stickers, imprints and misread art. Runs are at most two words
    /// longer than the candidate. `complete`: the run holds every significant candidate word
    /// (one that leaves a word out may be a truncated spine, or "I Want My Hat" cut out of
    /// "I Want My Hat Last": the caller never lets such a run be strong).
    /// `matched`: how many significant candidate words the run holds.
    static func bestRun(_ read: [String], _ candidate: [String]) -> (score: Double, length: Int, complete: Bool, matched: Int, range: Range<Int>) {
        guard !read.isEmpty, !candidate.isEmpty else { return (0, 0, false, 0, 0..<0) }
        let needed = candidate.filter { weight($0) == 1 }
        var best = (score: 0.0, length: 0, complete: false, matched: 0, range: 0..<0)
        for start in read.indices {
            for end in (start + 1)...min(read.count, start + candidate.count + 2) {
                let run = Array(read[start..<end])
                let comparison = titleComparison(run, candidate)
                // A run that swaps a word for another is a different book.
                guard !comparison.swapped else { continue }
                let matched = needed.filter { word in run.contains { wordSimilarity($0, word) > 0 } }.count
                if comparison.score > best.score || (comparison.score == best.score && end - start > best.length) {
                    best = (comparison.score, end - start, matched == needed.count, matched, start..<end)
                }
            }
        }
        return best
    }

    /// The score, and whether a significant word was swapped for another (both sides keep an
    /// unmatched one): "I Want My Hat Last" is not "I Want My Hat Back", however close.
    static func titleComparison(_ read: [String], _ candidate: [String]) -> (score: Double, swapped: Bool) {
        guard !read.isEmpty, !candidate.isEmpty else { return (0, false) }
        var used = [Bool](repeating: false, count: candidate.count)
        var matched = 0.0
        var readUnmatched = false
        for word in read {
            var best = 0.0, bestIndex = -1
            for (index, other) in candidate.enumerated() where !used[index] {
                let s = wordSimilarity(word, other)
                if s > best { best = s; bestIndex = index; if s == 1 { break } }
            }
            if bestIndex >= 0 {
                used[bestIndex] = true
                matched += best * min(weight(word), weight(candidate[bestIndex]))
            } else if weight(word) == 1 {
                readUnmatched = true
            }
        }
        let candidateUnmatched = zip(candidate, used).contains { !$1 && weight($0) == 1 }
        let readWeight = read.reduce(0) { $0 + weight($1) }
        let candidateWeight = candidate.reduce(0) { $0 + weight($1) }
        let precision = matched / readWeight, recall = matched / candidateWeight
        var score = precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0
        if score < 0.95 {
            let joinedRead = read.joined(), joinedCandidate = candidate.joined()
            let lengths = (joinedRead.utf8.count, joinedCandidate.utf8.count)
            // Only worth it when the lengths are close (a merged or split word, not a dropped one).
            if abs(lengths.0 - lengths.1) * 5 <= max(lengths.0, lengths.1) {
                let joined = ratio(joinedRead, joinedCandidate) - 0.05
                if joined > score { return (joined, false) }
            }
        }
        return (score, readUnmatched && candidateUnmatched)
    }
}
