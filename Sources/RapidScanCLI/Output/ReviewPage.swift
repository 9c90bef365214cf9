import BookCodes
import BookMetadata
import Catalogue
import Foundation
import Imaging
import SpineScanning
import Vision

/// `rapidscan review --html FILE`: one self-contained page (no file beside it) showing each
/// spine waiting for review: the spine cut out of its photo and turned so its text reads
/// across (`SpineCrop`), beside a small copy of the whole photo with the spine outlined; what
/// was read; the book it matched (title, authors, ISBN, cover when the source gave one) and
/// the exact commands that accept or reject it. Images are data: URI JPEGs.
///
/// A record kept before spine boxes were (or from a reader that gave none) shows the whole
/// photo the spine was read from, at most `photoSide` px on the long side, with its position in the reply.
struct ReviewPage {
    /// One waiting spine, with its stable number (`review --accept N`).
    struct Entry {
        var number: Int
        var record: SpineRecord
        /// The matched book's cover (a source's URL), when the cache has one.
        var coverURL: String?
    }

    static let photoSide = 640
    /// The whole photo beside a cut-out spine.
    static let thumbnailSide = 320
    /// A photo is decoded with at least this long side for cutting spines out (a phone photo
    /// at half size: its spine text still 30 px or more high).
    static let cropSourceSide = 2000

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

    /// A photo decoded for the page: upright, colour when a JPEG (`gray`: the planes are one).
    struct Photo {
        var picture: ColorImage
        var gray: Bool
    }

    /// A JPEG for the page and its size.
    struct Shown {
        var jpeg: Data
        var width: Int
        var height: Int
    }

    /// The page. `photo` decodes a record's photo, or says why it cannot be shown. Entries of
    /// one photo follow each other (the queue is in the order photos were read): it is decoded
    /// once for them, and its whole-photo images are made once.
    func html(photo: (String) -> Result<Photo, VisionError> = Self.loadPhoto) -> String {
        var current: (file: String, photo: Result<Photo, VisionError>)?
        var wholes: [String: Result<Shown, VisionError>] = [:]
        var thumbnails: [String: Result<Shown, VisionError>] = [:]
        var body = ""
        for entry in entries {
            let file = entry.record.file
            if current?.file != file { current = (file, photo(file)) }
            let decoded = current!.photo
            let picture: String
            if let box = entry.record.box, case .success(let source) = decoded,
               let crop = SpineCrop.cut(source.picture, box: box).flatMap({ Self.jpeg($0, gray: source.gray) }) {
                if thumbnails[file] == nil { thumbnails[file] = decoded.flatMap { Self.shown($0, side: Self.thumbnailSide) } }
                picture = cutOut(entry, crop: crop, thumbnail: thumbnails[file]!, box: box)
            } else {
                if wholes[file] == nil { wholes[file] = decoded.flatMap { Self.shown($0, side: Self.photoSide) } }
                picture = whole(entry, wholes[file]!)
            }
            body += section(entry, picture: picture)
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
            .cropped { flex-basis: 100%; }
            .spine .crop { display: block; max-width: 100%; height: auto; border: 1px solid #555; }
            .where { position: relative; display: inline-block; line-height: 0; }
            .where svg { position: absolute; left: 0; top: 0; width: 100%; height: 100%; }
            .where polygon { fill: none; stroke: #e0201b; stroke-width: 3; vector-effect: non-scaling-stroke; }
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

    /// The spine cut out across the entry, and under it the whole photo small with the spine outlined.
    private func cutOut(_ entry: Entry, crop: Shown, thumbnail: Result<Shown, VisionError>, box: SpineBox) -> String {
        let e = OutsideText.markupEscaped
        let file = e(OutsideText.shown(entry.record.file))
        var html = "<div class=\"cropped\"><img class=\"crop\" alt=\"spine \(entry.record.readingIndex + 1) of \(file)\" width=\"\(crop.width)\" height=\"\(crop.height)\" src=\"data:image/jpeg;base64,\(crop.jpeg.base64EncodedString())\"></div><div>"
        if case .success(let small) = thumbnail, let outline = box.scaled(toWidth: small.width, height: small.height) {
            let points = outline.corners.map { String(format: "%.1f,%.1f", $0.x, $0.y) }.joined(separator: " ")
            html += "<div class=\"where\"><img class=\"thumbnail\" alt=\"\(file)\" width=\"\(small.width)\" height=\"\(small.height)\" src=\"data:image/jpeg;base64,\(small.jpeg.base64EncodedString())\">"
                + "<svg viewBox=\"0 0 \(small.width) \(small.height)\" preserveAspectRatio=\"none\"><polygon class=\"outline\" points=\"\(points)\"/></svg></div>"
        }
        return html + "<p>\(file), spine \(entry.record.readingIndex + 1) of the reply</p></div>"
    }

    /// The whole photo (no box recorded), with the spine's place in the reply.
    private func whole(_ entry: Entry, _ photo: Result<Shown, VisionError>) -> String {
        let e = OutsideText.markupEscaped
        let file = OutsideText.shown(entry.record.file)
        let picture = switch photo {
        case .success(let shown):
            "<img class=\"photo\" alt=\"\(e(file))\" src=\"data:image/jpeg;base64,\(shown.jpeg.base64EncodedString())\">"
        case .failure(let error):
            "<p class=\"missing\">\(e(error.description))</p>"
        }
        return "<div>\(picture)<p>\(e(file)), spine \(entry.record.readingIndex + 1) of the reply</p></div>"
    }

    private func section(_ entry: Entry, picture: String) -> String {
        let record = entry.record
        let e = OutsideText.markupEscaped
        let cover = entry.coverURL.map { "<img class=\"cover\" alt=\"cover\" src=\"\(e($0))\">" } ?? ""
        let title = record.title.map { OutsideText.clean($0) } ?? "?"
        let authors = record.authors.map { OutsideText.clean($0) }.joined(separator: ", ")
        let isbn = record.isbn13.flatMap { try? ISBN13(validating: $0) }.map { "ISBN \(IntakeWording.shown($0))" } ?? "no ISBN"
        return """
            <section class="spine" id="entry-\(entry.number)">
            \(picture)
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

    /// The photo at `path`, upright, large enough to cut spines out of.
    static func loadPhoto(_ path: String) -> Result<Photo, VisionError> {
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(.image(photo: path, message: "is no longer there"))
        }
        return Result { () throws(VisionError) in
            let (picture, gray) = try ShelfImage.picture(ShelfPhoto(path: path, data: data), minimumLongSide: cropSourceSide)
            return Photo(picture: picture, gray: gray)
        }
    }

    /// The whole photo with its long side at most `side`, as a JPEG.
    static func shown(_ photo: Photo, side: Int) -> Result<Shown, VisionError> {
        let small = photo.picture.map { ShelfImage.fit($0, maxSide: side) }
        guard let shown = jpeg(small, gray: photo.gray) else { return .failure(.image(photo: "", message: "cannot be encoded as JPEG")) }
        return .success(shown)
    }

    static func jpeg(_ image: ColorImage, gray: Bool) -> Shown? {
        let data = gray ? try? ImageEncoder.jpegData(image.red, quality: 85)
            : try? ImageEncoder.jpegData(rgb: image.interleaved, width: image.width, height: image.height, quality: 85)
        return data.map { Shown(jpeg: $0, width: image.width, height: image.height) }
    }
}

/// A spine cut out of its photo: the box's corners mapped onto an upright rectangle (a leaning
/// spine straightened, one printed top to bottom or bottom to top turned to read across), a
/// margin around it, scaled so the text is readable and the page not too wide.
enum SpineCrop {
    /// The crop's height, margin included, unless that would make it wider than `maxWidth`;
    /// a box taller than long (letters stacked upright, read as they stand) is shown taller.
    static let height = 120
    static let standingHeight = 360
    static let maxWidth = 1000
    /// Margin on every side, as a share of the text's height.
    static let margin = 0.3
    /// Never enlarged more than this (a tiny box says little more when blown up).
    static let maxScale = 4.0

    /// nil when the box has no size on this photo.
    static func cut(_ picture: ColorImage, box: SpineBox) -> ColorImage? {
        guard let placed = box.scaled(toWidth: picture.width, height: picture.height) else { return nil }
        let (topLeft, topRight, bottomRight, bottomLeft) = (placed.corners[0], placed.corners[1], placed.corners[2], placed.corners[3])
        let (length, thickness) = (placed.readingWidth, placed.readingHeight)
        let pad = margin * thickness
        let (sourceWidth, sourceHeight) = (length + 2 * pad, thickness + 2 * pad)
        let target = Double(sourceHeight > sourceWidth ? standingHeight : height)
        let scale = min(maxScale, target / sourceHeight, Double(maxWidth) / sourceWidth)
        let width = max(1, Int((sourceWidth * scale).rounded())), rows = max(1, Int((sourceHeight * scale).rounded()))
        // Where each crop pixel comes from: (u, v) across and down the text, past 0...1 by the margin.
        let (du, dv) = (pad / length, pad / thickness)
        var points = [(Double, Double)]()
        points.reserveCapacity(width * rows)
        for row in 0..<rows {
            let v = -dv + (Double(row) + 0.5) / Double(rows) * (1 + 2 * dv)
            for column in 0..<width {
                let u = -du + (Double(column) + 0.5) / Double(width) * (1 + 2 * du)
                let x = (1 - v) * ((1 - u) * topLeft.x + u * topRight.x) + v * ((1 - u) * bottomLeft.x + u * bottomRight.x)
                let y = (1 - v) * ((1 - u) * topLeft.y + u * topRight.y) + v * ((1 - u) * bottomLeft.y + u * bottomRight.y)
                points.append((x, y))
            }
        }
        return picture.map { plane in sample(plane, at: points, width: width, height: rows) }
    }

    /// Bilinear samples of `image` at pixel-area coordinates, clamped to its edges.
    static func sample(_ image: GrayImage, at points: [(Double, Double)], width: Int, height: Int) -> GrayImage {
        var pixels = [UInt8](repeating: 0, count: points.count)
        let (maxX, maxY) = (image.width - 1, image.height - 1)
        image.pixels.withUnsafeBufferPointer { source in
            for (index, (x, y)) in points.enumerated() {
                let (fx, fy) = (min(Double(maxX), max(0, x - 0.5)), min(Double(maxY), max(0, y - 0.5)))
                let (x0, y0) = (Int(fx), Int(fy))
                let (x1, y1) = (min(maxX, x0 + 1), min(maxY, y0 + 1))
                let (ax, ay) = (fx - Double(x0), fy - Double(y0))
                let top = Double(source[y0 * image.width + x0]) * (1 - ax) + Double(source[y0 * image.width + x1]) * ax
                let bottom = Double(source[y1 * image.width + x0]) * (1 - ax) + Double(source[y1 * image.width + x1]) * ax
                pixels[index] = UInt8(min(255, max(0, (top * (1 - ay) + bottom * ay).rounded())))
            }
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }
}
