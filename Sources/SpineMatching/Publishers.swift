import Foundation

/// Publishers' names as spines print them: the one list that the junk test (a whole reading that
/// is only a publisher, `ReadingFilters`), a reading's tail (`ReadingTail`) and an imprint read at a
/// title's end (`SpineMatcher`) all draw on.
enum Publishers {
    /// Publishers and imprints printed at a spine's foot, as `TextNormalizer.tokens` spells them.
    /// From the trap table's publisher rows (Spanish, Catalan, technical, university presses), the
    /// publishers of the Open Library and Google Books fixtures, the imprints and publisher words
    /// the matcher held before (stop 39), and the technical and Spanish/Catalan houses of the
    /// library shelves' subjects. Written by hand: no dump with a publishers field is on this machine.
    /// Not a name alone that is a catalogue title alone: "Ariel" (Plath's; the house is "Editorial Ariel"),
    /// "SIAM" (compared as "slam", Hornby's). Checked against the goodbooks titles (docs/PERFORMANCE.md stop 40).
    /// Each as printed and lower case ("HarperCollins" is two words to `tokens`, "HARPERCOLLINS" one).
    static let names: Set<[String]> = Set([
        // Technical and academic.
        "Springer", "Springer-Verlag", "Springer Verlag", "Wiley", "John Wiley & Sons", "Wiley-Blackwell", "Blackwell",
        "CRC Press", "Chapman & Hall", "Chapman & Hall/CRC", "Taylor & Francis", "Routledge", "Elsevier",
        "Academic Press", "Pergamon", "Butterworth-Heinemann", "Pearson", "Prentice Hall", "Addison-Wesley",
        "Addison Wesley", "McGraw-Hill", "McGraw Hill", "O'Reilly", "Packt", "Apress", "Manning", "No Starch Press",
        "MIT Press", "The MIT Press", "Birkhäuser", "Birkhauser", "World Scientific", "AMS", "Dover",
        "Cambridge", "Cambridge University Press", "Oxford", "Oxford University Press", "Princeton University Press",
        "Yale University Press", "Harvard University Press", "SUNY Press", "Cengage", "Thomson", "Intech", "InTech",
        "Woodhead Publishing", "Wiley VCH", "Springer Nature", "Sage", "Palgrave", "Palgrave Macmillan", "Norton",
        "W. W. Norton",
        // Spanish and Catalan (the trap table's, and the houses of the held-out shelves' languages).
        "Anagrama", "Editorial Anagrama", "Alfaguara", "Planeta", "Destino", "Seix Barral", "Tusquets",
        "Tusquets Editores", "Cátedra", "Austral", "Debolsillo", "Espasa", "Salamandra", "Lumen", "Siruela",
        "Alianza", "Alianza Editorial", "Ediciones B", "Edicions 62", "Proa", "Columna", "Empúries", "La Magrana",
        "Barcanova", "Editorial Barcanova", "Club Editor", "Labutxaca", "Quaderns Crema", "La Galera", "Acantilado",
        "Monte Ávila", "Monte Ávila Editores", "Biblioteca Ayacucho", "Penguin Random House", "Rba Libros",
        "Ediciones SM", "Edebé", "Bruño", "Anaya", "Santillana", "Grijalbo", "Debate", "Crítica", "Editorial Ariel", "Paidós",
        // Trade imprints.
        "Penguin", "Penguin Books", "Penguin Classics", "Vintage", "Vintage Books", "Bantam", "Bantam Books", "Tor",
        "Tor Books", "Picador", "Harper", "HarperCollins", "Harper Collins", "Harper Perennial", "Harper Trophy",
        "HarperTrophy", "Perennial", "Orbit", "Scholastic", "Anchor", "Anchor Books", "Ballantine", "Signet", "Ace",
        "DAW", "Daw Books", "Knopf", "Puffin", "Corgi", "Arrow", "Faber", "Faber & Faber", "Faber and Faber",
        "Gollancz", "Bloomsbury", "Hodder", "Hodder & Stoughton", "Headline", "Avon", "Berkley", "Viking", "Mariner",
        "Everyman", "Everyman's Library", "Wordsworth", "Wordsworth Classics", "Doubleday", "Scribner", "Macmillan",
        "Hachette", "Pan", "Pan Books", "Pan Macmillan", "Pocket", "Pocket Books", "Vertigo", "Gallimard", "Folio", "Seuil", "Reclam",
        "Suhrkamp", "Fischer", "Rowohlt", "dtv", "Yearling", "Putnam", "Aladdin", "Hyperion", "Allen & Unwin", "Collins",
        "Eos", "Minotaur", "Minotaur Books", "Simon & Schuster", "Simon and Schuster", "Random House", "Little, Brown",
        "Del Rey", "Modern Library", "Listening Library", "Tandem Library",
        // Comics and manga.
        "DC", "DC Comics", "Marvel", "Image Comics", "Viz", "Viz Media", "Yen Press", "Kodansha", "Tokyopop",
    ].flatMap { [TextNormalizer.tokens($0), TextNormalizer.tokens($0.lowercased())] })

    /// Words a house's name takes after it, or a spine's foot prints alone ("Books", "Press", "Classics").
    static let houseWords: Set<String> = Set([
        "books", "book", "press", "classics", "publishing", "publishers", "paperbacks", "edition", "editions", "group",
        "library", "university", "comics", "media",
    ].map(TextNormalizer.ocrCanonical))

    /// One-word names: an imprint read at a title's end ("... McCARTHY VINTAGE") belongs to no title.
    static let imprints: Set<String> = Set(names.filter { $0.count == 1 }.map { $0[0] })

    static let longestName = names.map(\.count).max() ?? 1

    /// The words, as read, are a publisher's name, house words possibly after it ("Tor Books",
    /// "Penguin Random House Group"), or a press named by its initials ("CRC Press", "SUNY Press").
    static func isName(_ tokens: [String]) -> Bool {
        if tokens.count == 2, tokens[1].lowercased() == "press", tokens[0].count >= 2, tokens[0].count <= 5,
           tokens[0].allSatisfy(\.isUppercase) { return true }
        return isNames(TextNormalizer.tokens(tokens.joined(separator: " ")), functionWords: false)
    }

    /// Every word (`TextNormalizer.tokens`) is a publisher's name's, a house word or a function
    /// word: a reading that is only what a spine's foot prints ("PENGUIN CLASSICS", "Random House").
    static func isWholeReading(_ words: [String]) -> Bool {
        !words.isEmpty && (words.allSatisfy(TextNormalizer.stopwords.contains) || isNames(words, functionWords: true))
    }

    /// The words cut into whole names and house words (function words between them when
    /// `functionWords`), the first a name, or only house words when function words may join them.
    static func isNames(_ words: [String], functionWords: Bool) -> Bool {
        guard !words.isEmpty else { return false }
        // reachable[i]: words[..<i] cut so; named[i]: a name among them.
        var reachable = [true] + Array(repeating: false, count: words.count)
        var named = Array(repeating: false, count: words.count + 1)
        for start in 0..<words.count where reachable[start] {
            let word = words[start]
            if houseWords.contains(word) || (functionWords && TextNormalizer.stopwords.contains(word)),
               start > 0 || functionWords {
                reachable[start + 1] = true
                named[start + 1] = named[start + 1] || named[start]
            }
            for length in 1...min(longestName, words.count - start) where names.contains(Array(words[start..<start + length])) {
                reachable[start + length] = true
                named[start + length] = true
            }
        }
        return reachable[words.count] && (named[words.count] || functionWords)
    }
}
