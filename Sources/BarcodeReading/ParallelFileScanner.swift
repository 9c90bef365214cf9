import Foundation
import Imaging

/// Scans files on all cores, one `FileScanner` per worker thread, and hands the results
/// back in input order. Workers run at most `lookAhead` files ahead of the consumer, so
/// memory stays flat however many files there are and however slowly they are consumed.
public struct ParallelFileScanner: Sendable {
    public typealias Output = (index: Int, url: URL, result: Result<FileScanResult, ImageError>)

    public let workers: Int
    public let options: ScanOptions
    public let lookAhead: Int

    public init(workers: Int = ProcessInfo.processInfo.activeProcessorCount, options: ScanOptions = .init(),
                lookAhead: Int? = nil) {
        self.workers = max(1, workers)
        self.options = options
        self.lookAhead = max(self.workers, lookAhead ?? self.workers * 4)
    }

    public func scan(_ urls: some Sequence<URL>) -> AsyncStream<Output> {
        let queue = ScanQueue(urls: Array(urls), lookAhead: lookAhead)
        let options = self.options
        for _ in 0..<min(workers, queue.urls.count) {
            let thread = Thread { queue.work(options: options) }
            thread.name = "rapidscan-decode"
            thread.start()
        }
        return AsyncStream(unfolding: { await queue.next() }, onCancel: { queue.cancel() })
    }
}

/// Shared between the worker threads and the consumer; every field is guarded by `condition`.
private final class ScanQueue: @unchecked Sendable {
    let urls: [URL]
    let lookAhead: Int
    private let condition = NSCondition()
    private var nextToTake = 0
    private var nextToHand = 0
    private var finished: [Int: Result<FileScanResult, ImageError>] = [:]
    private var waiting: CheckedContinuation<ParallelFileScanner.Output?, Never>?
    private var cancelled = false

    init(urls: [URL], lookAhead: Int) {
        self.urls = urls
        self.lookAhead = lookAhead
    }

    /// A worker thread's loop: take the next index in the window, scan, publish.
    func work(options: ScanOptions) {
        let scanner: FileScanner? = try? FileScanner(options: options)
        while let index = take() {
            let url = urls[index]
            let result: Result<FileScanResult, ImageError>
            if let scanner {
                do { result = .success(try scanner.scan(fileAt: url)) } catch { result = .failure(error) }
            } else {
                result = .failure(.outOfMemory(file: url.relativePath, detail: "zbar could not create a scanner"))
            }
            publish(index, result)
        }
    }

    private func take() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while !cancelled, nextToTake < urls.count, nextToTake >= nextToHand + lookAhead {
            condition.wait()
        }
        guard !cancelled, nextToTake < urls.count else { return nil }
        defer { nextToTake += 1 }
        return nextToTake
    }

    private func publish(_ index: Int, _ result: Result<FileScanResult, ImageError>) {
        condition.lock()
        finished[index] = result
        let resumed = handOver()
        condition.unlock()
        resumed?()
    }

    /// The consumer's side: the next result in input order, nil after the last.
    func next() async -> ParallelFileScanner.Output? {
        await withCheckedContinuation { continuation in
            condition.lock()
            if nextToHand >= urls.count || cancelled {
                condition.unlock()
                continuation.resume(returning: nil)
                return
            }
            waiting = continuation
            let resumed = handOver()
            condition.unlock()
            resumed?()
        }
    }

    /// With the lock held: if the consumer waits for a result that is ready, takes it out
    /// and returns the call that resumes the consumer (made after unlocking).
    private func handOver() -> (() -> Void)? {
        guard let continuation = waiting, let result = finished.removeValue(forKey: nextToHand) else { return nil }
        waiting = nil
        let output = (index: nextToHand, url: urls[nextToHand], result: result)
        nextToHand += 1
        condition.broadcast()
        return { continuation.resume(returning: output) }
    }

    func cancel() {
        condition.lock()
        cancelled = true
        let continuation = waiting
        waiting = nil
        condition.broadcast()
        condition.unlock()
        continuation?.resume(returning: nil)
    }
}
