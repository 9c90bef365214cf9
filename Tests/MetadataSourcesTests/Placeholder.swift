import Testing

@Test func MetadataSourcesTargetBuilds() { #expect(Bool(true)) }
