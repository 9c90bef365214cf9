/// The first three digits of a GTIN-13: which GS1 organisation assigned the number.
///
/// A scanned EAN-13 whose prefix no GS1 organisation has been given cannot be printed on a
/// product: it is a misread whose check digit happened to fit (zbar can misread a blurred
/// code alike on every scan line, e.g. 9780596008574 as 6780186008574), so the reader refuses it.
public enum GS1Prefix {
    /// Whether any GS1 organisation holds this GTIN-13's prefix (restricted-circulation and
    /// coupon ranges count as assigned: they are printed in shops).
    public static func isAssigned(gtin13: String) -> Bool {
        guard let prefix = Int(gtin13.prefix(3)), gtin13.count == 13 else { return false }
        return !unassignedRanges.contains { $0.contains(prefix) }
    }
}
