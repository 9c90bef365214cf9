import Imaging

/// Titles in upright letters stacked down the spine ("E", "R", "A", "G", "O", "N" one under
/// another): turned 90° or 270° the letters lie on their sides and the strip reads as nothing.
/// Such a strip holds a column of letter-sized blobs, one under the other with small gaps;
/// each is cut out and they are set side by side, one line Tesseract reads as a word.
enum StackedLetters {
    /// One blob of ink rows: rows `top..<bottom`, ink columns `left..<right` of the strip.
    struct Blob { var top: Int, bottom: Int, left: Int, right: Int
        var height: Int { bottom - top }
        var width: Int { right - left }
    }

    /// The strip's stacked letters as one line of dark text on light, letters about
    /// `letterHeight` px tall; nil when the strip holds no column of `minimumLetters` or more.
    static func line(_ image: GrayImage, strip: SpineStrip, letterHeight: Int = 48, minimumLetters: Int = 4) -> GrayImage? {
        line(in: SpineStrips.standing(image, strip: strip), letterHeight: letterHeight, minimumLetters: minimumLetters)
    }

    /// The same from the strip as it stands (`SpineStrips.standing`).
    static func line(in crop: GrayImage, letterHeight: Int = 48, minimumLetters: Int = 4) -> GrayImage? {
        guard crop.width >= 12, crop.height >= 4 * crop.width / 2 else { return nil }
        let letters = column(in: crop, minimumLetters: minimumLetters)
        guard !letters.isEmpty else { return nil }
        let heights = letters.map(\.height).sorted()
        let median = heights[heights.count / 2]
        let margin = max(2, median / 6)
        // Cells share one height (the tallest letter and its margin), letters centred; a quarter
        // letter between cells, as between letters of a word.
        let cellHeight = heights.last! + 2 * margin
        let gap = max(2, median / 4)
        let cells = letters.map { letter in
            (x0: max(0, letter.left - margin), x1: min(crop.width, letter.right + margin),
             y0: letter.top - (cellHeight - letter.height) / 2)
        }
        let width = cells.reduce(0) { $0 + $1.x1 - $1.x0 } + gap * (cells.count - 1)
        var pixels = [UInt8](repeating: 255, count: width * cellHeight)
        var x = 0
        for cell in cells {
            for row in 0..<cellHeight {
                let y = cell.y0 + row
                guard y >= 0, y < crop.height else { continue }
                for column in cell.x0..<cell.x1 { pixels[row * width + x + column - cell.x0] = crop[column, y] }
            }
            x += cell.x1 - cell.x0 + gap
        }
        // The spine's colour to white, the darkest ink to black: a gray background around each
        // cut-out letter read as strokes ("EREARLESS" for FEARLESS).
        let inCells = cells.flatMap { cell in
            (max(0, cell.y0)..<min(crop.height, cell.y0 + cellHeight)).flatMap { y in (cell.x0..<cell.x1).map { crop[$0, y] } }
        }.sorted()
        let low = Int(inCells[inCells.count / 50]), background = max(low + 1, Int(inCells[inCells.count / 2]))
        let table = (0..<256).map { UInt8(max(0, min(255, ($0 - low) * 255 / (background - low)))) }
        var line = GrayImage(width: width, height: cellHeight, pixels: pixels).mapped(table)
        let scale = Double(letterHeight) / Double(median)
        line = line.scaled(toPixels: Int(Double(width * cellHeight) * scale * scale), maxLongSide: 100_000).image
        return line.padded(by: 10, value: 255)
    }

    /// The longest column of letter-sized blobs in a dark-on-light strip, top to bottom: each
    /// about as tall as wide (an upright letter), narrower than the strip, none much taller
    /// than the others, the gaps between them under a letter's height. (Text along the spine
    /// makes such blobs too, one per letter on its side: strips are tried only when no turn read them.)
    static func column(in crop: GrayImage, minimumLetters: Int) -> [Blob] {
        let (width, height) = (crop.width, crop.height)
        let histogram = crop.histogram
        let split = SpineStrips.otsu(histogram, total: width * height)
        // Columns inked down three quarters of the strip are a side's dark band or shadow, not
        // letters (stacked letters' strokes can fill half); nor are the columns near the sides.
        let band = (0..<width).map { x in (0..<height).filter { Int(crop[x, $0]) <= split }.count * 4 >= height * 3 }
        let inner = (width / 8..<width - width / 8).filter { !band[$0] }
        var inked = [Bool](repeating: false, count: height)
        for y in 0..<height {
            var count = 0
            for x in inner where Int(crop[x, y]) <= split { count += 1 }
            inked[y] = count >= max(2, inner.count / 25)
        }
        var blobs: [Blob] = []
        var start: Int?
        for y in 0...height {
            let on = y < height && inked[y]
            if on, start == nil { start = y }
            if !on, let top = start {
                start = nil
                // The blob's ink columns (off the sides): those holding ink on a tenth of its rows.
                let rows = y - top
                let columns = inner.filter { x in (top..<y).filter { Int(crop[x, $0]) <= split }.count * 10 >= rows }
                guard let left = columns.first, let right = columns.last else { continue }
                blobs.append(Blob(top: top, bottom: y, left: left, right: right + 1))
            }
        }
        // An upright letter fits the spine's width: as tall as a fifth of it to a little more
        // than all of it, and not much wider than tall.
        let letterLike = { (blob: Blob) in
            blob.height * 5 >= width && blob.height * 10 <= width * 13 && blob.height >= 8 && blob.width * 10 <= blob.height * 16
        }
        var best: [Blob] = [], run: [Blob] = []
        for blob in blobs {
            if letterLike(blob), let last = run.last,
               blob.top - last.bottom <= last.height * 7 / 10,
               blob.height * 3 >= last.height * 2, blob.height * 2 <= last.height * 3 {
                run.append(blob)
            } else {
                run = letterLike(blob) ? [blob] : []
            }
            if run.count > best.count { best = run }
        }
        return best.count >= minimumLetters ? best : []
    }
}
