import Foundation

/// What a spine prints below its title and a reader runs into the reading: the publisher's
/// name ("True North CRC Press", "Jip: His Story Edicions 62") or a library's call-number label
/// ("Fever 1793 511.5 HAR", "Jip N COS jip"). Set aside before the distance: its number is no
/// volume and its words no title words; the reading keeps it as evidence (`ParsedReading.tail`).
struct ReadingTail: Hashable {
    /// The text before the tail, as read.
    var head: String
    /// The tail as read.
    var text: String
    /// The tail's words as compared (`TextNormalizer.tokens`).
    var words: [String]

    /// The tail of `text`, when its end is a publisher's name or a call number and a word of
    /// three letters or more is left before it.
    init?(_ text: String) {
        let tokens = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard tokens.count >= 2 else { return nil }
        // The longest tail that parses, leaving a word before it.
        for start in 1..<tokens.count {
            let tail = Array(tokens[start...])
            guard Publishers.isName(tail) || CallNumber.isLabel(tail) else { continue }
            let head = tokens[..<start]
            guard head.contains(where: { $0.filter(\.isLetter).count >= 3 }) else { return nil }
            self.head = head.joined(separator: " ")
            self.text = tail.joined(separator: " ")
            words = TextNormalizer.tokens(self.text)
            return
        }
        return nil
    }
}
