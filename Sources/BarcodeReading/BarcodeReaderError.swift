/// zbar refused to start or to take a setting; nothing can be scanned without it.
public enum BarcodeReaderError: Error, Sendable, Hashable, CustomStringConvertible {
    case scannerUnavailable
    /// `setting` names the zbar option ("EAN-13 enable", "x-density 2").
    case configurationRejected(setting: String, code: Int32)
    case imageUnavailable
    /// libzbar could not be opened (it is opened on first use): why, naming the Debian package.
    case libraryUnavailable(String)

    public var description: String {
        switch self {
        case .scannerUnavailable:
            "zbar could not create an image scanner (out of memory?)"
        case .configurationRejected(let setting, let code):
            "zbar rejected the setting \(setting) (code \(code))"
        case .imageUnavailable:
            "zbar could not create an image (out of memory?)"
        case .libraryUnavailable(let reason):
            reason
        }
    }
}
