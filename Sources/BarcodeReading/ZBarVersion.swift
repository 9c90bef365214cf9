import CZBar

extension BarcodeReader {
    /// The linked libzbar's version ("0.23.92"), for `rapidscan doctor`.
    public static var zbarVersion: String {
        var major: UInt32 = 0, minor: UInt32 = 0, patch: UInt32 = 0
        zbar_version(&major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }
}
