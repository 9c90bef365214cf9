import Testing

@Test func BookLookupTargetBuilds() { #expect(Bool(true)) }
