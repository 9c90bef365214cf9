import BookCodes
import Foundation
import Imaging

extension AttemptLog {
    /// The last resort when nothing is confirmed: each barcode-like patch cropped upright
    /// and read by `ModelDecoder` (soft codes zbar's edges miss). Its bands agreeing count
    /// as scan lines reading alike; a different code read at the same place by zbar makes
    /// an ambiguity, as between zbar's own reads. True once a confirmed code stands.
    /// `scale`: file pixels per pixel of the image the regions were found in.
    mutating func runModel(on regions: [CandidateRegion], scale: Int, crop: (CandidateRegion) -> RegionReading.Crop?) -> Bool {
        regions: for region in regions {
            guard let crop = crop(region) else { continue }
            switch ModelDecoder.read(crop, of: region, scale: scale) {
            case .code(let detection):
                // Its add-on was looked for in the same crop.
                addOnsLookedFor.insert(detection.identity)
                agreement.record(detection, attempt: Agreement.modelFitAttempt, upright: true)
                // The first confirmed code ends the look, as zbar's regions do: the weaker
                // regions after it are mostly print and clutter, each fitted as every symbol.
                if reportable() { break regions }
            case .refused: modelRefusals += 1
            case .nothing: break
            }
        }
        let found = reportable()
        if found, successfulAttempt == nil { successfulAttempt = Agreement.modelFitAttempt }
        return found
    }
}

extension ModelDecoder {
    /// What the model made of a region's upright crop.
    enum RegionOutcome {
        /// A valid EAN-13/UPC-A/UPC-E/EAN-8, at the crop's place (file pixels), with bands agreeing as its scan lines.
        case code(Detection)
        /// Fitted but not read: bands disagreeing, a digit or the check digit in doubt.
        case refused
        case nothing
    }

    /// `region`'s crop read by the model. `scale`: file pixels per pixel of the image the
    /// region was found in. `shortCodes`: a UPC-E or EAN-8 is tried where no EAN-13/UPC-A
    /// reads (twice the model's work on a patch that holds no code). `addOns`: an EAN-13/UPC-A
    /// read is looked beside for its EAN-5/EAN-2.
    static func read(_ crop: RegionReading.Crop, of region: CandidateRegion, scale: Int, shortCodes: Bool = true,
                     addOns: Bool = true) -> RegionOutcome {
        // A patch covers the bars that stayed sharp and coherent: a soft code's patch can
        // be half the code, and a code with its add-on is one patch of up to 1.7 codes
        // (95 modules, a gap, 47, and a cell of margin each end): at 0.6 the codes of
        // such patches fell outside the widths tried.
        let patch = region.length / crop.mapping.step
        let widths = patch * 0.45...patch * 2 + 24
        // An EAN-13/UPC-A first; the short codes only where none was read (their margins
        // keep them from reading part of one).
        let (outcome, symbol, addOn) = read(crop.image, codeWidth: widths, symbols: shortCodes ? [.ean13, .upcE, .ean8] : [.ean13],
                                            addOn: addOns)
        switch outcome {
        case .read(var text, _):
            var symbology = symbol.symbology
            if symbology == .ean13, text.hasPrefix("0") { symbology = .upcA; text.removeFirst() }
            var detection = Detection(symbology: symbology, text: text, quality: Agreement.confirmingQuality,
                                      bounds: crop.mapping.apply(BoundingBox(x: 0, y: 0, width: crop.image.width,
                                                                             height: crop.image.height)).scaled(by: scale))
            detection.readBothWays = true
            guard detection.isValid else { return .refused }
            if let addOn, crop.showsSource(addOn.span) { detection.addOn = addOn.addOn }
            return .code(detection)
        case .refused:
            return .refused
        case .nothing:
            return .nothing
        }
    }
}

extension RegionReading {
    /// A small image's patch, upright at its own pixels: generous across the bars (a soft
    /// code's ends are weak edges, often outside the patch), within them along.
    static func modelCrop(_ region: CandidateRegion, from image: GrayImage) -> Crop? {
        let across = min(region.length * 1.6 + 48, Double(max(image.width, image.height)) * 1.5)
        let step = max(1, across / 700)
        let width = Int(across / step), height = max(ModelDecoder.bands * 2, Int(region.height * 0.8 / step))
        guard width >= 100 else { return nil }
        let mapping = RegionMapping(centreX: region.centreX, centreY: region.centreY, angle: region.angle,
                                    step: step, width: width, height: height)
        let upright = image.sampled(centreX: region.centreX, centreY: region.centreY, angle: region.angle,
                                    width: width, height: height, step: step)
        return Crop(image: upright, mapping: mapping, sourceWidth: image.width, sourceHeight: image.height)
    }
}
