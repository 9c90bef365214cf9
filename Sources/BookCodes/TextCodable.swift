/// Codes are stored as the text they were read from (a JSON string) and validated again
/// when decoded, so a corrupted file can never produce an invalid value.
protocol TextCodable: Codable {
    init(validating text: String) throws(BookCodeError)
    var codableText: String { get }
}

extension TextCodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do { try self.init(validating: text) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text): \(error)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(codableText)
    }
}
