extension Unicode.Scalar {
    /// Han or kana: Chinese and Japanese are written without spaces between words, so title
    /// matching and the local dump's title search take each such character as a word of its own.
    public var isHanOrKana: Bool {
        switch value {
        case 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x2FA1F: true
        default: false
        }
    }
}

extension Character {
    /// One Han or kana scalar (`Unicode.Scalar.isHanOrKana`).
    public var isHanOrKana: Bool { unicodeScalars.count == 1 && unicodeScalars.first!.isHanOrKana }
}
