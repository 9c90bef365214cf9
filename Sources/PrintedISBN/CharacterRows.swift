import Imaging
import SpineOCR

/// Rows of character-sized marks, found without OCR: where a printed ISBN line could be.
///
/// An ISBN line is ten or more marks of one height side by side ("ISBN 0-345-34803-6", the
/// digits under the bars). Most photos that read no code (a shelf, a table, a blurred cover)
/// have no such row large enough to read, and the page pass (Tesseract, up to 1 s of CPU) is
/// spent only on a photo that has one. One pass over a copy of at most ~0.6 MP: marks darker
/// than their neighbourhood by a clear step, joined into connected components,
/// grouped into rows by height and baseline.
public enum CharacterRows {
    /// Marks in the longest row of like marks, the ISBN line's shortest form being "ISBN" and
    /// ten digits (characters that touch join into one mark, so fewer are asked for).
    static let minimumRowLength = 8
    /// Marks at least this many pixels tall in the reduced copy (the page pass scales a 12 MP
    /// photo to 2.4 MP: 5 px at 1/4 is ~9 px there, where Tesseract starts reading).
    static let minimumMarkHeight = 5
    /// The reduced copy's size bound.
    static let workPixels = 600_000
    /// How much darker than the window's mean a pixel is to be ink.
    static let inkStep = 14

    /// Whether `image` holds a row of character-sized marks that may be an ISBN line (the gate).
    public static func holdsNumberLikeRow(_ image: GrayImage) -> Bool {
        !isbnLineCandidates(survey(image)).isEmpty
    }

    /// A row of like marks side by side.
    public struct Row: Sendable, Hashable {
        /// How many marks.
        public var marks: Int
        /// Their median height, in the pixels of the image looked at (not the reduced copy).
        public var markHeight: Int
        /// Where the row is, in the pixels of the image looked at.
        public var box = Box(x0: 0, y0: 0, x1: 0, y1: 0)
        /// The share of its marks whose top and bottom both lie on the row's (within a fifth
        /// of its height): digits and capitals ~1, lower-case text with its ascenders and
        /// descenders far less.
        public var evenness = 0.0
        /// Their median width, in the pixels of the image looked at: a bar's is a small share
        /// of its height, a character's a half or more.
        public var markWidth = 0
    }

    /// The longest row of dark marks of one height.
    public static func longestRow(in image: GrayImage) -> Row {
        survey(image).longest
    }

    /// What the gate sees on its reduced copy: every row of dark marks at least
    /// `minimumRowLength` long. Dark ink only (stop 43): the second look, for light ink on a
    /// dark ground when no dark row was long, gave no printed read on either half of
    /// `bench-printed-isbn` (the digit line and the ISBN line sit in the code's light box), and
    /// on small code-free photos its rows were looked at and paged for nothing (2.3–3.1 s of a
    /// 242-photo half's follow-up, with the looks and pages they led to).
    public struct Survey: Sendable, Hashable {
        public var rows: [Row] = []
        /// The height of the image looked at (its rows' pixels).
        public var imageHeight = 0
        public var longest: Row { rows.max { $0.marks < $1.marks } ?? Row(marks: 0, markHeight: 0) }
    }

    /// Looks at `image` once (on a copy of at most `workPixels`) and keeps every row.
    public static func survey(_ image: GrayImage) -> Survey {
        let factor = workFactor(width: image.width, height: image.height)
        return survey(work: image.downscaled(by: factor), factor: factor, imageHeight: image.height)
    }

    /// The same survey from a copy of the image already reduced `factor` times (the scanner's
    /// first-scan copy of a large photo: reducing 12 MP again cost ~20 ms); nil when its
    /// factor does not divide the survey's own (the full image is then surveyed).
    public static func survey(reducedCopy copy: GrayImage, factor copyFactor: Int) -> Survey? {
        guard copyFactor >= 1 else { return nil }
        let factor = workFactor(width: copy.width * copyFactor, height: copy.height * copyFactor)
        guard factor >= copyFactor, factor % copyFactor == 0 else { return nil }
        return survey(work: copy.downscaled(by: factor / copyFactor), factor: factor, imageHeight: copy.height * copyFactor)
    }

    /// The power of two an image is reduced by to at most `workPixels`.
    private static func workFactor(width: Int, height: Int) -> Int {
        var factor = 1
        while (width / factor) * (height / factor) > workPixels { factor *= 2 }
        return factor
    }

    private static func survey(work: GrayImage, factor: Int, imageHeight: Int) -> Survey {
        guard work.width >= 16, work.height >= 16 else { return Survey() }
        let means = boxMeans(work, radius: max(8, min(work.width, work.height) / 40), paperSide: true)
        let marks = components(work, means: means, heights: minimumMarkHeight...max(minimumMarkHeight, work.height / 6))
        let rows = runs(marks, bridgingThinMarks: true).filter { $0.count >= minimumRowLength }.map { row(of: $0, factor: factor) }
        return Survey(rows: rows, imageHeight: imageHeight)
    }

    /// The rows that may be an ISBN line, evenest first: as many marks as "ISBN" and ten to
    /// thirteen digits make, or a copyright page's line holding them (characters that touch
    /// join, a price or a format may follow); not a row of bars (marks a fifth of their height
    /// wide or less: an unread code's bars, a shelf's stripes); not lettering taller than
    /// `largestMarkShare` of the photo (a title, a shelf label: an ISBN line is small print).
    public static func isbnLineCandidates(_ survey: Survey) -> [Row] {
        survey.rows.filter {
            candidateMarks.contains($0.marks) && $0.markHeight >= smallestCandidateHeight && $0.markWidth * 5 > $0.markHeight
                && (survey.imageHeight == 0 || $0.markHeight * largestMarkShare <= survey.imageHeight)
        }
        .sorted { $0.evenness > $1.evenness }
    }

    /// A candidate's marks are at most 1/12 of the photo's height. Measured (stop 37): the
    /// busy phone photos the gate let through had only rows of 320–400 px marks on 3000 px
    /// (1/7.5–1/9.4: shelf lettering), three codeless small shelf crops rows of 22–37 px on
    /// 241–385 px (1/8.3–1/11.7); every printed back and page read has its row at 1/15 or less
    /// (a 240 px back's ISBN line 11–16 px, a page's 16–20 px on 600–708).
    static let largestMarkShare = 12

    static let candidateMarks = minimumRowLength...40

    /// A candidate's marks are at least 9 px tall in the photo's pixels (only a small photo's rows,
    /// surveyed at full size, can be shorter). Measured (stop 42–43): no row under 9 px showed an
    /// ISBN-like run on the small photos, every printed back and page read has its row at 10 px
    /// or more; the 7–8 px rows of code-free small photos cost their looks and pages (1.0–1.8 s
    /// of a 242-photo half's follow-up).
    static let smallestCandidateHeight = 9

    private static func row(of run: [Mark], factor: Int) -> Row {
        let widths = run.map(\.width).sorted()
        let heights = run.map(\.height).sorted(), tops = run.map(\.y0).sorted(), bottoms = run.map(\.y1).sorted()
        let height = heights[heights.count / 2], top = tops[tops.count / 2], bottom = bottoms[bottoms.count / 2]
        let slack = max(1, height / 5)
        let even = run.filter { abs($0.y0 - top) <= slack && abs($0.y1 - bottom) <= slack }.count
        return Row(marks: run.count, markHeight: height * factor,
                   box: Box(x0: run.map(\.x0).min()! * factor, y0: tops[0] * factor,
                            x1: (run.map(\.x1).max()! + 1) * factor, y1: (bottoms[bottoms.count - 1] + 1) * factor),
                   evenness: Double(even) / Double(run.count), markWidth: widths[widths.count / 2] * factor)
    }

    /// The rows (top and bottom, in `image`'s pixels) of the longest run of dark marks
    /// `heights` tall, at least `minimumMarks` of them: where a line of digits of a known
    /// size is (the one under a barcode's bars, whose marks are many times taller).
    static func longestRowSpan(in image: GrayImage, heights: ClosedRange<Int>, minimumMarks: Int) -> ClosedRange<Int>? {
        guard image.width >= 16, image.height >= 16 else { return nil }
        let means = boxMeans(image, radius: max(8, heights.upperBound))
        let run = longestRun(components(image, means: means, heights: heights))
        guard run.count >= minimumMarks, let top = run.map(\.y0).min(), let bottom = run.map(\.y1).max() else { return nil }
        return top...bottom
    }

    struct Mark {
        var x0: Int, y0: Int, x1: Int, y1: Int
        var height: Int { y1 - y0 + 1 }
        var width: Int { x1 - x0 + 1 }
        var centerY: Double { Double(y0 + y1) / 2 }
    }

    /// The mean of each pixel's `(2 radius + 1)²` window (cut at the image's edges), as
    /// integers rounded down. With `paperSide`, the darkest of the window's four halves (above,
    /// below, left, right of the pixel, each holding the pixel's row or column): paper beside a
    /// brighter area (a price sticker or a white box over the bars, a painted-out code) is darker
    /// than the whole window's mean and became "ink" along that area's edge, joining the ISBN
    /// line's characters above it into one long mark (`PrintedISBNCLITests`' back: its line was
    /// no row); the paper's own half has its level.
    ///
    /// Row by row from running column sums (the window's rows above and below the pixel's,
    /// kept as the row moves down), then sums across the row: a few kB that stay in cache,
    /// where the whole image's integral (8 bytes a pixel, ~5 MB at 0.6 MP) was read four
    /// times a pixel (stop 44: the survey's largest part, 12% of a small photo's CPU). Where
    /// the four halves are of one size (all but a radius-wide border) the smallest sum is
    /// divided once, by a multiplication (`Reciprocal`); the result is the same integer.
    static func boxMeans(_ image: GrayImage, radius: Int, paperSide: Bool = false) -> [UInt8] {
        let width = image.width, height = image.height
        var means = [UInt8](repeating: 0, count: width * height)
        guard width > 0, height > 0 else { return means }
        // Per column, sums over the window's rows: above = rows top...y, below = rows y..<bottom;
        // per row, sums across it (prefix sums, one longer than the row) of above, below and the
        // whole column; and a row of zeros for the rows beyond the image's edges.
        let scratch = UnsafeMutablePointer<Int>.allocate(capacity: 5 * width + 3)
        defer { scratch.deallocate() }
        scratch.initialize(repeating: 0, count: 5 * width + 3)
        let above = scratch, below = scratch + width
        let acrossAbove = scratch + 2 * width, acrossBelow = acrossAbove + width + 1, acrossWhole = acrossBelow + width + 1
        let zeros = [UInt8](repeating: 0, count: width)
        let halfArea = Reciprocal((radius + 1) * (2 * radius + 1)), windowArea = Reciprocal((2 * radius + 1) * (2 * radius + 1))
        image.pixels.withUnsafeBufferPointer { source in
            zeros.withUnsafeBufferPointer { zeros in
                means.withUnsafeMutableBufferPointer { means in
                    guard let source = source.baseAddress, let zeros = zeros.baseAddress, let means = means.baseAddress else { return }
                    func row(_ y: Int) -> UnsafePointer<UInt8> { y >= 0 && y < height ? source + y * width : zeros }
                    // Before row 0: above holds no row, below rows 0..<radius (row 0 moves them down).
                    for y in 0..<radius { for x in 0..<width { below[x] &+= Int(row(y)[x]) } }
                    for y in 0..<height {
                        // Move the columns' rows down one: above gains row y and loses row y - radius - 1;
                        // below gains row y + radius and loses row y - 1.
                        let pixel = row(y), leaving = row(y - radius - 1), reached = row(y + radius), leftBehind = row(y - 1)
                        var sumAbove = 0, sumBelow = 0, sumWhole = 0
                        for x in 0..<width {
                            let up = above[x] &+ Int(pixel[x]) &- Int(leaving[x])
                            let down = below[x] &+ Int(reached[x]) &- Int(leftBehind[x])
                            above[x] = up
                            below[x] = down
                            sumAbove &+= up
                            sumBelow &+= down
                            sumWhole &+= up &+ down &- Int(pixel[x])
                            acrossAbove[x + 1] = sumAbove
                            acrossBelow[x + 1] = sumBelow
                            acrossWhole[x + 1] = sumWhole
                        }
                        let top = max(0, y - radius), bottom = min(height, y + radius + 1)
                        let rowsAbove = y + 1 - top, rowsBelow = bottom - y, rows = bottom - top
                        let evenRows = rowsAbove == radius + 1 && rowsBelow == radius + 1
                        let out = means + y * width
                        // Inside the border every window and half has its full size: one division.
                        let inside = evenRows && width > 2 * radius ? radius..<(width - radius) : 0..<0
                        for x in inside {
                            let left = x - radius, right = x + radius + 1
                            if paperSide {
                                let upper = acrossAbove[right] &- acrossAbove[left], lower = acrossBelow[right] &- acrossBelow[left]
                                let leftHalf = acrossWhole[x + 1] &- acrossWhole[left], rightHalf = acrossWhole[right] &- acrossWhole[x]
                                out[x] = UInt8(truncatingIfNeeded: halfArea.divide(min(min(upper, lower), min(leftHalf, rightHalf))))
                            } else {
                                out[x] = UInt8(truncatingIfNeeded: windowArea.divide(acrossWhole[right] &- acrossWhole[left]))
                            }
                        }
                        for x in 0..<width where !inside.contains(x) {
                            let left = max(0, x - radius), right = min(width, x + radius + 1), columns = right - left
                            let whole = acrossWhole[right] &- acrossWhole[left]
                            guard paperSide else {
                                out[x] = UInt8(truncatingIfNeeded: whole / (rows * columns))
                                continue
                            }
                            let upper = acrossAbove[right] &- acrossAbove[left], lower = acrossBelow[right] &- acrossBelow[left]
                            let leftHalf = acrossWhole[x + 1] &- acrossWhole[left], rightHalf = acrossWhole[right] &- acrossWhole[x]
                            out[x] = UInt8(truncatingIfNeeded: min(
                                min(upper / (rowsAbove * columns), lower / (rowsBelow * columns)),
                                min(leftHalf / (rows * (x + 1 - left)), rightHalf / (rows * (right - x)))))
                        }
                    }
                }
            }
        }
        return means
    }

    /// Division by a fixed divisor as a multiplication and a shift, the same quotient as `/`
    /// for a window's sum of bytes (at most 255 × the divisor; exact while 255 × divisor² <
    /// 2^48, a radius up to ~700; plain division beyond).
    struct Reciprocal {
        let divisor: Int, multiplier: Int
        init(_ divisor: Int) {
            self.divisor = divisor
            multiplier = 255 * divisor * divisor < 1 << 48 ? (1 << 48) / divisor + 1 : 0
        }
        func divide(_ dividend: Int) -> Int {
            multiplier == 0 ? dividend / divisor : (dividend &* multiplier) >> 48
        }
    }

    /// Connected ink components (4-connected) of character size: `heights` tall (for a page,
    /// `minimumMarkHeight` to 1/6 of the image), at most 2.5 heights wide (two touching
    /// characters), not a speck.
    private static func components(_ image: GrayImage, means: [UInt8], heights: ClosedRange<Int>) -> [Mark] {
        let width = image.width, height = image.height
        var marks: [Mark] = []
        // 0: paper, 1: ink not yet visited, 2: visited.
        var state = [UInt8](repeating: 0, count: width * height)
        var stack: [Int32] = []
        image.pixels.withUnsafeBufferPointer { pixels in
            means.withUnsafeBufferPointer { means in
                state.withUnsafeMutableBufferPointer { state in
                    for index in 0..<width * height {
                        if Int(means[index]) - Int(pixels[index]) >= inkStep { state[index] = 1 }
                    }
                    for start in 0..<width * height where state[start] == 1 {
                        state[start] = 2
                        stack.append(Int32(start))
                        var mark = Mark(x0: start % width, y0: start / width, x1: start % width, y1: start / width)
                        var count = 0
                        while let last = stack.popLast() {
                            let index = Int(last), x = index % width, y = index / width
                            count += 1
                            mark.x0 = min(mark.x0, x); mark.x1 = max(mark.x1, x)
                            mark.y0 = min(mark.y0, y); mark.y1 = max(mark.y1, y)
                            if x > 0, state[index - 1] == 1 { state[index - 1] = 2; stack.append(Int32(index - 1)) }
                            if x + 1 < width, state[index + 1] == 1 { state[index + 1] = 2; stack.append(Int32(index + 1)) }
                            if y > 0, state[index - width] == 1 { state[index - width] = 2; stack.append(Int32(index - width)) }
                            if y + 1 < height, state[index + width] == 1 { state[index + width] = 2; stack.append(Int32(index + width)) }
                        }
                        let h = mark.height
                        guard heights.contains(h), mark.width * 2 <= h * 5, count >= h else { continue }
                        marks.append(mark)
                    }
                }
            }
        }
        return marks
    }

    /// The longest run of marks side by side.
    static func longestRun(_ marks: [Mark]) -> [Mark] {
        runs(marks).max { $0.count < $1.count } ?? []
    }

    /// Every run of marks side by side: centres within a third of their height of the row's,
    /// heights within 1.5× of each other, gaps under 1.5 heights.
    /// `bridgingThinMarks`: a thin mark (a third of its height wide or less) joins the run
    /// whatever its height, and the next mark is compared with the last mark before it that is
    /// not thin: the guard-bar stubs between the digit groups under painted-out bars are half a
    /// digit tall and split its row into runs of six (stop 42: 5 of 29 tuning backs had no row).
    static func runs(_ marks: [Mark], bridgingThinMarks: Bool = false) -> [[Mark]] {
        let sorted = marks.sorted { $0.centerY < $1.centerY }
        var found: [[Mark]] = []
        var rows: [[Mark]] = []
        var rowCenter = 0.0
        for mark in sorted {
            if let last = rows.indices.last, abs(mark.centerY - rowCenter) < Double(mark.height) / 3 {
                rows[last].append(mark)
                rowCenter += (mark.centerY - rowCenter) / Double(rows[last].count)
            } else {
                rows.append([mark])
                rowCenter = mark.centerY
            }
        }
        for row in rows {
            let ordered = row.sorted { $0.x0 < $1.x0 }
            var start = 0
            var reference = ordered.first
            for index in ordered.indices where index > 0 {
                let previous = ordered[index - 1], mark = ordered[index]
                let isThin = bridgingThinMarks && mark.width * 3 <= mark.height
                let like = bridgingThinMarks ? reference ?? previous : previous
                let tall = max(like.height, mark.height), short = min(like.height, mark.height)
                let alike = isThin || Double(tall) <= Double(short) * 1.5
                if !(alike && mark.x0 - previous.x1 <= tall * 3 / 2) {
                    found.append(Array(ordered[start..<index]))
                    start = index
                    reference = mark
                } else if !isThin || reference.map({ $0.width * 3 <= $0.height }) ?? true {
                    reference = mark
                }
            }
            if !ordered.isEmpty { found.append(Array(ordered[start...])) }
        }
        return found
    }
}
