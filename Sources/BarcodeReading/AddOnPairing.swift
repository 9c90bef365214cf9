import BookCodes

/// zbar reports an EAN-2/EAN-5 supplement as a symbol of its own; this puts it back with
/// the main code it is printed beside (after the main code's last bar, in reading order).
enum AddOnPairing {
    /// `imageSize`: the scanned image's, where an EAN-2 is refused whose quiet zone the
    /// image's edge cuts off: it may be an EAN-5 cut after its first two digits (a book's
    /// price "54…" read as the EAN-2 "54").
    static func pair(_ symbols: [ScannedSymbol], imageSize: (width: Int, height: Int)? = nil) -> [Detection] {
        let mains = symbols.filter { !$0.symbology.isAddOn }
        var addOnOfMain: [Int: (addOn: AddOn, gap: Double)] = [:]
        var unpaired: [ScannedSymbol] = []
        for supplement in symbols where supplement.symbology.isAddOn {
            let addOn = try? AddOn(validating: supplement.text, as: supplement.symbology)
            let nearest = mains.indices
                .compactMap { index in gap(from: mains[index], to: supplement).map { (index, $0) } }
                .min { $0.1 < $1.1 }
            guard let addOn, let (index, gap) = nearest, gap < (addOnOfMain[index]?.gap ?? .infinity),
                  !(supplement.symbology == .ean2 && imageSize.map { cutOff(supplement, of: mains[index], in: $0) } ?? false)
            else {
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
        var detection = Detection(symbology: symbol.symbology, text: symbol.text, quality: symbol.quality,
                                  bounds: symbol.bounds, addOn: addOn)
        detection.readBothWays = symbol.readBothWays
        return detection
    }

    /// How far the supplement's far end lies beyond the main code's last bar, in the main
    /// code's modules; nil when it is not where a supplement of this code would be printed.
    static func gap(from main: ScannedSymbol, to supplement: ScannedSymbol) -> Double? {
        let directions: [ScannedSymbol.Orientation] =
            main.orientation == .unknown ? [.up, .right, .down, .left] : [main.orientation]
        return directions.compactMap { gap(from: main, to: supplement, reading: $0) }.min()
    }

    /// Image an EAN-2 needs past its last bar (zbar's box), in modules: an EAN-5's next
    /// modules are a separator (a space, then a bar) and its third digit, so an EAN-5 cut
    /// off by the edge after two digits leaves less. On the real photos, a cut EAN-5 left
    /// 1.3 modules, whole EAN-2s at the edge 2.3–5 (their 5-module quiet zones cut too).
    static let ean2QuietModules = 2.0

    /// Whether the image's edge comes within `ean2QuietModules` of the supplement's far
    /// end, in the direction `main` is read (any direction it could be, when unknown).
    static func cutOff(_ supplement: ScannedSymbol, of main: ScannedSymbol, in size: (width: Int, height: Int)) -> Bool {
        let directions: [ScannedSymbol.Orientation] =
            main.orientation == .unknown ? [.up, .right, .down, .left] : [main.orientation]
        let s = supplement.bounds
        return directions.contains { direction in
            guard gap(from: main, to: supplement, reading: direction) != nil else { return false }
            let length = direction == .up || direction == .down ? main.bounds.width : main.bounds.height
            let module = Double(length) / modules(main.symbology)
            let room = switch direction {
            case .up, .unknown: size.width - s.maxX
            case .down: s.x
            case .right: size.height - s.maxY
            case .left: s.y
            }
            return Double(room) < ean2QuietModules * module
        }
    }

    /// Modules from first to last bar: the unit for distances beside a code.
    private static func modules(_ symbology: Symbology) -> Double {
        switch symbology {
        case .ean8: 67
        case .upcE: 51
        case .ean2: 20
        case .ean5: 47
        default: 95
        }
    }

    private static func gap(from main: ScannedSymbol, to supplement: ScannedSymbol,
                            reading orientation: ScannedSymbol.Orientation) -> Double? {
        let (m, s) = (main.bounds, supplement.bounds)
        // Along the reading direction: main code's length, and the supplement's near and far
        // edges measured from the main code's last bar. Across: the extent of the bars.
        let length: Int, near: Int, far: Int, mainAcross: ClosedRange<Int>, supplementAcross: ClosedRange<Int>
        switch orientation {
        case .up, .unknown:
            (length, near, far) = (m.width, s.x - m.maxX, s.maxX - m.maxX)
            (mainAcross, supplementAcross) = (m.y...m.maxY, s.y...s.maxY)
        case .down:
            (length, near, far) = (m.width, m.x - s.maxX, m.x - s.x)
            (mainAcross, supplementAcross) = (m.y...m.maxY, s.y...s.maxY)
        case .right:
            (length, near, far) = (m.height, s.y - m.maxY, s.maxY - m.maxY)
            (mainAcross, supplementAcross) = (m.x...m.maxX, s.x...s.maxX)
        case .left:
            (length, near, far) = (m.height, m.y - s.maxY, m.y - s.y)
            (mainAcross, supplementAcross) = (m.x...m.maxX, s.x...s.maxX)
        }
        guard length > 0 else { return nil }
        let module = Double(length) / modules(main.symbology)
        // zbar locates a supplement by its last bars only; the printed gap is 7–12 modules.
        let farModules = Double(far) / module, nearModules = Double(near) / module
        let slack = Int(module * 20)
        let besideMain = supplementAcross.lowerBound <= mainAcross.upperBound + slack
            && supplementAcross.upperBound >= mainAcross.lowerBound - slack
        guard besideMain, nearModules > -3, farModules > 0,
              farModules <= modules(supplement.symbology) + 20 else { return nil }
        return farModules
    }
}
