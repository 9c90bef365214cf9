/// Groups the words of one Tesseract pass into spines, in the frame Tesseract read (text
/// lines horizontal). There a spine is a horizontal band: its words share the band across
/// the spine (y) and lie along it (x). Shelf rows are separated along x by a gap no word
/// crosses; within a row, words on one centreline are one line; neighbouring lines are one
/// spine only when they are close and no spine edge lies between them.
public enum SpineGrouping {
    /// Tells whether a spine edge (a long straight break in the pixels) lies between two
    /// lines' boxes, the first above the second. Nil: geometry alone decides (never merge).
    public typealias EdgeTest = (_ upper: Box, _ lower: Box) -> Bool

    /// `edgeAcross` tells whether a break (a shelf board's edge, a spine's end) lies between
    /// two words of one line, left then right: the line is cut there when they are far apart.
    public static func spines(_ words: [OCRWord], edgeBetween: EdgeTest? = nil,
                              edgeAcross: EdgeTest? = nil) -> [[OCRWord]] {
        guard !words.isEmpty else { return [] }
        var spines: [[OCRWord]] = []
        for row in rows(words) {
            let lines = self.lines(row).flatMap { cut($0, edgeAcross: edgeAcross) }
            var groups: [[[OCRWord]]] = []
            for line in lines {
                if let lastIndex = groups.indices.last, let previous = groups[lastIndex].last,
                   joins(previous, line, edgeBetween: edgeBetween) {
                    groups[lastIndex].append(line)
                } else {
                    groups.append([line])
                }
            }
            spines += groups.map { $0.flatMap { $0 } }
        }
        return spines
    }

    /// A group cut where its words lie in different spine strips (`strip` says which, nil:
    /// none); each piece keeps its words' order, words in no strip stay with the first piece.
    public static func split(_ group: [OCRWord], by strip: (Box) -> Int?) -> [[OCRWord]] {
        let places = group.map { strip($0.box) }
        let distinct = Set(places.compactMap { $0 })
        guard distinct.count > 1 else { return [group] }
        let order = places.compactMap { $0 }.reduce(into: [Int]()) { if !$0.contains($1) { $0.append($1) } }
        var pieces = order.map { place in group.indices.filter { places[$0] == place }.map { group[$0] } }
        pieces[0] = group.indices.filter { places[$0] == nil || places[$0] == order[0] }.map { group[$0] }
        return pieces
    }

    /// Groups lying in one spine strip joined into one, in their order (the first's place): a
    /// title and its author on two lines across a wide spine, or far apart along it (the author
    /// at the foot, a gap the grouping cuts), are one spine's reading. A group's strip is the one
    /// all its placed words lie in (at least half of its words placed); others stay as they are.
    /// Two groups overlapping both along the spine and across (by more than `overlapAcross`) are
    /// neighbours' slanted lines in a strip whose side was missed, not one spine's: never joined.
    public static func joined(_ groups: [[OCRWord]], by strip: (Box) -> Int?) -> [[OCRWord]] {
        var joined: [[OCRWord]] = []
        var placeOfStrip: [Int: Int] = [:]
        var boxesAt: [Int: [Box]] = [:]
        for group in groups {
            let places = group.compactMap { strip($0.box) }
            guard let first = places.first, places.allSatisfy({ $0 == first }), 2 * places.count >= group.count else {
                joined.append(group)
                continue
            }
            let box = group.enclosingBox
            if let place = placeOfStrip[first], !boxesAt[place, default: []].contains(where: { overlapAslant($0, box) }) {
                boxesAt[place, default: []].append(box)
                joined[place] += group
            } else {
                if placeOfStrip[first] == nil { placeOfStrip[first] = joined.count }
                boxesAt[joined.count] = [box]
                joined.append(group)
            }
        }
        return joined
    }

    /// Shelf rows: runs of words along x separated by gaps wider than three text heights
    /// that no word crosses.
    static func rows(_ words: [OCRWord]) -> [[OCRWord]] {
        let heights = words.map { $0.box.height }.sorted()
        let textHeight = max(1, heights[heights.count / 2])
        let sorted = words.sorted { $0.box.x0 < $1.box.x0 }
        var rows: [[OCRWord]] = []
        var current: [OCRWord] = []
        var reach = Int.min
        for word in sorted {
            if !current.isEmpty && word.box.x0 - reach > 3 * textHeight {
                rows.append(current)
                current = []
            }
            current.append(word)
            reach = max(reach, word.box.x1)
        }
        if !current.isEmpty { rows.append(current) }
        return rows
    }

    /// Lines: words whose vertical centres lie within a third of a text height of each other,
    /// top to bottom, each line's words left to right.
    static func lines(_ words: [OCRWord]) -> [[OCRWord]] {
        var lines: [(center: Double, height: Double, words: [OCRWord])] = []
        for word in words.sorted(by: { $0.box.centerY < $1.box.centerY }) {
            let height = Double(max(1, word.box.height))
            // Tight: neighbouring spines' lines are often only one text height apart.
            if let index = lines.indices.last,
               abs(word.box.centerY - lines[index].center) < 0.35 * min(height, lines[index].height) {
                let count = Double(lines[index].words.count)
                lines[index].center = (lines[index].center * count + word.box.centerY) / (count + 1)
                lines[index].height = max(lines[index].height, height)
                lines[index].words.append(word)
            } else {
                lines.append((word.box.centerY, height, [word]))
            }
        }
        return lines.map { $0.words.sorted { $0.box.x0 < $1.box.x0 } }
    }

    /// The most two lines' boxes may overlap across (a share of the thinner's height) and be one
    /// spine's. PP-OCR gives a line's box as the box around its quad: a leaning title's box is as
    /// wide as its spine and half the next, so two neighbours' boxes overlap, where a title and
    /// its author on one spine touch or lie apart (dianaaaa_img16: two leaning neighbours' boxes
    /// overlapped by 26% and three spines were read as one; replayed, no book of the real tuning
    /// half or the rendered hard shelves was split more for it: stop 37 in docs/PERFORMANCE.md).
    static let overlapAcross = 0.2

    /// Two boxes that overlap along the spine (x) and across it by more than `overlapAcross` of
    /// the thinner's height: two lines side by side, slanted into each other.
    static func overlapAslant(_ a: Box, _ b: Box) -> Bool {
        let across = min(a.y1, b.y1) - max(a.y0, b.y0)
        return min(a.x1, b.x1) - max(a.x0, b.x0) > 0 && Double(across) > overlapAcross * Double(min(a.height, b.height))
    }

    /// A line cut where two words more than 1.5 text heights apart have an edge between them.
    static func cut(_ line: [OCRWord], edgeAcross: EdgeTest?) -> [[OCRWord]] {
        guard let edgeAcross, line.count > 1 else { return [line] }
        var pieces: [[OCRWord]] = [[line[0]]]
        for word in line.dropFirst() {
            let previous = pieces[pieces.count - 1].last!
            let height = Double(min(previous.box.height, word.box.height))
            if Double(word.box.x0 - previous.box.x1) > 1.5 * height, edgeAcross(previous.box, word.box) {
                pieces.append([word])
            } else {
                pieces[pieces.count - 1].append(word)
            }
        }
        return pieces
    }

    /// Two lines are one spine's (a title over its author) when the gap between them is
    /// under half a text height, they overlap along the spine, and the pixels show no edge.
    /// Lines overlapping across by more than `overlapAcross` of a text height are not stacked
    /// lines of one spine but neighbours' slanted lines (see there).
    static func joins(_ upper: [OCRWord], _ lower: [OCRWord], edgeBetween: EdgeTest?) -> Bool {
        guard let edgeBetween else { return false }
        let a = upper.enclosingBox, b = lower.enclosingBox
        let height = min(a.height, b.height)
        let gap = b.y0 - a.y1
        guard Double(gap) < 0.5 * Double(height), Double(-gap) <= overlapAcross * Double(height),
              min(a.x1, b.x1) - max(a.x0, b.x0) > 0 else { return false }
        return !edgeBetween(a, b)
    }
}

extension Array where Element == OCRWord {
    /// The box around the words' boxes (the array not empty).
    var enclosingBox: Box { dropFirst().reduce(self[0].box) { $0.union($1.box) } }
}
