import Testing

@Test func CatalogueTargetBuilds() { #expect(Bool(true)) }
