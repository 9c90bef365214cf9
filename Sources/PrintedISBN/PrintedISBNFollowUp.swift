import BarcodeReading
import BookCodes
import Foundation
import Imaging
import SpineOCR

/// The printed text's part in reading a photo or frame, after the bars (`ScanFollowUp`):
///
/// 1. Second witness: each EAN-13/UPC-A read that nothing independent of its bars vouched
///    for (`Corroboration.vouchesAgainstABarMisread`: an add-on) is compared with the digit line printed under it; a legible
///    line (check digit right) that states another code refuses it (an ambiguity).
/// 2. Printed ISBN: when no code is left, the ISBN printed on the photo, confirmed by two
///    readings; one ISBN (its ISBN-10 and ISBN-13 count as one) is a code with symbology
///    `printed`, several are an ambiguity, one labelled for another format ("(ebook)") is a
///    rejected code naming that format.
public final class PrintedISBNFollowUp: ScanFollowUp {
    /// Started on first use: its model takes a while to load, and most photos' codes need no witness
    /// reading twice (verdicts are kept) and most batches hold no codeless photo.
    private var started: Result<PrintedISBNReader, TesseractError>?
    private var reader: PrintedISBNReader? {
        if started == nil { started = Result { () throws(TesseractError) in try PrintedISBNReader() } }
        return try? started?.get()
    }
    private let budget: PrintedISBNReader.Budget
    /// Live frames: at most one printed reading per interval, so barcode frames keep flowing.
    private let minimumInterval: Duration?
    private var lastPrintedReading: ContinuousClock.Instant?
    /// Live frames: a code's witness verdict (nil: nothing legible), kept: the same code comes
    /// back frame after frame, and reading its digits on each would keep the frames waiting.
    private var verdicts: [String: Bool?] = [:]

    public init(budget: PrintedISBNReader.Budget, minimumInterval: Duration? = nil) {
        self.budget = budget
        self.minimumInterval = minimumInterval
    }

    /// One follow-up per worker for `scan`/`decode` at this effort; nil at fast effort.
    public static func factory(effort: ScanEffort) -> ScanFollowUpFactory? {
        guard let budget = PrintedISBNReader.Budget.forEffort(effort) else { return nil }
        return { PrintedISBNFollowUp(budget: budget) }
    }

    /// For webcam frames: a small pass, at most once a second per worker.
    public static let liveFactory: ScanFollowUpFactory = {
        PrintedISBNFollowUp(budget: .live, minimumInterval: .seconds(1))
    }

    public func followUp(_ result: FileScanResult, pixels given: FollowUpPixels) -> FileScanResult {
        var result = result
        // Each form made once: the witness and the page pass share the full pixels.
        var loaded: GrayImage??
        func pixels() -> GrayImage? {
            if let loaded { return loaded }
            let image = given.full()
            loaded = .some(image)
            return image
        }
        // 1. The digits under the bars witness a code nothing independent of its bars vouched
        // for (an add-on): zbar's own lines, the model's fit and the pixel check all read the
        // same bars, so they repeat a misread of them alike and are no witness to one.
        var refused: Set<String> = []
        let others = Set(result.codes.compactMap(\.productCode?.gtin13))
        for code in result.codes where (code.symbology == .ean13 || code.symbology == .upcA)
            && !code.corroborations.contains(where: \.vouchesAgainstABarMisread) {
            guard let gtin = code.productCode?.gtin13 else { continue }
            let agrees: Bool?
            if let verdict = verdicts[gtin] {
                agrees = verdict
            } else if let reader, let image = pixels() {
                // Another code read in the photo printed near this one is no contradiction.
                let neighbours = others.subtracting([gtin])
                let lines = reader.digitLines(around: code.bounds, in: image).subtracting(neighbours)
                if lines.isEmpty || lines.contains(gtin) {
                    agrees = lines.isEmpty ? nil : true
                } else {
                    // A contradiction stands only when a second reading (larger, binarised here)
                    // states the same other code: one misread line must not refuse good bars.
                    let again = reader.digitLines(around: code.bounds, in: image, codeWidth: 500, binarized: true)
                    agrees = again.contains(gtin) ? true : again.isDisjoint(with: lines) ? nil : false
                }
                if minimumInterval != nil { verdicts[gtin] = .some(agrees) }
            } else {
                agrees = nil
            }
            if agrees == false { refused.insert(code.identity) }
        }
        if !refused.isEmpty {
            result.codes.removeAll { refused.contains($0.identity) }
            result.ambiguities += refused.count
        }
        // 2. The printed ISBN, only where no code was confirmed.
        guard result.codes.isEmpty else { return result }
        if let minimumInterval {
            let now = ContinuousClock.now
            if let last = lastPrintedReading, now - last < minimumInterval { return result }
            lastPrintedReading = now
        }
        guard let reader else { return result }
        let reading = reader.read(FollowUpPixels(full: pixels, reduced: given.reduced), budget: budget)
        let isbns = Set(reading.accepted.map(\.isbn))
        if isbns.count == 1, let found = reading.accepted.first {
            result.codes.append(Detection(symbology: .printed, text: found.isbn.digits, quality: 0, bounds: found.box,
                                          validity: .valid(.book(found.isbn))))
            result.attempt = "printed ISBN"
        } else if isbns.count > 1 {
            // Two books' ISBNs (a hardcover's and a paperback's): which one this copy is, the
            // page does not say.
            result.ambiguities += 1
        }
        var reported: Set<ISBN13> = isbns
        for other in reading.otherFormats where reported.insert(other.isbn).inserted {
            result.rejected.append(Detection(
                symbology: .printed, text: other.isbn.digits, quality: 0, bounds: other.box,
                validity: .rejected(.otherFormat(isbn: other.isbn.digits, label: other.number.format ?? "another format"))))
        }
        result.unconfirmed += reading.unconfirmed
        return result
    }
}
