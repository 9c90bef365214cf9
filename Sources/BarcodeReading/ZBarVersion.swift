import CLazyLibraries
import CZBar

extension BarcodeReader {
    /// The installed libzbar's version ("0.23.92"), for `rapidscan doctor`; opening it may fail
    /// (it is opened on first use): why, naming the Debian package.
    public static var zbarVersion: String {
        get throws(BarcodeReaderError) {
            if let reason = rs_zbar_load() { throw .libraryUnavailable(String(cString: reason)) }
            var major: UInt32 = 0, minor: UInt32 = 0, patch: UInt32 = 0
            zbar_version(&major, &minor, &patch)
            return "\(major).\(minor).\(patch)"
        }
    }
}
