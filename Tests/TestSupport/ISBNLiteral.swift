import BookCodes

/// The ISBN-13 a test writes as a literal (known to be valid, so a bad one is a test bug).
public func isbn(_ text: String) -> ISBN13 {
    try! ISBN13(validating: text)
}

/// The `n`-th valid ISBN-13 under `prefix` ("9781" + 8 digits + check digit by default;
/// "97910" for codes no fixture uses): the one helper every suite makes ISBNs with.
public func generatedISBN(_ n: Int, prefix: String = "9781") -> ISBN13 {
    let body = prefix + String(format: "%0\(12 - prefix.count)d", n)
    let sum = body.utf8.enumerated().reduce(0) { $0 + Int($1.element - 48) * ($1.offset % 2 == 0 ? 1 : 3) }
    return isbn(body + String((10 - sum % 10) % 10))
}

/// `count` distinct valid ISBN-13s, `generatedISBN(start)` upwards.
public func generatedISBNs(_ count: Int, startingAt start: Int = 0, prefix: String = "9781") -> [ISBN13] {
    (start..<start + count).map { generatedISBN($0, prefix: prefix) }
}
