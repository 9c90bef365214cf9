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
            guard Self.isPublisher(tail) || Self.isCallNumber(tail) else { continue }
            let head = tokens[..<start]
            guard head.contains(where: { $0.filter(\.isLetter).count >= 3 }) else { return nil }
            self.head = head.joined(separator: " ")
            self.text = tail.joined(separator: " ")
            words = TextNormalizer.tokens(self.text)
            return
        }
        return nil
    }

    // MARK: publishers

    /// Publishers and imprints printed at a spine's foot, as `TextNormalizer.tokens` spells them.
    /// From the trap table's publisher rows (Spanish, Catalan, technical, university presses),
    /// the publishers of the Open Library and Google Books fixtures, `ReadingFilters.imprints`,
    /// and the technical and Spanish/Catalan houses of the library shelves' subjects.
    static let publishers: Set<[String]> = Set([
        // Technical and academic.
        "Springer", "Springer-Verlag", "Springer Verlag", "Wiley", "John Wiley & Sons", "Wiley-Blackwell", "Blackwell",
        "CRC Press", "Chapman & Hall", "Chapman & Hall/CRC", "Taylor & Francis", "Routledge", "Elsevier",
        "Academic Press", "Pergamon", "Butterworth-Heinemann", "Pearson", "Prentice Hall", "Addison-Wesley",
        "Addison Wesley", "McGraw-Hill", "McGraw Hill", "O'Reilly", "Packt", "Apress", "Manning", "No Starch Press",
        "MIT Press", "The MIT Press", "Birkhäuser", "Birkhauser", "World Scientific", "SIAM", "AMS", "Dover",
        "Cambridge", "Cambridge University Press", "Oxford University Press", "Princeton University Press",
        "Yale University Press", "Harvard University Press", "SUNY Press", "Cengage", "Thomson", "Intech", "InTech",
        "Woodhead Publishing", "Wiley VCH", "Springer Nature", "Sage", "Palgrave", "Palgrave Macmillan",
        // Spanish and Catalan (the trap table's, and the houses of the held-out shelves' languages).
        "Anagrama", "Editorial Anagrama", "Alfaguara", "Planeta", "Destino", "Seix Barral", "Tusquets",
        "Tusquets Editores", "Cátedra", "Austral", "Debolsillo", "Espasa", "Salamandra", "Lumen", "Siruela",
        "Alianza", "Alianza Editorial", "Ediciones B", "Edicions 62", "Proa", "Columna", "Empúries", "La Magrana",
        "Barcanova", "Editorial Barcanova", "Club Editor", "Labutxaca", "Quaderns Crema", "La Galera", "Acantilado",
        "Monte Ávila", "Monte Ávila Editores", "Biblioteca Ayacucho", "Penguin Random House", "Rba Libros",
        "Ediciones SM", "Edebé", "Bruño", "Anaya", "Santillana", "Grijalbo", "Debate", "Crítica", "Ariel", "Paidós",
        // Trade imprints (the fixtures' and `ReadingFilters.imprints`).
        "Penguin", "Penguin Books", "Penguin Classics", "Vintage", "Vintage Books", "Bantam", "Bantam Books", "Tor",
        "Tor Books", "Picador", "Harper", "HarperCollins", "Harper Collins", "Harper Perennial", "Harper Trophy",
        "HarperTrophy", "Perennial", "Orbit", "Scholastic", "Anchor", "Anchor Books", "Ballantine", "Signet", "Ace",
        "DAW", "Daw Books", "Knopf", "Puffin", "Corgi", "Arrow", "Faber", "Faber & Faber", "Faber and Faber",
        "Gollancz", "Bloomsbury", "Hodder", "Hodder & Stoughton", "Headline", "Avon", "Berkley", "Viking", "Mariner",
        "Everyman", "Wordsworth", "Wordsworth Classics", "Doubleday", "Scribner", "Macmillan", "Hachette",
        "Pocket Books", "Vertigo", "Gallimard", "Folio", "Reclam", "dtv", "Yearling", "Putnam", "Aladdin", "Hyperion",
        "Allen & Unwin", "Collins", "Eos", "Minotaur", "Minotaur Books", "Simon & Schuster", "Simon and Schuster",
        "Random House", "Little, Brown", "Del Rey", "Listening Library", "Tandem Library",
    ].map(TextNormalizer.tokens))

    /// The words are one publisher's name, or a press named by its initials ("CRC Press", "SUNY Press").
    static func isPublisher(_ tokens: [String]) -> Bool {
        let words = TextNormalizer.tokens(tokens.joined(separator: " "))
        if publishers.contains(words) { return true }
        return tokens.count == 2 && tokens[1].lowercased() == "press"
            && tokens[0].count >= 2 && tokens[0].count <= 5 && tokens[0].allSatisfy(\.isUppercase)
    }

    // MARK: call numbers

    /// A call-number label, read word by word: an optional prefix ("Ref.", "R", "Sig."), a class
    /// (Dewey or CDU "511.5", "821.134.2-31"; Library of Congress "QA76.9", "TA 403"; a public
    /// library's genre letters followed by a cutter, "N COS", "JN ROW"), then cutters and marks
    /// (".D3", "HAR", title letters "jip", a year, "v.2", "c.1").
    /// A number that may be a title's own ("Fahrenheit 451", "Catch 22", "It 2") is a class only
    /// with a decimal, a prefix or a mark after it.
    static func isCallNumber(_ tokens: [String]) -> Bool {
        var index = 0
        if let first = tokens.first, prefixes.contains(first.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: ".:"))),
           tokens.count >= 2 {
            index = 1
        }
        let prefixed = index == 1
        guard index < tokens.count else { return false }
        // The class.
        let token = tokens[index]
        let marks = { (from: Int) in tokens[from...] }
        if matches(token, dewey) || matches(token, lcClassNumber) {
            index += 1
            guard prefixed || token.contains(".") || index < tokens.count else { return false }
        } else if index + 1 < tokens.count, matches(token, lcClassLetters), matches(tokens[index + 1], number) {
            // "DA 30 .P4": letters and a number apart need a cutter after them.
            index += 2
            guard marks(index).contains(where: { matches($0, cutter) }) else { return false }
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
        }
    }

    static let prefixes: Set<String> = ["ref", "r", "sig", "signatura", "tejuelo"]
    /// Public libraries' genre marks (Spanish and Catalan: narrativa, juvenil, infantil, ciència-ficció, policíaca...).
    static let genres: Set<String> = ["N", "JN", "I", "IC", "JC", "CF", "PO", "NF", "JP", "C", "CÒMIC", "CÓMIC", "COMIC"]

    static let dewey = #"^\d{3}(\.\d+)*(-\d+)?$"#
    static let lcClassNumber = #"^[A-Z]{1,3}\d{1,4}(\.\d+)?$"#
    static let lcClassLetters = #"^[A-Z]{1,3}$"#
    static let number = #"^\d{1,4}(\.\d+)?$"#
    static let cutter = #"^\.?[A-Z]\d{1,4}$"#
    static let cutterLetters = #"^[A-ZÀ-Ý]{2,4}$"#
    static let surnameLetters = #"^[A-ZÀ-Ý]{3}$"#
    static let titleLetters = #"^[a-zà-ÿ]{2,4}$"#
    static let year = #"^(1[5-9]|20)\d\d$"#
    static let volumeMark = #"^[vc]\.\d{1,3}$"#

    static func matches(_ token: String, _ pattern: String) -> Bool {
        token.range(of: pattern, options: .regularExpression) != nil
    }
}
