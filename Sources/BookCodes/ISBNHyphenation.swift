/// The five elements of an ISBN-13 as the International ISBN Agency's range table splits them.
public struct ISBNParts: Hashable, Sendable {
    /// "978" or "979".
    public let prefix: String
    /// Registration group, e.g. "0" (English language), "3" (German language), "99937" (Macau).
    public let group: String
    /// Publisher (registrant) element.
    public let registrant: String
    /// Publication (title) element.
    public let publication: String
    public let checkDigit: String

    public var hyphenated: String { [prefix, group, registrant, publication, checkDigit].joined(separator: "-") }
}

extension ISBN13 {
    /// The range table's date ("Sun, 4 Jan 2026 16:49:25 GMT"), for `--version`-style output.
    public static var rangeTableDate: String { ISBNRangeTable.messageDate }

    /// The agency's split of this ISBN, nil when its range is not assigned in the table.
    public var parts: ISBNParts? {
        let lengths = ISBN13.lengths(of: digits)
        guard lengths.group > 0, lengths.registrant > 0 else { return nil }
        return split(group: lengths.group, registrant: lengths.registrant)
    }

    /// "978-0-306-40615-7". When the table has no range for it, as much as is known:
    /// "978-G-REST-C" where the agency's rules give the group's length, else "978-REST-C".
    public var hyphenated: String {
        let lengths = ISBN13.lengths(of: digits)
        if lengths.group > 0, lengths.registrant > 0 {
            return split(group: lengths.group, registrant: lengths.registrant).hyphenated
        }
        let body = digits.dropFirst(3).dropLast()
        let elements = lengths.group > 0
            ? [prefix, String(body.prefix(lengths.group)), String(body.dropFirst(lengths.group))]
            : [prefix, String(body)]
        return (elements + [String(digits.suffix(1))]).joined(separator: "-")
    }

    /// "978-0", the registration group this ISBN belongs to; nil where the agency has no group yet.
    public var registrationGroup: String? {
        let length = ISBN13.lengths(of: digits).group
        guard length > 0 else { return nil }
        let group = prefix + "-" + digits.dropFirst(3).prefix(length)
        return ISBNRangeTable.agencies[group] != nil ? group : nil
    }

    /// The agency's name for the registration group: "English language", "Germany", "Macau".
    public var registrationGroupName: String? {
        registrationGroup.flatMap { ISBNRangeTable.agencies[$0] }
    }

    private func split(group: Int, registrant: Int) -> ISBNParts {
        let body = Array(digits.dropFirst(3).dropLast())
        return ISBNParts(
            prefix: prefix,
            group: String(body[0..<group]),
            registrant: String(body[group..<group + registrant]),
            publication: String(body[(group + registrant)...]),
            checkDigit: String(digits.suffix(1)))
    }

    /// Binary search for the last table entry starting at or before the first 12 digits.
    private static func lengths(of digits: String) -> (group: Int, registrant: Int) {
        guard let key = UInt64(digits.prefix(12)) else { return (0, 0) }
        let entries = ISBNRangeTable.entries
        var low = 0, high = entries.count  // invariant: entries[low] starts <= key < entries[high]
        while high - low > 1 {
            let middle = (low + high) / 2
            if entries[middle] / 100 <= key { low = middle } else { high = middle }
        }
        let lengths = entries[low] % 100
        return (Int(lengths / 10), Int(lengths % 10))
    }
}

extension ISBN10 {
    /// "0-306-40615-2": the ISBN-13's hyphenation without its 978 prefix.
    public var hyphenated: String {
        let thirteen = isbn13.hyphenated.dropFirst(4).dropLast()
        return thirteen + String(digits.suffix(1))
    }
}
