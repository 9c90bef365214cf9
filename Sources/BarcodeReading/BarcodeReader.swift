import BookCodes
import CLazyLibraries
import CZBar
import Imaging

/// zbar's image scanner behind a safe type.
///
/// Every image gets a freshly configured zbar scanner: zbar's EAN decoder keeps half-read
/// symbols from one image to the next (found here: a photo read nothing alone, but "read"
/// the previous photo's code when scanned after it), so a long-lived scanner would let one
/// book's barcode complete another's. Creating one costs microseconds next to the scan.
/// One reader per thread (zbar scanners are not thread-safe): deliberately not `Sendable`.
public final class BarcodeReader {
    /// Scan every `density`-th row and column: 2 halves the time on large images, at the
    /// cost of very thin barcodes.
    public private(set) var density: Int

    /// Throws if zbar cannot be set up at all, so that fails at start, not per image.
    public init(density: Int = 1) throws(BarcodeReaderError) {
        self.density = max(1, density)
        _ = try ZBarScanner(density: self.density)
    }

    public func setDensity(_ newValue: Int) throws(BarcodeReaderError) {
        let value = max(1, newValue)
        _ = try ZBarScanner(density: value)
        density = value
    }

    /// Every barcode zbar finds, add-ons paired with their main code, each validated.
    /// An image zbar cannot take (empty) gives no detections.
    public func scan(_ image: GrayImage) -> [Detection] {
        AddOnPairing.pair(scanSymbols(image), imageSize: (image.width, image.height))
    }

    /// As `scan`, a UPC-E or EAN-8 kept only when its margins are clear of bars
    /// (`QuietZone`): one that is not is part of a longer code, and counts in `refused`.
    func scan(_ image: GrayImage, refusingShadows refused: inout Int) -> [Detection] {
        AddOnPairing.pair(scanSymbols(image, refusingShadows: &refused), imageSize: (image.width, image.height))
    }

    /// As `scan(_:refusingShadows:)`, along rows only (every `rowStep`-th): for an image
    /// already turned so that its bars stand upright, where zbar's column scan lines would
    /// cross no code.
    func scanRows(_ image: GrayImage, rowStep: Int = 1, refusingShadows refused: inout Int) -> [Detection] {
        AddOnPairing.pair(scanSymbols(image, rowsOnly: max(1, rowStep), refusingShadows: &refused),
                          imageSize: (image.width, image.height))
    }

    /// As `scan(_:refusingShadows:)` with every line (density 1), but only along the rows of
    /// `rows` and the columns of `columns` (each a band across the whole image): zbar's own
    /// lines there, each run the way the whole scan runs it (a band starts on an even line),
    /// and a symbol read in both bands counted once, its lines added up, as one scan does.
    func scan(_ image: GrayImage, rows: Range<Int>, columns: Range<Int>, refusingShadows refused: inout Int) -> [Detection] {
        let inRows = rows.clamped(to: 0..<image.height), inColumns = columns.clamped(to: 0..<image.width)
        let rowBand = (inRows.lowerBound & ~1)..<inRows.upperBound
        let columnBand = (inColumns.lowerBound & ~1)..<inColumns.upperBound
        var symbols: [ScannedSymbol] = []
        if !rowBand.isEmpty {
            symbols = allSymbols(image, rowDensity: 1, columnDensity: 0,
                                 crop: (x: 0, y: rowBand.lowerBound, width: image.width, height: rowBand.count))
        }
        if !columnBand.isEmpty {
            for symbol in allSymbols(image, rowDensity: 0, columnDensity: 1,
                                     crop: (x: columnBand.lowerBound, y: 0, width: columnBand.count, height: image.height)) {
                if let index = symbols.firstIndex(where: { $0.symbology == symbol.symbology && $0.text == symbol.text }) {
                    symbols[index].quality += symbol.quality
                    symbols[index].ends += symbol.ends
                    symbols[index].bounds = symbols[index].bounds.union(symbol.bounds)
                } else {
                    symbols.append(symbol)
                }
            }
        }
        return AddOnPairing.pair(checked(symbols, in: image, lineStep: 1, refusingShadows: &refused),
                                 imageSize: (image.width, image.height))
    }

    /// The raw symbols, copied out before zbar's image is destroyed, each marked with
    /// whether it was read both ways.
    func scanSymbols(_ image: GrayImage, rowsOnly rowStep: Int? = nil) -> [ScannedSymbol] {
        var unused = 0
        return scanSymbols(image, rowsOnly: rowStep, refusingShadows: &unused, check: false)
    }

    /// As `scanSymbols(_:rowsOnly:)`; with `check`, a UPC-E or EAN-8 whose margins are not
    /// clear is left out and counted in `refused`.
    func scanSymbols(_ image: GrayImage, rowsOnly rowStep: Int? = nil, refusingShadows refused: inout Int,
                     check: Bool = true) -> [ScannedSymbol] {
        let symbols = allSymbols(image, rowDensity: rowStep ?? density, columnDensity: rowStep == nil ? density : 0)
        return checked(symbols, in: image, lineStep: rowStep ?? density, refusingShadows: &refused, check: check)
    }

    /// Each symbol marked with whether it was read both ways; with `check`, a UPC-E or EAN-8
    /// whose margins are not clear left out and counted in `refused`. `lineStep`: zbar's step
    /// between the lines that read them.
    private func checked(_ symbols: [ScannedSymbol], in image: GrayImage, lineStep: Int, refusingShadows refused: inout Int,
                         check: Bool = true) -> [ScannedSymbol] {
        let marked = symbols.map { symbol in
            var symbol = symbol
            symbol.readBothWays = QuietZone.readBothWays(symbol, lineStep: lineStep)
            return symbol
        }
        guard check else { return marked }
        return marked.filter { symbol in
            let clear = QuietZone.isClear(around: symbol, in: image, lineStep: lineStep)
            if !clear { refused += 1 }
            return clear
        }
    }

    /// zbar's symbols along every `rowDensity`-th row and `columnDensity`-th column (0: none) of
    /// `crop` (the whole image when nil; the symbols' points stay in the image's pixels).
    private func allSymbols(_ image: GrayImage, rowDensity: Int, columnDensity: Int,
                            crop: (x: Int, y: Int, width: Int, height: Int)? = nil) -> [ScannedSymbol] {
        guard image.width > 0, image.height > 0,
              let width = UInt32(exactly: image.width), let height = UInt32(exactly: image.height)
        else { return [] }
        // Set-up only fails when memory runs out, and `init` proved the settings valid.
        guard let zbar = try? ZBarScanner(rowDensity: rowDensity, columnDensity: columnDensity),
              let zbarImage = zbar_image_create() else { return [] }
        defer { zbar_image_destroy(zbarImage) }
        zbar_image_set_format(zbarImage, Self.y800)
        zbar_image_set_size(zbarImage, width, height)
        if let crop {
            zbar_image_set_crop(zbarImage, UInt32(crop.x), UInt32(crop.y), UInt32(crop.width), UInt32(crop.height))
        }
        return image.pixels.withUnsafeBytes { buffer -> [ScannedSymbol] in
            // No cleanup handler: the buffer belongs to Swift and outlives the zbar image,
            // which is destroyed (by the defer above) only after the symbols are copied.
            zbar_image_set_data(zbarImage, buffer.baseAddress, UInt(buffer.count), nil)
            // < 0: zbar could not take the image (only possible for formats it must convert,
            // never for Y800); 0: nothing found. Either way there is nothing to copy.
            let found = zbar_scan_image(zbar.scanner, zbarImage)
            guard found > 0 else { return [] }
            var symbols: [ScannedSymbol] = []
            var symbol = zbar_image_first_symbol(zbarImage)
            while let current = symbol {
                if let copied = ScannedSymbol(current) { symbols.append(copied) }
                symbol = zbar_symbol_next(current)
            }
            // zbar's image points at `buffer`; detach it before the closure ends.
            zbar_image_set_data(zbarImage, nil, 0, nil)
            return symbols
        }
    }

    /// FourCC "Y800": 8-bit luma, one byte per pixel.
    static let y800: UInt = 0x3030_3859
}

/// One configured `zbar_image_scanner_t`, destroyed with this object.
private final class ZBarScanner {
    /// The symbologies zbar is told to look for. ISBN-13 is on so zbar never rewrites a
    /// book's data to ten digits (it does when only ISBN-10 is on); books are told apart by
    /// `CodeValidator`, not by zbar.
    static let enabledSymbologies: [(zbar_symbol_type_t, String)] = [
        (ZBAR_EAN13, "EAN-13"), (ZBAR_EAN8, "EAN-8"), (ZBAR_UPCA, "UPC-A"), (ZBAR_UPCE, "UPC-E"),
        (ZBAR_ISBN13, "ISBN-13"), (ZBAR_EAN2, "EAN-2"), (ZBAR_EAN5, "EAN-5"),
    ]

    let scanner: OpaquePointer

    convenience init(density: Int) throws(BarcodeReaderError) {
        try self.init(rowDensity: density, columnDensity: density)
    }

    /// zbar's Y density is the step between scanned rows, its X density between scanned
    /// columns; 0 turns that direction off.
    init(rowDensity: Int, columnDensity: Int) throws(BarcodeReaderError) {
        // libzbar is opened here, on first use (CLazyLibraries), not at every command's start.
        if let reason = rs_zbar_load() { throw .libraryUnavailable(String(cString: reason)) }
        guard let scanner = zbar_image_scanner_create() else { throw .scannerUnavailable }
        self.scanner = scanner
        // Results are wanted from every image, not only from ones that differ from the last.
        zbar_image_scanner_enable_cache(scanner, 0)  // returns nothing to check
        try configure(ZBAR_NONE, ZBAR_CFG_ENABLE, 0, "all symbologies off")
        for (symbology, name) in Self.enabledSymbologies {
            try configure(symbology, ZBAR_CFG_ENABLE, 1, "\(name) enable")
        }
        try configure(ZBAR_NONE, ZBAR_CFG_POSITION, 1, "position")
        try configure(ZBAR_NONE, ZBAR_CFG_X_DENSITY, Int32(columnDensity), "x-density \(columnDensity)")
        try configure(ZBAR_NONE, ZBAR_CFG_Y_DENSITY, Int32(rowDensity), "y-density \(rowDensity)")
    }

    deinit {
        zbar_image_scanner_destroy(scanner)
    }

    private func configure(_ symbology: zbar_symbol_type_t, _ config: zbar_config_t, _ value: Int32,
                           _ setting: String) throws(BarcodeReaderError) {
        let code = zbar_image_scanner_set_config(scanner, symbology, config, value)
        guard code == 0 else { throw .configurationRejected(setting: setting, code: code) }
    }
}

/// A pixel position zbar reported for a symbol.
struct SymbolPoint: Sendable, Hashable {
    var x: Int
    var y: Int
}

/// A symbol as zbar reported it, before validation and add-on pairing.
struct ScannedSymbol: Sendable, Hashable {
    enum Orientation: Sendable, Hashable { case up, right, down, left, unknown }

    var symbology: Symbology
    var text: String
    var quality: Int
    var bounds: BoundingBox
    var orientation: Orientation
    /// zbar's points: where a scan line finished reading the symbol (its last bar in the
    /// line's direction) or one half of it (the centre guard, for EAN-13/UPC-A/EAN-8).
    /// zbar's scan lines run alternately one way and back, so the points of a symbol read
    /// whole both ways mark both its ends.
    var ends: [SymbolPoint]
    /// Whether lines running each way read it (set by the scan that knows its line step).
    var readBothWays = true

    init(symbology: Symbology, text: String, quality: Int, bounds: BoundingBox, orientation: Orientation,
         ends: [SymbolPoint] = []) {
        self.symbology = symbology
        self.text = text
        self.quality = quality
        self.bounds = bounds
        self.orientation = orientation
        self.ends = ends
    }

    /// nil for a symbology rapidscan does not handle or a symbol without location.
    init?(_ symbol: OpaquePointer) {
        guard let symbology = Self.symbology(zbar_symbol_get_type(symbol)),
              let data = zbar_symbol_get_data(symbol)
        else { return nil }
        let length = Int(zbar_symbol_get_data_length(symbol))
        let text = data.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
        let pointCount = zbar_symbol_get_loc_size(symbol)
        let points = (0..<pointCount).map {
            SymbolPoint(x: Int(zbar_symbol_get_loc_x(symbol, $0)), y: Int(zbar_symbol_get_loc_y(symbol, $0)))
        }
        guard let bounds = BoundingBox(enclosing: points.lazy.map { (x: $0.x, y: $0.y) }) else { return nil }
        self.init(symbology: symbology, text: text, quality: Int(zbar_symbol_get_quality(symbol)),
                  bounds: bounds, orientation: Self.orientation(zbar_symbol_get_orientation(symbol)), ends: points)
    }

    /// zbar's ISBN types are EAN-13 bars; rapidscan reports the printed symbology.
    static func symbology(_ type: zbar_symbol_type_t) -> Symbology? {
        switch type {
        case ZBAR_EAN13, ZBAR_ISBN13: .ean13
        case ZBAR_ISBN10: .isbn10
        case ZBAR_EAN8: .ean8
        case ZBAR_UPCA: .upcA
        case ZBAR_UPCE: .upcE
        case ZBAR_EAN2: .ean2
        case ZBAR_EAN5: .ean5
        default: nil
        }
    }

    static func orientation(_ orientation: zbar_orientation_t) -> Orientation {
        switch orientation {
        case ZBAR_ORIENT_UP: .up
        case ZBAR_ORIENT_RIGHT: .right
        case ZBAR_ORIENT_DOWN: .down
        case ZBAR_ORIENT_LEFT: .left
        default: .unknown
        }
    }
}
