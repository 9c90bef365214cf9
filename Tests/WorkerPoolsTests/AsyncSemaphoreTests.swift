import Foundation
@testable import WorkerPools
import TestSupport
import Testing

/// The bound on requests in flight (HTTPClient) and lookups in flight (the scan pipeline).
@Suite struct AsyncSemaphoreTests {
    @Test func neverMoreHoldersThanTheLimit() async {
        let semaphore = AsyncSemaphore(limit: 3)
        let gauge = Gauge()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    await semaphore.acquire()
                    await gauge.enter()
                    try? await Task.sleep(for: .milliseconds(5))
                    await gauge.leave()
                    await semaphore.release()
                }
            }
        }
        #expect(await gauge.peak <= 3)
        #expect(await gauge.peak >= 1)
    }

    @Test func waitersGetTheirPermitsInArrivalOrder() async {
        let semaphore = AsyncSemaphore(limit: 1)
        await semaphore.acquire()
        let order = OrderLog()
        var tasks: [Task<Void, Never>] = []
        for index in 0..<5 {
            tasks.append(Task {
                await semaphore.acquire()
                await order.append(index)
                await semaphore.release()
            })
            // The next waiter queues only once this one is queued.
            while await semaphore.waiting < index + 1 { await Task.yield() }
        }
        await semaphore.release()
        for task in tasks { await task.value }
        #expect(await order.values == [0, 1, 2, 3, 4])
        #expect(await semaphore.waiting == 0)
    }

    @Test func aReleasedPermitWithNoWaiterIsKeptForTheNextAcquire() async {
        let semaphore = AsyncSemaphore(limit: 1)
        await semaphore.acquire()
        await semaphore.release()
        await semaphore.acquire()  // would hang if the permit had been lost
        #expect(await semaphore.waiting == 0)
    }

    @Test func aLimitBelowOneStillLetsOneThrough() async {
        let semaphore = AsyncSemaphore(limit: 0)
        await semaphore.acquire()  // would hang with no permit
        #expect(await semaphore.waiting == 0)
    }
}

actor OrderLog {
    private(set) var values: [Int] = []
    func append(_ value: Int) { values.append(value) }
}
