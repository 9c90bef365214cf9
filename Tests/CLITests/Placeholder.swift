import Testing

@Test func CLITargetBuilds() { #expect(Bool(true)) }
