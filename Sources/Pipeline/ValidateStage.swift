import BarcodeReading
import BookCodes
import Imaging

/// Stage "validate": every detection was checked against its check digit by the reader;
/// here they are sorted into books (Bookland 978/979), other products and rejected codes,
/// one per code (GTIN-13 space), so "9780306406157" read as EAN-13 and as ISBN-13 counts once.
public enum ValidateStage {
    public static func outcome(of result: Result<FileScanResult, ImageError>) -> DecodedFrame.Outcome {
        switch result {
        case .failure(let error): .unreadable(reason: error.description)
        case .success(let scan): .read(codes(from: scan.codes + scan.rejected))
        }
    }

    public static func codes(from detections: [Detection]) -> [ReadCode] {
        var seen = Set<String>()
        var codes: [ReadCode] = []
        // An EAN-2/EAN-5 add-on is price metadata printed beside a main code, never a code of its own.
        for detection in detections where !detection.symbology.isAddOn {
            let code: ReadCode
            switch detection.validity {
            case .valid(.book(let isbn)): code = .book(isbn, symbology: detection.symbology, text: detection.text, addOn: detection.addOn)
            case .valid(.product(let gtin)): code = .product(gtin)
            case .rejected(let error):
                code = .rejected(symbology: detection.symbology, text: detection.text, reason: error.description)
            }
            let identity = code.debounceKey ?? "rejected:\(detection.symbology.rawValue):\(detection.text)"
            if seen.insert(identity).inserted { codes.append(code) }
        }
        return codes
    }
}
