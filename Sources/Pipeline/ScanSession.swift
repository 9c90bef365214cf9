import Catalogue
import Foundation
import Imaging

/// Decodes a batch of frames on all cores and yields them in the order given.
public protocol BatchDecoder: Sendable {
    func decode(_ frames: [Frame], stopWhen shouldStop: @escaping @Sendable () -> Bool) -> AsyncStream<DecodedFrame>
}

/// `rapidscan scan`: files and folders in, owned books out.
///
/// frame source (walk, stat, capture time, resume filter, sort by capture time) → decode
/// (all cores, results in input order) → `SessionPipeline` (confirm … emit) → resume
/// mark. A file is marked processed only after its outcomes are committed, so a run killed
/// at any point and started again never loses a book; adding is idempotent per user, so it
/// never duplicates one either.
public struct ScanSession: Sendable {
    public struct Options: Sendable {
        public var paths: [URL]
        /// Read files an earlier run already processed.
        public var rescan: Bool
        /// Headerless frames (.yuv, .y800…) are scanned with this size and layout.
        public var rawFormat: RawFrameFormat?
        public var timeZone: TimeZone

        public init(paths: [URL], rescan: Bool = false, rawFormat: RawFrameFormat? = nil, timeZone: TimeZone = .current) {
            self.paths = paths
            self.rescan = rescan
            self.rawFormat = rawFormat
            self.timeZone = timeZone
        }
    }

    public let options: Options
    public let catalogue: any CatalogueStore
    public let decoder: any BatchDecoder

    public init(options: Options, catalogue: any CatalogueStore, decoder: any BatchDecoder) {
        self.options = options
        self.catalogue = catalogue
        self.decoder = decoder
    }

    public func run(pipeline: SessionPipeline, output: any EventOutput, interrupt: InterruptMonitor?) async -> SessionSummary {
        let started = Date()
        let (toScan, problems) = framesToScan(output: output, pipeline: pipeline)
        output.started(totalFrames: toScan.count + problems.count)
        for problem in problems {
            await pipeline.process(DecodedFrame(frame: problem.frame, outcome: .unreadable(reason: problem.reason)))
        }
        let interrupted: @Sendable () -> Bool = { interrupt?.isInterrupted ?? false }
        let cancellation = pipeline.cancellation
        interrupt?.onInterrupt { cancellation.cancelAll() }
        // The library's server went away: no frame after it is read or reported.
        let serverLost = Flag()
        // Lookups of the next few frames run while earlier frames wait for theirs; frames
        // are still finished (added, recorded, reported, remembered) strictly in order.
        var planned: [PlannedFrame] = []
        for await decoded in decoder.decode(toScan, stopWhen: { interrupted() || serverLost.isSet }) {
            if interrupted() || serverLost.isSet { break }
            planned.append(pipeline.plan(decoded))
            while !serverLost.isSet, let first = planned.first, first.isReady || planned.count > Self.lookahead {
                planned.removeFirst()
                await finish(first, pipeline: pipeline, output: output, interrupted: interrupted, serverLost: serverLost)
            }
        }
        // Frames already decoded and planned finish even when interrupted (not once the server is gone).
        for frame in planned where !serverLost.isSet {
            await finish(frame, pipeline: pipeline, output: output, interrupted: interrupted, serverLost: serverLost)
        }
        let summary = SessionSummary(record: pipeline.record, elapsed: Date().timeIntervalSince(started), interrupted: interrupted(),
                                     station: pipeline.station)
        output.finished(summary)
        return summary
    }
}

extension ScanSession {
    /// How many decoded frames may wait for their lookups at once.
    static let lookahead = 16

    /// Stage "frame source": the files in capture order, less those an earlier run
    /// settled (counted as already processed; `--rescan` reads them again).
    private func framesToScan(output: any EventOutput, pipeline: SessionPipeline) -> ([Frame], [FileFrameSource.Problem]) {
        let found = FileFrameSource(paths: options.paths, rawFormat: options.rawFormat, timeZone: options.timeZone).frames()
        var toScan: [Frame] = []
        var alreadyProcessed = 0
        for frame in found.frames {
            // A resume state that cannot be read scans the file again (and says so).
            let processed: Bool
            do { processed = try catalogue.isProcessed(path: frame.resumeKey, size: frame.size, modified: frame.modified, station: pipeline.station) } catch {
                output.note(.resumeStateUnreadable(file: frame.path, reason: "\(error)"))
                processed = false
            }
            if !options.rescan, processed {
                alreadyProcessed += 1
            } else {
                toScan.append(frame)
            }
        }
        pipeline.countAlreadyProcessed(alreadyProcessed)
        return (toScan, found.problems)
    }

    /// The resume mark comes after the frame's outcomes are committed, never before. After
    /// Ctrl-C a frame whose books were only queued is not marked: its lookups were cut, not
    /// answered, so the next run reads it again and looks them up (not "already processed").
    private func finish(_ planned: PlannedFrame, pipeline: SessionPipeline, output: any EventOutput,
                        interrupted isInterrupted: @Sendable () -> Bool, serverLost: Flag) async {
        let outcome = await pipeline.finish(planned)
        // Asked once the frame's lookups are over: a signal while they waited cut them.
        let interrupted = isInterrupted()
        let frame = planned.frame
        if outcome.events.contains(where: { $0.kind == .failed }), let loss = pipeline.serverLoss {
            // Every frame after this one would fail the same way: stop, cutting the lookups in flight.
            serverLost.set()
            pipeline.cancellation.cancelAll()
            output.note(.serverLost(reason: loss, file: frame.path))
            return
        }
        guard outcome.settled else { return }
        if interrupted, outcome.events.contains(where: { $0.kind == .queued }) {
            output.note(.notMarkedAfterInterrupt(file: frame.path))
            return
        }
        do {
            try catalogue.markProcessed(path: frame.resumeKey, size: frame.size, modified: frame.modified, outcome: outcome.note, station: pipeline.station)
        } catch {
            // Its books are stored; the file is only not remembered, so a later scan reads it again.
            output.note(.notMarkedProcessed(file: frame.path, reason: "\(error)"))
        }
    }
}

extension Frame {
    /// The absolute, symlink-free path files are remembered by, so `scan .` and
    /// `scan /home/me/photos` resume each other.
    public var resumeKey: String { url.resolvingSymlinksInPath().standardizedFileURL.path }
}
