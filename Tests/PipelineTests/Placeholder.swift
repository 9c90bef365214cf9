import Testing

@Test func PipelineTargetBuilds() { #expect(Bool(true)) }
