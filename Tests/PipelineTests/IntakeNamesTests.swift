import BookCodes
import Intake
import Pipeline
import Testing
import TestSupport

/// A scan reports the intake's outcomes under the intake's names (the JSON `event` every door uses).
@Suite struct IntakeNamesTests {
    @Test func everyBookOutcomeOfAScanIsNamedAsTheIntakeNamesIt() {
        for kind in IntakeOutcome.Kind.allCases where ![.review, .unmatched].contains(kind) {
            #expect(ScanEvent.Kind(rawValue: kind.rawValue) != nil, "\(kind) has no scan event of the same name")
        }
        let book = ScannedBook(isbn13: isbn("9780306406157"))
        let outcomes: [ScanEvent.Outcome] = [
            .added(book), .alreadyOwned(book), .libraryFull(book, owned: 50, limit: 50),
            .queued(book, waitingFor: .source("googleBooks"), reason: "down"), .notFound(book), .failed(book, reason: "x"),
        ]
        let names = outcomes.map { ScanEvent(file: "a.jpg", captureTime: .init(timeIntervalSince1970: 0), outcome: $0).kind.rawValue }
        #expect(names == ["added", "alreadyOwned", "libraryFull", "queued", "notFound", "failed"])
        #expect(names.allSatisfy { IntakeOutcome.Kind(rawValue: $0) != nil })
    }
}
