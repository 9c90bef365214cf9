import Testing

@Test func BookCodesTargetBuilds() { #expect(Bool(true)) }
