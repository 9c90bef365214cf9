import Foundation
import Imaging
import WorkerPools

/// Scans files on all cores, one `FileScanner` per worker thread, and hands the results
/// back in input order. Workers run at most `lookAhead` files ahead of the consumer, so
/// memory stays flat however many files there are and however slowly they are consumed.
/// The window is wide (64 files a worker: a result holds codes and counts, no pixels) because
/// the next result in order can be one photo that takes 100 times the others (a page read):
/// with 4 a worker the other worker stopped after a few files and waited for it.
public struct ParallelFileScanner: Sendable {
    public typealias Output = (index: Int, url: URL, result: Result<FileScanResult, ImageError>)

    public let workers: Int
    public let options: ScanOptions
    public let lookAhead: Int
    /// Asked after each file's bars were read (the printed ISBN), one per worker.
    public let followUp: ScanFollowUpFactory?

    public init(workers: Int = ProcessInfo.processInfo.activeProcessorCount, options: ScanOptions = .init(),
                lookAhead: Int? = nil, followUp: ScanFollowUpFactory? = nil) {
        self.workers = max(1, workers)
        self.options = options
        self.lookAhead = max(self.workers, lookAhead ?? self.workers * 64)
        self.followUp = followUp
    }

    public func scan(_ urls: some Sequence<URL>) -> AsyncStream<Output> {
        let urls = Array(urls)
        let options = self.options
        let makeFollowUp = followUp
        let pool = OrderedWorkerPool<(index: Int, url: URL), Output>(
            workers: min(workers, urls.count), name: "rapidscan-decode", lookAhead: lookAhead
        ) {
            let scanner = Result { () throws(BarcodeReaderError) in try FileScanner(options: options) }
            let followUp = makeFollowUp?()
            return { file in
                switch scanner {
                case .success(let scanner):
                    return (file.index, file.url, Result { () throws(ImageError) in try scanner.scan(fileAt: file.url, followUp: followUp) })
                case .failure(.libraryUnavailable(let reason)):
                    // libzbar is opened on first use: one that cannot be is named, with its package.
                    return (file.index, file.url, .failure(.cannotOpen(file: file.url.relativePath, reason: reason)))
                case .failure:
                    let detail = "zbar could not create a scanner"
                    return (file.index, file.url, .failure(.outOfMemory(file: file.url.relativePath, detail: detail)))
                }
            }
        }
        for (index, url) in urls.enumerated() { pool.submit((index, url)) }
        pool.finish()
        return pool.results()
    }
}
