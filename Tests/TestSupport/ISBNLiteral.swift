import BookCodes

/// The ISBN-13 a test writes as a literal (known to be valid, so a bad one is a test bug).
public func isbn(_ text: String) -> ISBN13 {
    try! ISBN13(validating: text)
}
