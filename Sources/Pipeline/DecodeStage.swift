import BarcodeReading
import BookCodes
import Foundation
import Imaging

/// Stage "decode" for `scan`: `ParallelFileScanner` decodes on all cores (one zbar scanner
/// per worker) and hands results back in input order; each becomes a `DecodedFrame`.
public struct ParallelBatchDecoder: BatchDecoder {
    public let workers: Int
    public let options: ScanOptions
    /// Asked after the bars (the printed ISBN), one per worker.
    public let followUp: ScanFollowUpFactory?

    public init(workers: Int = ProcessInfo.processInfo.activeProcessorCount, options: ScanOptions = .init(),
                followUp: ScanFollowUpFactory? = nil) {
        self.workers = max(1, workers)
        self.options = options
        self.followUp = followUp
    }

    public func decode(_ frames: [Frame], stopWhen shouldStop: @escaping @Sendable () -> Bool) -> AsyncStream<DecodedFrame> {
        let results = ParallelFileScanner(workers: workers, options: options, followUp: followUp).scan(frames.map(\.url))
        return AsyncStream { continuation in
            // Ending this stream (the session stopped reading, e.g. after Ctrl-C) cancels the
            // scanner: its workers finish the files in hand and take no more.
            let task = Task {
                for await (index, _, result) in results {
                    if shouldStop() { break }
                    continuation.yield(DecodedFrame(frame: frames[index], outcome: .init(result)))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// Stage "decode" for `watch`: one `FileScanner` per decode thread.
public final class FileFrameDecoder: FrameDecoder {
    private let scanner: FileScanner
    private let followUp: (any ScanFollowUp)?

    public init(options: ScanOptions = .init(), followUp: ScanFollowUpFactory? = nil) throws {
        scanner = try FileScanner(options: options)
        self.followUp = followUp?()
    }

    public func decode(_ frame: Frame) -> DecodedFrame.Outcome {
        .init(Result { () throws(ImageError) in try scanner.scan(fileAt: frame.url, followUp: followUp) })
    }
}

/// Stage "decode" for live webcam frames: `LiveFrameReader` (a reduced pass first, full
/// size only when that leaves something to find; codes confirmed as `scan` confirms them).
/// A frame the camera took 33 ms after the last one is worth more than retrying this one at
/// other scales, so the photo strategy of `FileScanner` (finer scales, tricks) is left to
/// `scan` and `watch --thorough`.
public final class LiveFrameDecoder: FrameDecoder {
    private let reader: LiveFrameReader
    private let followUp: (any ScanFollowUp)?
    private let rawFormat: RawFrameFormat?

    /// `followUp`: asked after the bars (the printed ISBN; its own pace: `PrintedISBNFollowUp.liveFactory`).
    public init(rawFormat: RawFrameFormat? = nil, followUp: ScanFollowUpFactory? = nil) throws {
        reader = try LiveFrameReader(rawFormat: rawFormat)
        self.followUp = followUp?()
        self.rawFormat = rawFormat
    }

    public func decode(_ frame: Frame) -> DecodedFrame.Outcome {
        do {
            let reading = if let pixels = frame.pixels { reader.read(pixels) } else { try reader.read(fileAt: frame.url) }
            var read = FileScanResult(codes: reading.codes, rejected: reading.rejected, imageWidth: 0, imageHeight: 0,
                                      ambiguities: reading.ambiguities, unconfirmed: reading.unconfirmed,
                                      contradicted: reading.contradicted)
            if let followUp {
                let bars = read
                let options = ScanOptions(rawFormat: rawFormat)
                read = frame.pixels.map { pixels in followUp.followUp(bars) { pixels } }
                    ?? followUp.followUp(bars, fileAt: frame.url, options: options)
            }
            return .read(read.codes + read.rejected, ambiguities: read.ambiguities, unconfirmed: read.unconfirmed,
                         contradicted: read.contradicted, sawUnreadCode: read.sawUnreadCode)
        } catch {
            return .unreadable(reason: error.description)
        }
    }
}
