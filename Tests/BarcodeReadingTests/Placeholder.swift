import Testing

@Test func BarcodeReadingTargetBuilds() { #expect(Bool(true)) }
