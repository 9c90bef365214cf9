/// Counts concurrent entries and remembers the peak (tests of bounds on concurrency).
public actor Gauge {
    private var current = 0
    public private(set) var peak = 0
    public init() {}
    public func enter() {
        current += 1
        peak = max(peak, current)
    }
    public func leave() { current -= 1 }
}
