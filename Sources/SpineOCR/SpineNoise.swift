import BookMetadata
import Foundation

/// What real spine readings are full of and a matcher must never see: call numbers and
/// shelf labels, imprint names, single characters, low-confidence garbage.
public enum SpineNoise {
    /// Publisher imprints and logos printed at a spine's foot (compared lowercased, letters only).
    public static let imprints: Set<String> = [
        "penguin", "vintage", "harper", "harpercollins", "picador", "scribner", "bantam", "anchor", "puffin",
        "ballantine", "random", "doubleday", "knopf", "tor", "orbit", "signet", "pocket", "dell", "berkley",
        "wiley", "springer", "elsevier", "pearson", "mcgrawhill", "routledge", "cambridge", "oxford", "press",
        "university", "books", "classics", "edition", "isbn", "scholastic", "simon", "schuster", "faber",
        "macmillan", "hachette", "delrey", "avon", "mariner", "norton", "crc",
    ]

    /// Whether a word is kept. `minimumConfidence` applies to non-dictionary words.
    static func keeps(_ word: OCRWord, minimumConfidence: Double) -> Bool {
        verdict(word, minimumConfidence: minimumConfidence) == .kept
    }

    /// What becomes of a word: kept, dropped, or kept aside as *unsure*.
    enum WordVerdict { case kept, unsure, dropped }

    /// Tesseract is often unsure of display lettering it reads right ("INSURGENT" at 7,
    /// "roar" at 12 on real shelves): a word that passes every other rule and looks like a
    /// word is not thrown away for its confidence alone, but kept aside as unsure
    /// (`ShelfOCR` reads it only where nothing surer was read, and only ever as a suggestion).
    static func verdict(_ word: OCRWord, minimumConfidence: Double) -> WordVerdict {
        guard passesShape(word) else { return .dropped }
        if word.confidence < minimumConfidence && !word.isDictionaryWord {
            return looksLikeAWord(word.text) ? .unsure : .dropped
        }
        return .kept
    }

    /// Letters only, four or more, vowels and consonants, no letter three times running:
    /// what texture and upside-down text seldom give.
    static func looksLikeAWord(_ text: String) -> Bool {
        let letters = Array(text.lowercased().filter(\.isLetter))
        guard letters.count >= 4, !text.contains(where: \.isNumber) else { return false }
        let vowels = letters.filter { "aeiouyàáâäèéêëìíîïòóôöùúûü".contains($0) }.count
        guard vowels > 0, vowels < letters.count else { return false }
        for index in 2..<letters.count where letters[index] == letters[index - 1] && letters[index] == letters[index - 2] {
            return false
        }
        return true
    }

    /// Every rule but the confidence floor.
    private static func passesShape(_ word: OCRWord) -> Bool {
        let text = word.text
        let letters = text.unicodeScalars.filter { CharacterSet.letters.contains($0) }.count
        let digits = text.unicodeScalars.filter { CharacterSet.decimalDigits.contains($0) }.count
        let alphanumerics = letters + digits
        // Punctuation, smudges and lone characters ("A" and "I" start real titles).
        if alphanumerics == 0 { return false }
        if alphanumerics == 1 && !(text == "A" || text == "I" || text == "&") { return false }
        if alphanumerics == 1 && word.confidence < 80 { return false }
        // Mostly symbols: "|/i;" and the like.
        if Double(alphanumerics) < Double(text.count) * 0.6 { return false }
        // Call numbers and shelf labels: letters glued to digits ("TU5", "PS3545", "QA76.9"),
        // cutter numbers (".C90", ".B13"), classification decimals.
        if isCallNumberPart(text) { return false }
        // Latin letters with no vowel are texture; Chinese and Japanese have no vowels to look for
        // (a title PP-OCR read at 1.00 in stacked characters was dropped here).
        let latin = text.filter { $0.isLetter && !$0.isHanOrKana }
        if latin.count >= 4 && !word.isDictionaryWord && !hasVowel(latin) { return false }
        return true
    }

    static func isCallNumberPart(_ text: String) -> Bool {
        let hasLetter = text.contains { $0.isLetter }
        let hasDigit = text.contains { $0.isNumber }
        if text.hasPrefix(".") && hasDigit { return true }
        if hasLetter && hasDigit {
            // Ordinals and volumes ("2nd", "Vol2") are rarer on spines than call numbers; years glued to
            // letters are call numbers too.
            return !(text.lowercased().hasSuffix("st") || text.lowercased().hasSuffix("nd")
                || text.lowercased().hasSuffix("rd") || text.lowercased().hasSuffix("th"))
        }
        // Decimal classification numbers: "004.6", "813.54".
        if hasDigit && text.contains(".") && !hasLetter { return true }
        return false
    }

    static func isImprint(_ text: String) -> Bool {
        imprints.contains(String(text.lowercased().filter { $0.isLetter }))
    }

    /// Words a title goes on after, in the languages of the shelves: an imprint's name read just
    /// after one of them on the same line is the title's word ("The Strange Logic of Random Graphs").
    static let titleContinuesAfter: Set<String> = ["of", "the", "and", "a", "an", "in", "for", "to", "de", "del", "la", "el", "le", "les", "i", "y"]

    /// A group's words (reading order) without the imprint names printed at a spine's foot; an
    /// imprint word whose line-neighbour before it is a word a title continues after stays, as a
    /// word of the title. PP-OCR read `The Strange Logic of Random C` at 0.94 on a real shelf,
    /// and `Random` (Random House) was dropped from the title.
    static func withoutImprints(_ words: [OCRWord]) -> [OCRWord] {
        words.indices.filter { index in
            guard isImprint(words[index].text) else { return true }
            guard index > 0, words[index - 1].line == words[index].line else { return false }
            return titleContinuesAfter.contains(words[index - 1].text.lowercased().filter(\.isLetter))
        }.map { words[$0] }
    }

    private static func hasVowel(_ text: String) -> Bool {
        text.lowercased().contains { "aeiouyàáâäèéêëìíîïòóôöùúûü".contains($0) }
    }
}
