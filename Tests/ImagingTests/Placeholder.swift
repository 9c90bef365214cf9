import Testing

@Test func ImagingTargetBuilds() { #expect(Bool(true)) }
