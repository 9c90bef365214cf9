import Pipeline
import Testing

@Suite struct FrameDropPolicyTests {
    @Test func keepsOnlyTheNewestWaitingFrames() {
        var policy = FrameDropPolicy<Int>(capacity: 2)
        #expect(policy.admit(1) == [])
        #expect(policy.admit(2) == [])
        #expect(policy.admit(3) == [1])
        #expect(policy.admit(4) == [2])
        #expect(policy.next() == 3)  // kept frames still go out in landing order
        #expect(policy.admit(5) == [])
        #expect(policy.next() == 4)
        #expect(policy.next() == 5)
        #expect(policy.next() == nil)
    }

    @Test func zeroCapacityKeepsEverything() {
        var policy = FrameDropPolicy<Int>(capacity: 0)
        for i in 0..<100 { #expect(policy.admit(i).isEmpty) }
        #expect(policy.waiting.count == 100)
    }
}
