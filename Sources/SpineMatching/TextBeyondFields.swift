import Foundation
import Vision

extension SpineMatcher {
    /// A model that ran a neighbouring spine into this one writes the neighbour in the reading's
    /// text, not in its title and author fields ("The Gilded Ones The Carnivorous Carnival" with the
    /// title "The Gilded Ones"): the text's words beyond the title, the author and a publisher or
    /// call number, when two of them (three letters or more, no function word) can be a title.
    static func textBeyondFields(_ reading: SpineReading) -> String? {
        guard !reading.unreadable, let title = reading.title, !title.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        var known: [String: Int] = [:]
        for word in TextNormalizer.tokens(title) + TextNormalizer.tokens(reading.author ?? "") { known[word, default: 0] += 1 }
        var rest: [String] = []
        for token in reading.text.split(whereSeparator: \.isWhitespace).map(String.init) {
            let words = TextNormalizer.tokens(token)
            if words.isEmpty { continue }
            if words.allSatisfy({ (known[$0] ?? 0) > 0 }) {
                for word in words { known[word]! -= 1 }
                continue
            }
            rest.append(token)
        }
        guard !rest.isEmpty, !Publishers.isName(rest), !CallNumber.isLabel(rest) else { return nil }
        let beyond = rest.joined(separator: " ")
        let text = ReadingTail(beyond)?.head ?? beyond
        let significant = TextNormalizer.tokens(text).filter { $0.count >= 3 && !TextNormalizer.stopwords.contains($0) }
        return significant.count >= 2 ? text : nil
    }

    /// `result` with `other`, the match of the text beyond the fields (`textBeyondFields`) by the
    /// same rules, kept as a further title when it comes near a book the spine's matches do not
    /// name (within an unsure reading's suggestion distance, as `decide` keeps a run's other title).
    func heldBeside(_ result: SpineMatch, _ other: SpineMatch) -> SpineMatch {
        let named = Set(([result] + result.alsoHeld).filter { $0.decision != .none }.compactMap { $0.best?.workKey })
        guard other.decision != .none, other.distance <= thresholds.unsureMedium, let work = other.best?.workKey,
              !named.contains(work) else { return result }
        var result = result
        var held = other
        held.alsoHeld = []
        result.alsoHeld += [held] + other.alsoHeld.filter { $0.best.map { !named.contains($0.workKey) } ?? false }
        return result
    }
}
