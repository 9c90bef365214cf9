import ArgumentParser
import BookMetadata
import Catalogue
import Foundation
import Intake
import LibraryTransfer
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
          rapidscan review --html review.html

        Without options, lists the medium matches `rapidscan spines` kept back, each with \
        its number. A number stays the entry's own: accepting 1 and 3 leaves 2 as 2. \
        --accept 1,3 adds those books as owned (the same step as a scan: already owned, \
        library limit); --reject 2 drops them; --accept-all / --reject-all for scripts. \
        --html FILE writes one self-contained page (open it in a browser) showing each \
        waiting spine's photo, what was read, the book it matched with its cover, and the \
        exact commands that accept or reject it.

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

    @Option(help: ArgumentHelp("Write the waiting matches as one HTML page (photos inline) to this file.", valueName: "file"),
            completion: .file(extensions: ["html"]))
    var html: String?

    func validate() throws {
        if html != nil && (acceptAll || rejectAll || accept != nil || reject != nil) {
            throw ValidationError("--html lists the waiting matches: accept or reject them in another run")
        }
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
        // Each entry's number is its own (the stored row's), so numbers do not move as others are settled.
        let waiting = Dictionary(pending.compactMap { record in record.id.map { (Int($0), record) } }, uniquingKeysWith: { first, _ in first })
        let all = pending.compactMap { $0.id.map(Int.init) }
        let accepted = acceptAll ? all : try accept.map(Self.numbers) ?? []
        let rejected = rejectAll ? all : try reject.map(Self.numbers) ?? []
        var tally = IntakeTally()
        var inputErrors = false
        let output = SpineOutput(json: json, quiet: false)
        if let html {
            try writePage(pending, to: html, catalogue: catalogue)
            try ExitStatus.exit(outcomes: pending.isEmpty ? [] : [.review])
            return
        }
        if accepted.isEmpty && rejected.isEmpty {
            for record in pending { if let id = record.id { show(Int(id), record) } }
            if !json { Console.error("\(pending.count) matches wait for review") }
            try ExitStatus.exit(outcomes: pending.isEmpty ? [] : [.review])
            return
        }
        for number in Set(accepted + rejected).sorted() where waiting[number] == nil {
            let numbers = all.map(String.init).joined(separator: ", ")
            Console.error("rapidscan: review: no entry \(number) waits for review (\(pending.isEmpty ? "none waits" : "waiting: " + numbers))")
            inputErrors = true
        }
        for number in accepted {
            guard let record = waiting[number] else { continue }
            let event = review.accept(record)
            if event.inputError { inputErrors = true } else { tally.count(event.kind) }
            output.write(event, number: number)
        }
        for number in rejected where !accepted.contains(number) {
            guard let record = waiting[number] else { continue }
            do { try review.reject(record) } catch { throw SessionExitStatus.fail("\(error)") }
            var event = SpineEvent(kind: .unmatched, file: record.file, reading: record.text)
            event.reason = "rejected in review"
            output.write(event, number: number)
        }
        // What is left to review decides "6"; a queue that cannot be read is the database's failure.
        let left: Int
        do { left = try review.pending().count } catch { throw SessionExitStatus.fail("\(error)") }
        if left > 0 { tally.count(.review) }
        try ExitStatus.exit(outcomes: tally.kinds, inputErrors: inputErrors)
    }

    /// `--html FILE`: the page of the waiting matches, each with its cover when the cache has the work.
    private func writePage(_ pending: [SpineRecord], to path: String, catalogue: any CatalogueStore) throws {
        let entries = pending.compactMap { record -> ReviewPage.Entry? in
            guard let id = record.id else { return nil }
            let work = record.workKey.flatMap { key in try? catalogue.work(key: key) }
            return ReviewPage.Entry(number: Int(id), record: record, coverURL: work?.coverImageUrl)
        }
        let page = ReviewPage(entries: entries, libraryArguments: library.db.map { ["--db", $0] } ?? [])
        do { try ExportFile.write(Data(page.html().utf8), to: path) } catch {
            Console.error("rapidscan: cannot write \(OutsideText.shown(path)): \(error.reason)")
            throw ExitStatus.inputError
        }
        Console.error("\(entries.count) \(entries.count == 1 ? "match waits" : "matches wait") for review: \(OutsideText.shown(path))")
    }

    private func show(_ number: Int, _ record: SpineRecord) {
        if json {
            var event = SpineEvent(kind: .review, file: record.file, reading: record.text, decision: .medium,
                                   distance: record.distance, isbn13: record.isbn13, title: record.title,
                                   authors: record.authors, workKey: record.workKey)
            event.box = record.box
            SpineOutput(json: true, quiet: false).write(event, number: number)
        } else {
            let book = "\(record.title ?? "?")\(record.authors.isEmpty ? "" : " — " + record.authors.joined(separator: ", "))"
            Console.out("\(number). \(OutsideText.shown(record.file)): \"\(record.text)\" → \(book) (\(record.isbn13 ?? "no ISBN"), distance \(String(format: "%.2f", record.distance)))")
        }
    }
}
