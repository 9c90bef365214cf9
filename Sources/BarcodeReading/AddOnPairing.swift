import BookCodes

/// zbar reports an EAN-2/EAN-5 supplement as a symbol of its own; this puts it back with
/// the main code it is printed beside (after the main code's last bar, in reading order).
enum AddOnPairing {
    static func pair(_ symbols: [ScannedSymbol]) -> [Detection] {
        let mains = symbols.filter { !$0.symbology.isAddOn }
        var addOnOfMain: [Int: (addOn: AddOn, gap: Double)] = [:]
        var unpaired: [ScannedSymbol] = []
        for supplement in symbols where supplement.symbology.isAddOn {
            let addOn = try? AddOn(validating: supplement.text, as: supplement.symbology)
            let nearest = mains.indices
                .compactMap { index in gap(from: mains[index], to: supplement).map { (index, $0) } }
                .min { $0.1 < $1.1 }
            guard let addOn, let (index, gap) = nearest, gap < (addOnOfMain[index]?.gap ?? .infinity) else {
                unpaired.append(supplement)
                continue
            }
            addOnOfMain[index] = (addOn, gap)
        }
        let paired = mains.indices.map { index in
            detection(mains[index], addOn: addOnOfMain[index]?.addOn)
        }
        return paired + unpaired.map { detection($0, addOn: nil) }
    }

    private static func detection(_ symbol: ScannedSymbol, addOn: AddOn?) -> Detection {
        Detection(symbology: symbol.symbology, text: symbol.text, quality: symbol.quality,
                  bounds: symbol.bounds, addOn: addOn)
    }

    /// How far the supplement starts after the main code ends, as a fraction of the main
    /// code's length; nil when it is not where a supplement of this code would be printed.
    /// The printed gap is 7–12 modules against 95 for EAN-13 (67 for EAN-8, 51 for UPC-E).
    static func gap(from main: ScannedSymbol, to supplement: ScannedSymbol) -> Double? {
        let directions: [ScannedSymbol.Orientation] =
            main.orientation == .unknown ? [.up, .right, .down, .left] : [main.orientation]
        return directions.compactMap { gap(from: main.bounds, to: supplement.bounds, reading: $0) }.min()
    }

    private static func gap(from main: BoundingBox, to supplement: BoundingBox,
                            reading orientation: ScannedSymbol.Orientation) -> Double? {
        // Along: the reading direction. Across: perpendicular to it.
        let (length, distance, mainAcross, supplementAcross): (Int, Int, ClosedRange<Int>, ClosedRange<Int>)
        switch orientation {
        case .up, .unknown:
            (length, distance) = (main.width, supplement.x - main.maxX)
            (mainAcross, supplementAcross) = (main.y...main.maxY, supplement.y...supplement.maxY)
        case .down:
            (length, distance) = (main.width, main.x - supplement.maxX)
            (mainAcross, supplementAcross) = (main.y...main.maxY, supplement.y...supplement.maxY)
        case .right:
            (length, distance) = (main.height, supplement.y - main.maxY)
            (mainAcross, supplementAcross) = (main.x...main.maxX, supplement.x...supplement.maxX)
        case .left:
            (length, distance) = (main.height, main.y - supplement.maxY)
            (mainAcross, supplementAcross) = (main.x...main.maxX, supplement.x...supplement.maxX)
        }
        guard length > 0 else { return nil }
        let fraction = Double(distance) / Double(length)
        // Scan-line hits stop short of the quiet zones, so allow a little overlap and slack;
        // across, the supplement's bars must lie beside the main code's, tolerating tilt.
        let slack = max(length / 4, 4)
        let acrossOK = supplementAcross.lowerBound <= mainAcross.upperBound + slack
            && supplementAcross.upperBound >= mainAcross.lowerBound - slack
        guard fraction > -0.1, fraction < 0.5, acrossOK else { return nil }
        return fraction
    }
}
