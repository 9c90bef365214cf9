import ArgumentParser
import BookCodes
import BookLookup
import BookMetadata
import Catalogue
import Foundation

/// `rapidscan lookup ISBN...`: resolves ISBNs through the cache, then the sources.
struct LookupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lookup",
        abstract: "Look books up by ISBN: the local cache first, then Google Books and Open Library.",
        discussion: """
        Examples:
          rapidscan lookup 9780306406157
          rapidscan lookup --offline --file isbns.txt

        Each ISBN (ISBN-13 or ISBN-10, hyphens allowed) prints its work: title, authors, \
        details and every known edition. A book found online is stored in the cache, so the \
        next lookup needs no network. When a source cannot answer (network down, quota, \
        server error) the ISBN is queued: `rapidscan pending retry` resolves it later.
        An invalid ISBN is reported on standard error and the others are still looked up.

        Here: 2 some ISBN is known to no source; 3 some lookup is unavailable (queued, or \
        not cached with --offline); 1 some value is not a valid ISBN or the ISBN file cannot \
        be read; 70 the database or config cannot be used.
        """)

    @Argument(help: "ISBN-13 or ISBN-10 values.")
    var isbns: [String] = []

    @Option(name: .long, help: ArgumentHelp("Also read ISBNs from a file, one per line ('-' for standard input).", valueName: "path"))
    var file: String?

    @Flag(name: .long, help: "Use the local cache only; never the network.")
    var offline = false

    @Flag(name: .long, help: "One JSON object per ISBN (JSON Lines).")
    var json = false

    @OptionGroup var library: LibraryOptions

    func validate() throws {
        if isbns.isEmpty && file == nil {
            throw ValidationError("Give at least one ISBN, or --file PATH ('-' for standard input).")
        }
    }

    func run() async throws {
        let service = try library.openLookupService()
        let values = try inputValues()
        // Online lookups overlap (the sources bound and pace their requests); output stays
        // in input order. Cache hits are faster one after another.
        let width = offline ? 1 : 4
        var statuses: [ExitCode] = []
        for start in stride(from: 0, to: values.count, by: 64) {
            let chunk = Array(values[start..<min(start + 64, values.count)])
            let results = await concurrentMap(chunk, width: width) { value -> LookupResult? in
                guard let isbn = try? ISBN13(validating: value) else { return nil }
                return await service.lookup(isbn, offline: offline)
            }
            for (value, result) in zip(chunk, results) {
                statuses.append(try report(result, input: value, catalogue: service.catalogue))
            }
        }
        fflush(nil)
        let worst = ExitStatus.worst(statuses)
        if worst != ExitStatus.success { throw worst }
    }

    /// Arguments first, then the file's non-blank lines (a trailing `#` comment is ignored).
    private func inputValues() throws -> [String] {
        guard let file else { return isbns }
        let text: String
        if file == "-" {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        } else {
            do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
                throw UnreadableInput(path: file, reason: error.localizedDescription)
            }
        }
        let lines = text.split(whereSeparator: \.isNewline).map { line in
            String(line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]).trimmingCharacters(in: .whitespaces)
        }
        return isbns + lines.filter { !$0.isEmpty }
    }

    /// Prints one value's outcome; nil `result` means the value is not a valid ISBN.
    private func report(_ result: LookupResult?, input: String, catalogue: any CatalogueStore) throws -> ExitCode {
        let isbn: ISBN13
        do {
            isbn = try ISBN13(validating: input)
        } catch {
            // The value is outside text: quoted short and escaped (a 50 MB line is not echoed).
            let quoted = OutsideText.excerpt(input)
            let reason = input.utf8.count > OutsideText.excerptLength ? "not a valid ISBN" : "not a valid ISBN: \(OutsideText.shown("\(error)"))"
            Console.error("\(quoted): \(reason)")
            if json { try JSONLines.write(LookupLine(input: quoted, status: "invalid", error: reason)) }
            return ExitStatus.inputError
        }
        guard let result else { return ExitStatus.inputError }
        switch result {
        case let .found(work, fromCache):
            let editions = try catalogue.editions(of: work)
            if json {
                try JSONLines.write(LookupLine(
                    input: input, isbn13: isbn.digits, status: "found", fromCache: fromCache, work: work, editions: editions))
            } else {
                print("\(isbn.hyphenated)  \(BookFormatting.headline(work))\(fromCache ? "" : "  [new]")")
                BookFormatting.details(work, editions: editions).forEach { print($0) }
            }
        case .notFound:
            if json {
                try JSONLines.write(LookupLine(input: input, isbn13: isbn.digits, status: "notFound"))
            } else {
                print("\(isbn.hyphenated)  Book Not Found — no source knows this ISBN")
            }
        case let .unavailable(source, reason):
            if json {
                try JSONLines.write(LookupLine(
                    input: input, isbn13: isbn.digits, status: "unavailable", source: source.name, error: reason))
            } else if offline {
                print("\(isbn.hyphenated)  Not in the local cache (--offline)")
            } else {
                print("\(isbn.hyphenated)  Queued — \(IntakeWording.queuedBecause(source, reason: reason)); \(IntakeWording.retryPending.command) looks it up once a source answers")
            }
        }
        // The policy's statuses: a lookup's answers name the same situations as the intake's outcomes.
        switch result {
        case .found: return ExitStatus.success
        case .notFound: return ExitStatus.status(for: .notFound)
        case .unavailable(.database, _): return ExitStatus.status(for: .failed)
        case .unavailable: return ExitStatus.status(for: .queued)
        }
    }
}

/// One `lookup --json` line.
struct LookupLine: Encodable {
    var schema = JSONSchema.version
    /// The same word as `status` (docs/CLI.md: every line names its `event`).
    var event: String { status }
    var input: String
    var isbn13: String?
    /// found, notFound, unavailable or invalid.
    var status: String
    var fromCache: Bool?
    var work: Work?
    var editions: [ISBNIndexEntry]?
    var source: String?
    var error: String?

    enum CodingKeys: String, CodingKey { case schema, event, input, isbn13, status, fromCache, work, editions, source, error }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(schema, forKey: .schema)
        try container.encode(event, forKey: .event)
        try container.encode(input, forKey: .input)
        try container.encodeIfPresent(isbn13, forKey: .isbn13)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(fromCache, forKey: .fromCache)
        try container.encodeIfPresent(work, forKey: .work)
        try container.encodeIfPresent(editions, forKey: .editions)
        try container.encodeIfPresent(source, forKey: .source)
        try container.encodeIfPresent(error, forKey: .error)
    }
}

/// An input file that cannot be read (exit status 1).
struct UnreadableInput: Error, CustomStringConvertible {
    var path: String
    var reason: String
    var description: String { "cannot read \(path): \(reason)" }
}
