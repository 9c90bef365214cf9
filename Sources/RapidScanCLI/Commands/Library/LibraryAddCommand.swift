import ArgumentParser
import BookCodes
import BookLookup
import Catalogue
import Foundation

/// `rapidscan library add ISBN… [--list L] [--status S]`: like a scan without a photo.
/// `--title`/`--author` file a book no source knows by hand (`apiSource: manual`).
struct LibraryAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Look ISBNs up and add them as owned; --title/--author add a book no source knows.",
        discussion: """
        Examples:
          rapidscan library add 9780306406157
          rapidscan library add 9780000000002 --title "Recipes" --author "A. Smith"

        Each ISBN goes through the cache, then the sources, like a scanned barcode: a book you \
        own already (any edition) is reported, the free plan's limit holds. A code no source \
        knows is remembered (`rapidscan library notfound`); add it by hand with \
        `add ISBN --title T --author A`.
        """)

    @Argument(help: "ISBN-10 or ISBN-13 (hyphens allowed).")
    var isbns: [String]

    @Option(name: .long, help: "The list to add to (name or id; default: Want to Read).", completion: ValueCompletion.listNames)
    var list: String?

    @Option(name: .long, help: "Reading status: unread, reading, read, notInterested.", completion: ValueCompletion.readingStatus)
    var status: String?

    @Option(name: .long, help: "Title of a book no source knows (one ISBN only).")
    var title: String?

    @Option(name: .long, help: "Author of a book added by hand (repeat for several).")
    var author: [String] = []

    @Option(name: .customLong("owned-format"), help: "physical, ebook or audiobook.")
    var ownedFormat = "physical"

    @Flag(name: .long, help: "Use the local cache only.")
    var offline = false

    @Flag(name: .long, help: "JSON Lines.")
    var json = false

    @OptionGroup var library: LibraryOptions

    func validate() throws {
        for text in isbns where parseISBN(text) == nil { throw ValidationError("'\(text)' is not a valid ISBN-10 or ISBN-13.") }
        if let status, ReadingStatus(rawValue: status) == nil { throw ValidationError("--status must be unread, reading, read or notInterested, got '\(status)'.") }
        if OwnedFormat(rawValue: ownedFormat) == nil { throw ValidationError("--owned-format must be physical, ebook or audiobook.") }
        if title != nil && isbns.count != 1 { throw ValidationError("--title adds one book by hand: give exactly one ISBN.") }
        if title != nil && author.isEmpty { throw ValidationError("--title needs --author.") }
        if title == nil && !author.isEmpty { throw ValidationError("--author needs --title.") }
    }

    func run() async throws {
        var worst: ExitCode = .success
        do {
            let service = try library.openLookupService()
            let catalogue = service.catalogue
            let listId = try list.map { try catalogue.list(named: $0).id }
            for text in isbns {
                let code = parseISBN(text)!
                let work: Work
                var source = "cache"
                if let title {
                    work = try catalogue.recordManual(isbn: code, title: title, authors: author)
                    try catalogue.forgetNotFound(isbn: code)
                    source = "manual"
                } else {
                    switch await service.lookup(code, offline: offline, intent: .own(listId: listId, format: ownedFormat)) {
                    case let .found(found, fromCache):
                        work = found
                        source = fromCache ? "cache" : found.apiSource
                    case .notFound:
                        try catalogue.rememberNotFound(isbn: code, origin: "add")
                        report(AddLine(event: "notFound", isbn13: code.digits, source: nil, error: "no source knows \(code.digits); add it by hand with --title and --author"))
                        worst = worse(worst, LibraryExit.noMatch)
                        continue
                    case let .unavailable(source, reason):
                        report(AddLine(event: "queued", isbn13: code.digits, source: source.name, error: "\(source) could not answer (\(reason)); `rapidscan pending retry` adds it later"))
                        worst = worse(worst, ExitCode(3))
                        continue
                    }
                }
                switch try catalogue.addOwned(isbn: code, work: work, listId: listId, format: ownedFormat) {
                case var .added(item):
                    if let status = status.flatMap(ReadingStatus.init) { item = try catalogue.updateItem(id: item.id, ItemChange(status: status)) }
                    report(AddLine(event: "added", isbn13: code.digits, title: item.title, authors: item.authors, workKey: item.bookId, source: source))
                case let .alreadyOwned(item):
                    report(AddLine(event: "alreadyOwned", isbn13: code.digits, title: item.title, authors: item.authors, workKey: item.bookId, source: source))
                case let .libraryFull(owned, limit):
                    report(AddLine(event: "libraryFull", isbn13: code.digits, title: work.title, authors: work.authors, workKey: work.workKey, source: source,
                                   error: "the free plan holds \(limit) owned books (\(owned) owned); `rapidscan account pro` lifts the limit"))
                    worst = worse(worst, LibraryExit.libraryFull)
                }
            }
        } catch {
            throw LibraryExit.fail(error)
        }
        if worst != .success { throw worst }
    }

    func report(_ line: AddLine) {
        if json { if let text = try? JSONLines.encode(line) { Console.out(text) }; return }
        let name = line.title.map { "\($0)\(line.authors.map { " — " + $0.joined(separator: ", ") } ?? "")" } ?? line.isbn13
        switch line.event {
        case "added": Console.out("added: \(name) (\(line.isbn13))")
        case "alreadyOwned": Console.out("already in library: \(name) (\(line.isbn13))")
        default: Console.error("\(line.event): \(line.isbn13): \(line.error ?? "")")
        }
    }
}

/// The first code in docs/CLI.md's precedence order wins.
func worse(_ a: ExitCode, _ b: ExitCode) -> ExitCode {
    let order: [Int32] = [130, 70, 1, 5, 3, 2, 6, 4, 0]
    return (order.firstIndex(of: a.rawValue) ?? 8) <= (order.firstIndex(of: b.rawValue) ?? 8) ? a : b
}

struct AddLine: Encodable {
    var schema = JSONSchema.version
    var event: String
    var isbn13: String
    var title: String?
    var authors: [String]?
    var workKey: String?
    var source: String?
    var error: String?
}
