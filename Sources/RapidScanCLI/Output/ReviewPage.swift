import BookCodes
import BookMetadata
import Catalogue
import Foundation
import Vision

/// `rapidscan review --html FILE`: one self-contained page (no file beside it) showing each
/// spine waiting for review: its photo (a data: URI JPEG, upright, at most `photoSide` px on
/// the long side), what was read, the book it matched (title, authors, ISBN, cover when the
/// source gave one) and the exact commands that accept or reject it.
///
/// The spine's own box is not recorded (a vision model answers with positions, not boxes),
/// so the page shows the whole photo the spine was read from, with its position in the reply.
struct ReviewPage {
    /// One waiting spine, with its stable number (`review --accept N`).
    struct Entry {
        var number: Int
        var record: SpineRecord
        /// The matched book's cover (a source's URL), when the cache has one.
        var coverURL: String?
    }

    static let photoSide = 640

    var entries: [Entry]
    /// What the commands must carry to reach the same library (`--db PATH` when one was given).
    var libraryArguments: [String]

    /// The command a person types for `flag` (`--accept`/`--reject`) on entry `number`.
    func command(_ flag: String, _ number: Int) -> String {
        (["rapidscan", "review"] + libraryArguments + [flag, String(number)]).map(Self.shellWord).joined(separator: " ")
    }

    /// A word as a shell reads it back: bare when it is plain, else in single quotes.
    static func shellWord(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "-_./=:,@+".unicodeScalars.contains($0) }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The page. `photo` gives a record's photo as JPEG bytes, or why it cannot be shown;
    /// photos shared by several entries are prepared once.
    func html(photo: (String) -> Result<Data, VisionError> = Self.photoJPEG) -> String {
        var photos: [String: Result<Data, VisionError>] = [:]
        var body = ""
        for entry in entries {
            let file = entry.record.file
            if photos[file] == nil { photos[file] = photo(file) }
            body += section(entry, photo: photos[file]!)
        }
        let count = entries.count
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>rapidscan review — \(count) \(count == 1 ? "spine waits" : "spines wait")</title>
            <style>
            body { font: 16px/1.4 system-ui, sans-serif; margin: 1.5em; background: #f6f4ef; color: #222; }
            h1 { font-size: 1.4em; }
            .spine { background: #fff; border: 1px solid #ccc; border-radius: 6px; padding: 1em; margin: 0 0 1.2em; display: flex; gap: 1.2em; flex-wrap: wrap; }
            .spine .photo { max-width: 480px; max-height: 360px; border: 1px solid #999; }
            .spine .cover { max-height: 160px; border: 1px solid #999; }
            .number { font-size: 1.6em; font-weight: bold; color: #8a3b12; }
            code { background: #eee; padding: 0.1em 0.3em; border-radius: 3px; user-select: all; }
            .missing { color: #a00; }
            </style>
            </head>
            <body>
            <h1>\(count) \(count == 1 ? "spine waits" : "spines wait") for review</h1>
            <p>Each match below was kept back: the reading was close to the book, not close enough to add it unasked.
            Accept the right ones, reject the rest.</p>
            \(body)</body>
            </html>

            """
    }

    private func section(_ entry: Entry, photo: Result<Data, VisionError>) -> String {
        let record = entry.record
        let e = OutsideText.markupEscaped
        let file = OutsideText.shown(record.file)
        let picture = switch photo {
        case .success(let jpeg):
            "<img class=\"photo\" alt=\"\(e(file))\" src=\"data:image/jpeg;base64,\(jpeg.base64EncodedString())\">"
        case .failure(let error):
            "<p class=\"missing\">\(e(error.description))</p>"
        }
        let cover = entry.coverURL.map { "<img class=\"cover\" alt=\"cover\" src=\"\(e($0))\">" } ?? ""
        let title = record.title.map { OutsideText.clean($0) } ?? "?"
        let authors = record.authors.map { OutsideText.clean($0) }.joined(separator: ", ")
        let isbn = record.isbn13.flatMap { try? ISBN13(validating: $0) }.map { "ISBN \(IntakeWording.shown($0))" } ?? "no ISBN"
        return """
            <section class="spine" id="entry-\(entry.number)">
            <div>\(picture)<p>\(e(file)), spine \(record.index + 1) of the reply</p></div>
            <div>
            <p class="number">\(entry.number)</p>
            <p>Read: “<span class="reading">\(e(OutsideText.clean(record.text)))</span>”</p>
            <p>Matched: <b class="title">\(e(title))</b>\(authors.isEmpty ? "" : " — <span class=\"authors\">\(e(authors))</span>") (\(e(isbn)), distance \(String(format: "%.2f", record.distance)))</p>
            \(cover)
            <p>Accept: <code class="accept">\(e(command("--accept", entry.number)))</code></p>
            <p>Reject: <code class="reject">\(e(command("--reject", entry.number)))</code></p>
            </div>
            </section>

            """
    }

    /// The photo at `path` as the vision request prepares it (upright, colour when a JPEG).
    static func photoJPEG(_ path: String) -> Result<Data, VisionError> {
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(.image(photo: path, message: "is no longer there"))
        }
        return Result { () throws(VisionError) in
            try ShelfImage.prepare(ShelfPhoto(path: path, data: data), maxSide: photoSide).first?.jpeg ?? Data()
        }
    }
}
