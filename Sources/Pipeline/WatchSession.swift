import Catalogue
import Foundation
import Imaging
import Intake
import MetadataSources
import Synchronization

/// `rapidscan watch`: frames a capture program drops into a directory, processed as they land.
///
/// inotify reports each frame once it is complete (close-write or moved-in) → `LiveDecoder`
/// (all cores; stale frames dropped when frames land faster than they decode; results in
/// landing order) → `SessionPipeline` → optional clean-up (delete or move the frame).
/// The capture time of a watched frame is the moment it landed. Frames already in the
/// directory when the watch starts are left alone: for a live feed they are stale
/// (`rapidscan scan DIR` processes them, with resume).
public struct WatchSession: Sendable {
    public enum Cleanup: Sendable, Hashable {
        case keep
        /// Delete each frame once processed (`--consume`).
        case delete
        /// Move each processed frame into this directory (`--move-to DIR`).
        case moveTo(URL)
    }

    public struct Options: Sendable {
        public var directory: URL
        public var cleanup: Cleanup
        /// Stop after this long without a frame landing (`--idle-exit`).
        public var idleExit: TimeInterval?
        public var workers: Int
        /// Decode every frame however far behind (`--keep-all`), instead of dropping stale ones.
        public var keepAll: Bool
        /// Headerless frames (v4l2-ctl `--stream-to`) are read with this size and layout.
        public var rawFormat: RawFrameFormat?
        /// Retry the pending queue this often while watching (`--retry-every`); nil: never.
        public var retryEvery: TimeInterval?

        public init(directory: URL, cleanup: Cleanup = .keep, idleExit: TimeInterval? = nil,
                    workers: Int = ProcessInfo.processInfo.activeProcessorCount, keepAll: Bool = false,
                    rawFormat: RawFrameFormat? = nil, retryEvery: TimeInterval? = nil) {
            self.retryEvery = retryEvery
            self.directory = directory
            self.cleanup = cleanup
            self.idleExit = idleExit
            self.workers = max(1, workers)
            self.keepAll = keepAll
            self.rawFormat = rawFormat
        }
    }

    public let options: Options

    public init(options: Options) { self.options = options }

    /// Watches until interrupted, stopped through `stop`, idle for `idleExit`, or the
    /// directory goes away. `ready` is called once the watch is armed (frames written after
    /// it are seen).
    public func run(pipeline: SessionPipeline, output: any EventOutput, interrupt: InterruptMonitor?,
                    stop: WatchStop? = nil,
                    makeDecoder: @escaping @Sendable () throws -> any FrameDecoder,
                    ready: () -> Void = {}) async throws -> SessionSummary {
        let source = try DirectoryFrameSource(directory: options.directory, rawFormat: options.rawFormat)
        return try await run(source: source, pipeline: pipeline, output: output, interrupt: interrupt, stop: stop,
                             makeDecoder: makeDecoder, ready: ready)
    }

    /// As `run(pipeline:…)`, the frames from `source` (`watch --device`: a camera). A source
    /// that fails ends the watch: the summary is written, then `SourceFailed` thrown.
    public func run(source watcher: any LiveFrameSource, pipeline: SessionPipeline, output: any EventOutput,
                    interrupt: InterruptMonitor?, stop: WatchStop? = nil,
                    makeDecoder: @escaping @Sendable () throws -> any FrameDecoder,
                    ready: () -> Void = {}) async throws -> SessionSummary {
        let started = Date()
        stop?.attach(watcher)
        let decoder = try LiveDecoder(workers: options.workers, keepNewest: options.keepAll ? 0 : 1,
                                      makeDecoder: makeDecoder)
        let cancellation = pipeline.cancellation
        interrupt?.onInterrupt {
            watcher.stop()
            cancellation.cancelAll()
        }
        let lastLanding = LastLanding()
        let (inputs, continuation) = AsyncStream<Input>.makeStream()
        let feeding = feed(from: watcher, to: decoder, into: continuation, lastLanding: lastLanding)
        let idleWatch = options.idleExit.map { Self.stopWhenIdle(watcher, for: $0, lastLanding: lastLanding) }
        let retryTicks = options.retryEvery.map { Self.tick(every: $0, into: continuation) }
        // A queue retry runs beside the frames; its result comes back through the same stream.
        var retrying: Task<Result<[IntakeOutcome], CatalogueError>, Never>?
        // The journal's books go to the library once its server answers: a pass at start (a
        // killed watch's books), then after each hold, backing off while the server stays away.
        var replaying: Task<(SessionPipeline.JournalReplay, failedIds: Set<Int64>), Never>?
        var replayDue = false
        var replayAttempt = 0
        var failedIds = Set<Int64>()
        func scheduleReplay() {
            guard !replayDue, replaying == nil else { return }
            replayDue = true
            replayAttempt += 1
            let delay = replayAttempt == 1 ? 0 : Self.journalBackoff.delay(afterAttempt: replayAttempt - 1)
            Task {
                try? await Task.sleep(for: .seconds(delay))
                continuation.yield(.journalDue)
            }
        }
        output.started(totalFrames: nil)
        output.note(.watching(directory: watcher.name))
        ready()
        if pipeline.hasHeldBooks() { scheduleReplay() }
        var failure: String?
        for await input in inputs {
            switch input {
            case .frame(let decoded):
                let outcome = await pipeline.process(decoded)
                if outcome.events.contains(where: { $0.kind == .held }) { scheduleReplay() }
                cleanUp(decoded.frame, outcome: outcome, output: output)
            case .note(let note):
                output.note(note)
            case .failed(let reason):
                failure = reason
            case .retryDue:
                guard retrying == nil else { break }
                let retry = pipeline.retryQueue()
                retrying = retry
                Task { continuation.yield(.retried(await retry.value)) }
            case .retried(let result):
                retrying = nil
                pipeline.settleRetried(result, at: Date())
            case .journalDue:
                replayDue = false
                guard replaying == nil else { break }
                let replay = pipeline.replayJournal(skipping: failedIds)
                replaying = replay
                Task {
                    let (done, failed) = await replay.value
                    continuation.yield(.replayed(done, failedIds: failed))
                }
            case .replayed(let replay, let failed):
                replaying = nil
                failedIds.formUnion(failed)
                pipeline.settleReplayed(replay)
                if replay.serverLost {
                    scheduleReplay()
                } else {
                    replayAttempt = 0
                    // Books held while this pass ran.
                    if pipeline.hasHeldBooks(skipping: failedIds) { scheduleReplay() }
                }
            }
        }
        idleWatch?.cancel()
        retryTicks?.cancel()
        await feeding.value
        // A retry still running when the watch ended: cut (its books stay queued for
        // `pending retry`), and what it had settled is still reported.
        if let retry = retrying {
            retry.cancel()
            pipeline.settleRetried(await retry.value, at: Date())
        }
        // A journal pass still running: what it stored is reported; the rest stays in the journal.
        if let replay = replaying { pipeline.settleReplayed(await replay.value.0) }
        // Ctrl-C is how a watch ends, not a cut-short run: there is nothing to continue
        // (frames already in the directory are left alone), so the summary is a whole one.
        let summary = SessionSummary(record: pipeline.record, elapsed: Date().timeIntervalSince(started),
                                     interrupted: false, station: pipeline.station)
        output.finished(summary)
        if let failure { throw SourceFailed(reason: failure) }
        return summary
    }

    /// The frame source broke mid-watch (a camera unplugged); the reason names it.
    public struct SourceFailed: Error, Sendable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    /// Landed frames go to the decoder; decoded frames and the source's notes come back
    /// through one stream, in the order they happened, so only the session's task talks to
    /// the output. The stream ends once the watch stops and the decoder has drained.
    private func feed(from watcher: any LiveFrameSource, to decoder: LiveDecoder, into continuation: AsyncStream<Input>.Continuation,
                      lastLanding: LastLanding) -> Task<Void, Never> {
        let feeder = Task {
            for await event in watcher.events() {
                switch event {
                case .frame(let frame):
                    lastLanding.set(frame.captureTime.date)
                    decoder.submit(frame)
                case .note(let note):
                    continuation.yield(.note(note))
                case .failed(let reason):
                    continuation.yield(.failed(reason))
                    watcher.stop()
                }
            }
            decoder.finish()
        }
        let forwarder = Task {
            for await decoded in decoder.results { continuation.yield(.frame(decoded)) }
            continuation.finish()
            await feeder.value
        }
        return forwarder
    }

    /// `--retry-every`: a tick into the session's stream each `interval`.
    private static func tick(every interval: TimeInterval, into continuation: AsyncStream<Input>.Continuation) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(interval))
                if Task.isCancelled { return }
                continuation.yield(.retryDue)
            }
        }
    }

    /// `--idle-exit`: stops the watch once no frame has landed for `limit`.
    private static func stopWhenIdle(_ watcher: any LiveFrameSource, for limit: TimeInterval,
                                     lastLanding: LastLanding) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                let idle = Date().timeIntervalSince(lastLanding.get())
                if idle >= limit { watcher.stop(); return }
                try? await Task.sleep(for: .seconds(min(0.25, limit - idle + 0.01)))
            }
        }
    }

    /// How long a watch waits between journal passes while the server stays away: 1 s, doubling to 30 s.
    static let journalBackoff = Backoff(base: 1, maximum: 30, spread: 0.8...1.2)

    private enum Input: Sendable {
        case frame(DecodedFrame)
        /// Time for a pass over the journal.
        case journalDue
        case replayed(SessionPipeline.JournalReplay, failedIds: Set<Int64>)
        case note(SessionNote)
        case failed(String)
        /// Time to retry the pending queue.
        case retryDue
        case retried(Result<[IntakeOutcome], CatalogueError>)
    }

    /// A landed file worth decoding: an image by extension, not hidden (capture tools write
    /// `.name.tmp` first), not empty (a zero-byte close-write is a file being created).
    static func frame(at url: URL, landedAt: Date, rawFormat: RawFrameFormat?) -> Frame? {
        let name = url.lastPathComponent
        guard !name.hasPrefix("."), ImageLoader.isSupportedImage(url, rawFormat: rawFormat),
              var frame = try? Frame.file(at: url), frame.size > 0 else { return nil }
        frame.captureTime = CaptureTime(date: landedAt, origin: .landed)
        return frame
    }

    /// A frame leaves the directory only once what it holds is safe in the database: a book
    /// added, already owned or queued. Library Full, Not Found, failures and unreadable
    /// frames stay where they are, so nothing the user showed the camera is lost; a frame
    /// dropped unread (a newer one superseded it) goes.
    static func mayRemove(_ outcome: FrameOutcome) -> Bool {
        if outcome.events.allSatisfy({ $0.kind == .dropped }) { return true }
        return outcome.settled && !outcome.events.contains { $0.kind == .notFound }
    }

    private func cleanUp(_ frame: Frame, outcome: FrameOutcome, output: any EventOutput) {
        if options.cleanup != .keep, !Self.mayRemove(outcome) {
            output.note(.keptFrame(file: frame.path, outcomes: outcome.events.map(\.kind)))
            return
        }
        switch options.cleanup {
        case .keep: return
        case .delete:
            try? FileManager.default.removeItem(at: frame.url)
        case .moveTo(let directory):
            let target = directory.appendingPathComponent(frame.url.lastPathComponent)
            try? FileManager.default.removeItem(at: target)
            do {
                try FileManager.default.moveItem(at: frame.url, to: target)
            } catch {
                output.note(.cannotMove(file: frame.path, directory: directory.path, reason: error.localizedDescription))
            }
        }
    }
}

/// Stops a running watch from outside the session (a program embedding it, a test that
/// knows when it has seen enough): no more frames are taken, the ones already landed are
/// processed, then `run` returns. Safe from any thread, before or during the run.
public final class WatchStop: Sendable {
    private let state = Mutex<(requested: Bool, watcher: (any LiveFrameSource)?)>((false, nil))

    public init() {}

    public func stop() {
        state.withLock { $0.requested = true; return $0.watcher }?.stop()
    }

    func attach(_ watcher: any LiveFrameSource) {
        if state.withLock({ $0.watcher = watcher; return $0.requested }) { watcher.stop() }
    }
}

/// When a frame last landed, shared by the feeder and the idle timer.
private final class LastLanding: Sendable {
    private let time = Mutex(Date())
    func set(_ date: Date) { time.withLock { $0 = date } }
    func get() -> Date { time.withLock { $0 } }
}
