import Foundation
@testable import SpineMatching
import Testing
import Vision

/// A publisher's name or a library's call number read after the title (issue 35's noisy-model
/// losses: `True North CRC Press`, `Jip: His Story Edicions 62`) is set aside before the distance.
@Suite struct ReadingTailTests {
    func match(_ text: String, _ books: [MatchCandidate]) -> SpineMatch {
        SpineMatcher().match(SpineReading(text: text, confidence: 0.9), candidates: books.map(PreparedCandidate.init))
    }

    static let jip = WrongBookGuardTests.book("jip", "Jip: His Story", ["Katherine Paterson"])
    static let sam = WrongBookGuardTests.book("sam", "My Brother Sam Is Dead", ["James Lincoln Collier", "Christopher Collier"])
    static let birchbark = WrongBookGuardTests.book("birchbark", "The Birchbark House", ["Louise Erdrich"])
    static let shard = WrongBookGuardTests.book("shard", "A Single Shard", ["Linda Sue Park"])

    @Test func publishersAndCallNumbersAfterATitleAreItsTail() {
        let tails = [
            ("True North CRC Press", "CRC Press"), ("Jip: His Story Edicions 62", "Edicions 62"),
            ("Fever 1793 511.5 HAR", "511.5 HAR"), ("A Single Shard R 004.6 BAR", "R 004.6 BAR"),
            ("My Brother Sam Is Dead Ref. 620.11", "Ref. 620.11"), ("Insurgent QA76.9 .D3 2015", "QA76.9 .D3 2015"),
            ("Fearless TA403 .A74", "TA403 .A74"), ("The Miserable Mill Springer", "Springer"),
            ("Jip: His Story N COS jip", "N COS jip"), ("Ifigenia 821.134.2-31 PAR ifi", "821.134.2-31 PAR ifi"),
            ("El Aleph Jorge Luis Borges Alianza Editorial", "Alianza Editorial"), ("Heat WILEY", "WILEY"),
            ("Harry Potter DA 30 .P4 v.2 c.2", "DA 30 .P4 v.2 c.2"), ("Graph Theory 823.914 ROW", "823.914 ROW"),
        ]
        for (text, tail) in tails {
            #expect(ReadingTail(text)?.text == tail, "\(text)")
        }
        // A title's own number, words that are no publisher, and a reading with nothing before the tail.
        for text in ["Fahrenheit 451", "Catch 22", "STEPHEN KING IT 2", "Harry Potter 3", "Lecture Notes in Mathematics 1984",
                     "The Pelican Brief", "Springer", "CRC Press", "14 Edicions 62", "511.5 HAR", "Fahrenheit 451 Ray Bradbury",
                     "The Road Cormac McCarthy", "I Am Legend", "NIGHT I AM"] {
            #expect(ReadingTail(text) == nil, "\(text)")
        }
    }

    /// The tail costs what nothing read beside the title costs: a title that stands alone is added
    /// with a call number after it, and the publisher's number is no volume.
    @Test func theTailIsSetAsideBeforeTheDistance() {
        for (book, title, tail) in [(Self.jip, "Jip: His Story", "Edicions 62"), (Self.sam, "My Brother Sam Is Dead", "Ref. 620.11"),
                                    (Self.birchbark, "The Birchbark House", "CRC Press"), (Self.sam, "My Brother Sam Is Dead", "QA76.9 .D3 2015")] {
            let alone = match(title, [book])
            let withTail = match("\(title) \(tail)", [book])
            #expect(withTail.best?.workKey == book.workKey)
            #expect(abs(withTail.distance - alone.distance) < 1e-9, "\(title) \(tail): \(withTail.distance) against \(alone.distance)")
            #expect(withTail.decision == .strong, "\(title) \(tail): \(withTail.reason ?? "")")
        }
        // The author read between the title and the tail still counts.
        #expect(match("A Single Shard Linda Sue Park 511.5 HAR", [Self.shard]).decision == .strong)
        // A title too short or common to stand alone is still not added without its author.
        #expect(match("A Single Shard 511.5 HAR", [Self.shard]).decision == .medium)
    }

    /// The tail is evidence that more than the title was read: never a sole title, never a very
    /// short title, and a tail the candidate's own title ends with is that title's word.
    @Test func theTailIsKeptAsEvidenceNeverAsTitleWords() {
        let furyborn = WrongBookGuardTests.book("furyborn", "Furyborn (The Empirium Trilogy, #1)", ["Claire Legrand"])
        #expect(match("FURYBORN", [furyborn]).decision == .strong)
        for tail in ["Springer", "CRC Press", "Ref. 620.11", "N LEG fur", "Edicions 62"] {
            #expect(match("FURYBORN \(tail)", [furyborn]).decision != .strong, "FURYBORN \(tail)")
        }
        #expect(match("14 PETER CLINES Edicions 62", [WrongBookGuardTests.clines]).decision != .strong)
        #expect(match("14 PETER CLINES 511.5 HAR", [WrongBookGuardTests.clines]).decision != .strong)
        let arrow = WrongBookGuardTests.book("arrow", "Time's Arrow", ["Martin Amis"])
        let m = match("MARTIN AMIS TIME'S ARROW", [arrow])
        #expect(m.best?.workKey == "arrow")
        #expect(m.decision == .strong)
    }

    /// One publisher list and one call-number parser: what is a tail after a title is, read alone,
    /// a reading that is no title, and a title that is a word of a publisher's name is still a title.
    @Test func oneVocabularyForAWholeReadingAndATail() {
        func refusal(_ text: String) -> String? { ParsedReading(SpineReading(text: text, confidence: 0.9)).refusal }
        for publisher in ["Springer", "CRC Press", "Edicions 62", "Alianza Editorial", "WILEY", "Anagrama", "PENGUIN CLASSICS",
                          "HARPERCOLLINS", "Random House", "Tor Books", "Oxford University Press"] {
            #expect(ReadingTail("Fearless \(publisher)")?.text == publisher, "\(publisher)")
            #expect(refusal(publisher) == "a publisher's name, not a title", "\(publisher)")
        }
        for label in ["511.5 HAR", "R 004.6 BAR", "Ref. 620.11", "QA76.9 .D3 2015", "TA403 .A74", "821.134.2-31 PAR ifi",
                      "PS3552.R685", "823.914 ROW"] {
            #expect(ReadingTail("Fearless \(label)")?.text == label, "\(label)")
            #expect(refusal(label) == "a call number, not a title", "\(label)")
        }
        // Titles that are words of publishers' names, or that OCR spells like one ("SIAM" as "Slam").
        for title in ["The Little House", "House", "Ariel", "Slam", "Peter Pan", "Marvel 1602"] {
            #expect(refusal(title) == nil, "\(title)")
        }
        #expect(ReadingTail("Peter Pan")?.head == "Peter")
        let pan = WrongBookGuardTests.book("pan", "Peter Pan", ["J.M. Barrie"])
        #expect(match("Peter Pan J.M. Barrie", [pan]).decision == .strong)
    }

    /// A surname that is also a house's name ("Collins", "Norton") read after the title is the
    /// author read when the candidate is that author's book, and a tail for any other.
    @Test func aTailThatIsTheAuthorsNameIsTheAuthorRead() {
        let mockingjay = WrongBookGuardTests.book("mockingjay", "Mockingjay (The Hunger Games, #3)", ["Suzanne Collins"])
        let fire = WrongBookGuardTests.book("fire", "Catching Fire (The Hunger Games, #2)", ["Suzanne Collins"])
        let borrowers = WrongBookGuardTests.book("borrowers", "The Borrowers", ["Mary Norton"])
        #expect(ReadingTail("Mockingjay Collins")?.text == "Collins")
        for (text, book) in [("Mockingjay Collins", mockingjay), ("Catching Fire Suzanne Collins", fire), ("The Borrowers Mary Norton", borrowers)] {
            let m = match(text, [book])
            #expect(m.best?.workKey == book.workKey, "\(text)")
            #expect(m.decision == .strong, "\(text): \(m.reason ?? "")")
        }
        // Another author's book with that title word is still read without its author.
        let other = WrongBookGuardTests.book("other", "Mockingjay", ["Someone Else"])
        #expect(match("Mockingjay Collins", [other]).decision != .strong)
    }
}
