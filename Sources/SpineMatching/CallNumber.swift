import Foundation

/// A library's call-number label, read word by word: the one parser that the junk test (a whole
/// reading that is a label, `ReadingFilters`) and a reading's tail (`ReadingTail`) both call.
enum CallNumber {
    /// The words, as read, are a label: an optional prefix ("Ref.", "R", "Sig."), a class (Dewey or
    /// CDU "511.5", "821.134.2-31"; Library of Congress "QA76.9", "PS3552.R685", "TA 403"; a public
    /// library's genre letters followed by a cutter, "N COS", "JN ROW"), then cutters and marks
    /// (".D3", "HAR", title letters "jip", a year, "v.2", "c.1").
    /// After a title, a number that may be the title's own ("Fahrenheit 451", "Catch 22", "It 2") is a
    /// class only with a decimal, a prefix or a mark after it, and a mark is in one case ("HAR",
    /// "jip": "451 Ray" is no label). `standingAlone`: the words are the whole reading, with no
    /// title for a number to belong to: a bare class ("823", "QA76") and marks in any case ("823 Row") are a label.
    static func isLabel(_ tokens: [String], standingAlone: Bool = false) -> Bool {
        var index = 0
        if let first = tokens.first, prefixes.contains(first.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: ".:"))),
           tokens.count >= 2 {
            index = 1
        }
        let prefixed = index == 1
        guard index < tokens.count else { return false }
        // The class.
        let token = tokens[index]
        let classToken = standingAlone ? token.uppercased() : token
        let marks = { (from: Int) in tokens[from...] }
        if matches(token, dewey) || matches(classToken, lcClassNumber) {
            index += 1
            guard standingAlone || prefixed || token.contains(".") || index < tokens.count else { return false }
        } else if index + 1 < tokens.count, matches(classToken, lcClassLetters), matches(tokens[index + 1], number) {
            // "DA 30 .P4": letters and a number apart need a cutter after them.
            index += 2
            guard marks(index).contains(where: { matches(standingAlone ? $0.uppercased() : $0, cutter) }) else { return false }
        } else if index + 1 < tokens.count, genres.contains(token), matches(tokens[index + 1], surnameLetters) {
            // "N COS jip": a genre mark, the author's first three letters, the title's first letters.
            index += 2
        } else {
            return false
        }
        // What may follow the class.
        return marks(index).allSatisfy { token in
            matches(token, cutter) || matches(token, cutterLetters) || matches(token, titleLetters)
                || matches(token, year) || matches(token, volumeMark)
                || (standingAlone && (matches(token.uppercased(), cutter) || matches(token, anyCaseLetters)))
        }
    }

    /// A whole reading that is a call number: a label, or more digits than letters with four
    /// letters at most (a label's number read without its shape, "0 7 1 2 3").
    static func isWholeReading(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.filter(\.isNumber).count
        let letters = trimmed.filter(\.isLetter).count
        guard digits >= 3 else { return false }
        return isLabel(trimmed.split(whereSeparator: \.isWhitespace).map(String.init), standingAlone: true)
            || (digits > letters && letters <= 4)
    }

    static let prefixes: Set<String> = ["ref", "r", "sig", "signatura", "tejuelo"]
    /// Public libraries' genre marks (Spanish and Catalan: narrativa, juvenil, infantil, ciència-ficció, policíaca...).
    static let genres: Set<String> = ["N", "JN", "I", "IC", "JC", "CF", "PO", "NF", "JP", "C", "CÒMIC", "CÓMIC", "COMIC"]

    static let dewey = pattern(#"^\d{3}(\.\d+)*(-\d+)?$"#)
    /// A class number, its cutter possibly glued to it ("PS3552.R685").
    static let lcClassNumber = pattern(#"^[A-Z]{1,3}\d{1,4}(\.\d+)?(\.?[A-Z]\d{1,4})*$"#)
    static let lcClassLetters = pattern(#"^[A-Z]{1,3}$"#)
    static let number = pattern(#"^\d{1,4}(\.\d+)?$"#)
    static let cutter = pattern(#"^\.?[A-Z]\d{1,4}$"#)
    static let cutterLetters = pattern(#"^[A-ZÀ-Ý]{2,4}$"#)
    static let surnameLetters = pattern(#"^[A-ZÀ-Ý]{3}$"#)
    static let titleLetters = pattern(#"^[a-zà-ÿ]{2,4}$"#)
    static let anyCaseLetters = pattern(#"^[A-Za-zÀ-ÿ]{1,4}$"#)
    static let year = pattern(#"^(1[5-9]|20)\d\d$"#)
    static let volumeMark = pattern(#"^[vc]\.\d{1,3}$"#)

    /// Compiled once: a reading's tail is tried at every word, so these run thousands of times a photo
    /// (compiling each time cost ~0.45 ms a reading's tail, debug build).
    static func pattern(_ text: String) -> NSRegularExpression {
        try! NSRegularExpression(pattern: text)
    }

    static func matches(_ token: String, _ pattern: NSRegularExpression) -> Bool {
        pattern.firstMatch(in: token, range: NSRange(token.startIndex..., in: token)) != nil
    }
}
