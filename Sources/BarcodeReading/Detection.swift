import BookCodes

/// One barcode found in an image, copied out of zbar into plain Swift values.
public struct Detection: Sendable, Hashable, CustomStringConvertible {
    /// Whether the decoded text passed `CodeValidator` and what it identifies.
    public enum Validity: Sendable, Hashable {
        case valid(ProductCode)
        case rejected(BookCodeError)
    }

    /// The printed symbology (a book's EAN-13 stays `.ean13`; `validity` says it is a book).
    public var symbology: Symbology
    /// The digits as zbar decoded them, in the symbology's native length.
    public var text: String
    /// zbar's quality score (scan-line hits); can differ by one between scans of one image.
    public var quality: Int
    /// Where the symbol is, in the coordinates of the image as the caller passed it in.
    public var bounds: BoundingBox
    /// The EAN-2/EAN-5 supplement printed beside this code, if one was read.
    public var addOn: AddOn?
    public var validity: Validity
    /// Whether scan lines running each way read it. zbar decodes a printed EAN/UPC alike
    /// from either side; many lines reading it one way only have found it in part of a
    /// longer pattern (the other way, that pattern reads as what it is, or as nothing).
    /// Not part of equality: the same symbol read again is equal.
    var readBothWays = true
    /// What vouched for these digits besides zbar's lines agreeing, as the reader reported the
    /// code (empty on a code built elsewhere). The printed digit line under the bars is read as
    /// a second witness only for a code nothing independent of its bars vouched for (an add-on) (`PrintedISBNFollowUp`).
    /// Not part of equality.
    public var corroborations: Set<Corroboration> = []

    /// A witness to a code's digits other than zbar's scan lines repeating them.
    public enum Corroboration: Sendable, Hashable, CaseIterable {
        /// `ModelDecoder` fitted the bars' pixels and read the same digits (a second reader).
        case modelReading
        /// `PixelCheck` found the code on the pixels and bore every digit out.
        case pixelCheck
        /// An EAN-2/EAN-5 was read beside it (`addOn`).
        case addOn

        /// Whether it speaks against a misread of the bars themselves. The model's fit and the
        /// pixel check read the same bars, so a parse of them that is valid but not what was
        /// printed (the held-out UPC-A `0 23942 43101 5` that zbar and zxing-cpp both read as
        /// the EAN-13 9074932437075) passes both; an add-on read on the side the bars' own
        /// reading puts it is a separate symbol that such a parse does not produce.
        public var vouchesAgainstABarMisread: Bool { self == .addOn }
    }

    public init(symbology: Symbology, text: String, quality: Int, bounds: BoundingBox,
                addOn: AddOn? = nil, validity: Validity) {
        self.symbology = symbology
        self.text = text
        self.quality = quality
        self.bounds = bounds
        self.addOn = addOn
        self.validity = validity
    }

    /// Validates `text` as `symbology`; add-ons found alone are rejected (they identify nothing).
    public init(symbology: Symbology, text: String, quality: Int, bounds: BoundingBox, addOn: AddOn? = nil) {
        let validity: Validity
        do {
            validity = .valid(try CodeValidator.validate(symbology: symbology, text: text))
        } catch {
            validity = .rejected(error)
        }
        self.init(symbology: symbology, text: text, quality: quality, bounds: bounds,
                  addOn: addOn, validity: validity)
    }

    public var productCode: ProductCode? {
        if case .valid(let code) = validity { code } else { nil }
    }

    public var rejection: BookCodeError? {
        if case .rejected(let error) = validity { error } else { nil }
    }

    public var isValid: Bool { productCode != nil }

    /// Same symbol, whatever the attempt (scale, rotation) or quality it was read with.
    public var identity: String { symbology.rawValue + ":" + text }

    public static func == (a: Detection, b: Detection) -> Bool {
        a.symbology == b.symbology && a.text == b.text && a.quality == b.quality && a.bounds == b.bounds
            && a.addOn == b.addOn && a.validity == b.validity
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(symbology)
        hasher.combine(text)
        hasher.combine(quality)
        hasher.combine(bounds)
        hasher.combine(addOn)
        hasher.combine(validity)
    }

    public var description: String {
        var line = "\(symbology.rawValue) \(text)"
        if let addOn { line += " + \(addOn.symbology.rawValue) \(addOn.text)" }
        switch validity {
        case .valid(let code): line += " (\(code))"
        case .rejected(let error): line += " (rejected: \(error))"
        }
        return line
    }
}

/// An axis-aligned box in pixel coordinates: `x..<x+width`, `y..<y+height`.
public struct BoundingBox: Sendable, Hashable, Codable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The smallest box holding every point (zbar gives one point per scan-line hit).
    public init?(enclosing points: some Sequence<(x: Int, y: Int)>) {
        var minX = Int.max, minY = Int.max, maxX = Int.min, maxY = Int.min
        for point in points {
            minX = min(minX, point.x); maxX = max(maxX, point.x)
            minY = min(minY, point.y); maxY = max(maxY, point.y)
        }
        guard minX <= maxX else { return nil }
        self.init(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
    }

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var midX: Int { x + width / 2 }
    public var midY: Int { y + height / 2 }

    public var description: String { "\(width)×\(height) at (\(x), \(y))" }
}

extension BoundingBox {
    /// zbar's box covers only the lines that decoded: grown by its own size (at least
    /// `minimumReach`) on every side, it holds the whole code for a second look.
    func grownToHoldCode(minimumReach: Int) -> BoundingBox {
        let reach = max(width, height, minimumReach)
        return BoundingBox(x: x - reach, y: y - reach, width: width + 2 * reach, height: height + 2 * reach)
    }
}

extension Sequence<Detection> {
    /// Top to bottom, then left to right: zbar's order is not stable between scans; position is.
    var inReadingOrder: [Detection] { sorted { ($0.bounds.y, $0.bounds.x) < ($1.bounds.y, $1.bounds.x) } }
}

extension Detection {
    /// This detection, read in a pass image, moved to the file's pixels: the pass image was
    /// a crop at `origin` (file pixels) of an image `scale`× smaller than the file, then
    /// enlarged `up`× or reduced `down`×.
    func placed(up: Int = 1, down: Int = 1, scale: Int = 1, origin: (x: Int, y: Int) = (0, 0)) -> Detection {
        var moved = self
        let b = bounds
        moved.bounds = BoundingBox(x: b.x * down / up, y: b.y * down / up,
                                   width: max(1, b.width * down / up), height: max(1, b.height * down / up)).scaled(by: scale)
        moved.bounds.x += origin.x
        moved.bounds.y += origin.y
        return moved
    }
}

extension BoundingBox {
    /// The smallest box holding both.
    func union(_ other: BoundingBox) -> BoundingBox {
        let x0 = min(x, other.x), y0 = min(y, other.y)
        return BoundingBox(x: x0, y: y0, width: max(maxX, other.maxX) - x0, height: max(maxY, other.maxY) - y0)
    }
}
