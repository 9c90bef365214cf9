import ArgumentParser
import BookMetadata
import Catalogue
import Foundation
import Intake
import SpineMatching
import SpineScanning

struct ReviewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "review",
        abstract: "List spine matches waiting for review and accept or reject them.",
        discussion: """
        Examples:
          rapidscan review
          rapidscan review --accept 1,3 --reject 2

        Without options, lists the medium matches `rapidscan spines` kept back, numbered. \
        --accept 1,3 adds those books as owned (the same step as a scan: already owned, \
        library limit); --reject 2 drops them; --accept-all / --reject-all for scripts.

        Exit status: 0 done (nothing left to review); 6 matches still wait for review; \
        5 some accepted books did not fit in the library (`rapidscan account --pro`); \
        1 a number named no entry; 70 database error; 64 bad usage.
        """
    )

    @OptionGroup var library: LibraryOptions

    @Option(help: ArgumentHelp("Numbers to accept, comma-separated.", valueName: "n,..."))
    var accept: String?

    @Option(help: ArgumentHelp("Numbers to reject, comma-separated.", valueName: "n,..."))
    var reject: String?

    @Flag(name: .customLong("accept-all"), help: "Accept every pending match.")
    var acceptAll = false

    @Flag(name: .customLong("reject-all"), help: "Reject every pending match.")
    var rejectAll = false

    @Flag(help: "Print JSON Lines.")
    var json = false

    @Option(help: "The list accepted books go to, by id or name (default: Want to Read).", completion: ValueCompletion.listNames)
    var list: String?

    func validate() throws {
        if acceptAll && rejectAll { throw ValidationError("--accept-all and --reject-all exclude each other") }
        if (acceptAll || rejectAll) && (accept != nil || reject != nil) {
            throw ValidationError("--accept-all/--reject-all cannot be combined with --accept/--reject")
        }
        for (flag, value) in [("--accept", accept), ("--reject", reject)] {
            guard let value else { continue }
            if (try? Self.numbers(value)) == nil { throw ValidationError("\(flag): '\(value)' is not a list of entry numbers like 1,3") }
        }
    }

    static func numbers(_ text: String) throws -> [Int] {
        try text.split(separator: ",").map { part in
            guard let n = Int(part.trimmingCharacters(in: .whitespaces)), n > 0 else { throw ValidationError("bad number") }
            return n
        }
    }

    func run() async throws {
        let (_, catalogue) = try library.openForSession()
        let listId = try list.map { try SessionOptions.resolveList($0, in: catalogue) }
        let review = SpineReview(catalogue: catalogue, listId: listId)
        let pending: [SpineRecord]
        do { pending = try review.pending() } catch { throw SessionExitStatus.fail("\(error)") }
        let accepted = acceptAll ? Array(1...max(1, pending.count)).filter { $0 <= pending.count } : try accept.map(Self.numbers) ?? []
        let rejected = rejectAll ? Array(1...max(1, pending.count)).filter { $0 <= pending.count } : try reject.map(Self.numbers) ?? []
        var tally = IntakeTally()
        var inputErrors = false
        let output = SpineOutput(json: json, quiet: false)
        if accepted.isEmpty && rejected.isEmpty {
            for (number, record) in pending.enumerated() { show(number + 1, record) }
            if !json { Console.error("\(pending.count) matches wait for review") }
            try ExitStatus.exit(outcomes: pending.isEmpty ? [] : [.review])
            return
        }
        for number in Set(accepted + rejected).sorted() where number > pending.count {
            Console.error("rapidscan: review: there is no entry \(number) (\(pending.count) pending)")
            inputErrors = true
        }
        for number in accepted where number <= pending.count {
            let event = review.accept(pending[number - 1])
            if event.inputError { inputErrors = true } else { tally.count(event.kind) }
            output.write(event)
        }
        for number in rejected where number <= pending.count && !accepted.contains(number) {
            do { try review.reject(pending[number - 1]) } catch { throw SessionExitStatus.fail("\(error)") }
            var event = SpineEvent(kind: .unmatched, file: pending[number - 1].file, reading: pending[number - 1].text)
            event.reason = "rejected in review"
            output.write(event)
        }
        // What is left to review decides "6"; a queue that cannot be read is the database's failure.
        let left: Int
        do { left = try review.pending().count } catch { throw SessionExitStatus.fail("\(error)") }
        if left > 0 { tally.count(.review) }
        try ExitStatus.exit(outcomes: tally.kinds, inputErrors: inputErrors)
    }

    private func show(_ number: Int, _ record: SpineRecord) {
        if json {
            let event = SpineEvent(kind: .review, file: record.file, reading: record.text, decision: .medium,
                                   distance: record.distance, isbn13: record.isbn13, title: record.title,
                                   authors: record.authors, workKey: record.workKey)
            SpineOutput(json: true, quiet: false).write(event, number: number)
        } else {
            let book = "\(record.title ?? "?")\(record.authors.isEmpty ? "" : " — " + record.authors.joined(separator: ", "))"
            Console.out("\(number). \(OutsideText.shown(record.file)): \"\(record.text)\" → \(book) (\(record.isbn13 ?? "no ISBN"), distance \(String(format: "%.2f", record.distance)))")
        }
    }
}
