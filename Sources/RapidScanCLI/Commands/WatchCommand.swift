import ArgumentParser
import BarcodeReading
import Foundation
import Pipeline
import PrintedISBN

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Add books from the frames a webcam capture program writes into a directory.",
        discussion: """
        Example:
          rapidscan watch --consume /tmp/frames

        Frames are read as soon as they are complete (inotify close-write or moved-in; a \
        frame still being written is never read) and processed like `scan` does, with the \
        moment a frame landed as its capture time for the 3-second debounce. When frames \
        land faster than they can be decoded, stale frames are dropped (counted) so the \
        latency stays low; --keep-all decodes every frame instead. Frames already in the \
        directory when the watch starts are left alone (use `rapidscan scan DIR` for them).

        A camera without a capture program: rapidscan watch --device /dev/video0 reads \
        its frames straight through libzbar's V4L2 video source (a size near 1280x720, \
        GREY/Y800 or YUYV), in memory.

        Capture recipes (1280x720 webcam at 10 frames/s):
          ffmpeg -f v4l2 -video_size 1280x720 -i /dev/video0 -r 10 \\
            -atomic_writing 1 DIR/%06d.jpg
          with: rapidscan watch --consume DIR   (else frames pile up, 10 a second)
          v4l2-ctl --set-fmt-video=width=1280,height=720,pixelformat=YUYV
          while v4l2-ctl --stream-mmap --stream-count=1 --stream-to=DIR/.f.yuv; do
            mv DIR/.f.yuv DIR/$(date +%s%3N).yuv; done
          with: rapidscan watch --raw-frame yuyv:1280x720 --consume DIR

        --json prints the events `scan` prints (plus `dropped` and `held`), the frame's landing time as \
        captureTime, then a summary object. On a terminal the recently-scanned panel \
        (badge, last ten books and their state) is redrawn in place.

        Books queued because no source answered are tried again every --retry-every \
        seconds (default 60) while the watch runs; what is still queued when it ends waits \
        for `rapidscan pending retry`.

        A PostgreSQL library whose server goes away: the watch reads on and holds each book \
        it confirms in this station's journal ($XDG_STATE_HOME/rapidscan, event `held`), \
        adding them once the server answers (tried again from 1 s, backing off to 30 s); \
        a watch killed meanwhile leaves them for the next `rapidscan watch` on that library.

        Ctrl-C (or SIGTERM) is how a watch ends: the summary, and the exit status of what \
        it saw (0 when every book settled). It also stops after --idle-exit seconds without \
        a frame, or when the directory is removed.

        In this command: \(SessionExitStatus.help)
        """
    )

    @OptionGroup var session: SessionOptions

    @Argument(help: "The directory the capture program writes frames into.", completion: .directory)
    var directory: String?

    @Option(help: "Read frames straight from this V4L2 camera (e.g. /dev/video0) instead of a directory.",
            completion: .file())
    var device: String?

    @Flag(help: "Delete each frame once it is processed, so the directory does not grow.")
    var consume = false

    @Option(name: .customLong("move-to"), help: "Move each processed frame into this directory.", completion: .directory)
    var moveTo: String?

    @Option(name: .customLong("idle-exit"), help: "Stop after this many seconds without a new frame.")
    var idleExit: Double?

    @Option(name: .customLong("retry-every"), help: "Retry queued lookups this often while watching, in seconds (0: never).")
    var retryEvery: Double = 60

    @Flag(help: "Decode every frame, never dropping stale ones (for copying photos in).")
    var keepAll = false

    @Flag(help: "Read each frame like a photo (other scales, sharpen, contrast) when one plain pass finds nothing; slower.")
    var thorough = false

    func validate() throws {
        if consume && moveTo != nil { throw ValidationError("--consume and --move-to cannot be combined") }
        if let idleExit, idleExit <= 0 { throw ValidationError("--idle-exit must be a positive number of seconds") }
        if retryEvery < 0 || !retryEvery.isFinite { throw ValidationError("--retry-every must be 0 (never) or a number of seconds, got \(retryEvery)") }
        if let device {
            if directory != nil { throw ValidationError("give a directory or --device \(device), not both") }
            // A camera's frames are never files: nothing to delete, move or read as a photo.
            for (given, flag) in [(consume, "--consume"), (moveTo != nil, "--move-to"), (thorough, "--thorough")] where given {
                throw ValidationError("\(flag) applies to frame files, not to --device")
            }
            return
        }
        guard let directory else { throw ValidationError("give the directory to watch, or --device /dev/videoN") }
        if let problem = Self.directoryProblem(directory) { throw ValidationError("\(directory): \(problem)") }
        if let moveTo, let problem = Self.directoryProblem(moveTo) { throw ValidationError("--move-to \(moveTo): \(problem)") }
    }

    /// "does not exist" and "not a directory" are different mistakes; say which.
    static func directoryProblem(_ path: String) -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return "does not exist" }
        return isDirectory.boolValue ? nil : "not a directory"
    }

    func run() async throws {
        let watched = device ?? directory ?? "."
        // Opened before the session, so a camera that cannot be used fails alone, naming itself.
        let camera: DeviceFrameSource?
        do {
            camera = try device.map { device throws(VideoCaptureError) in try DeviceFrameSource(device: device) }
        } catch {
            // The camera is input that could not be used (the table's 1), as an unreadable frame is.
            throw SessionExitStatus.fail(error.description, status: SessionExitStatus.unreadable)
        }
        // The live panel redraws in place: cursor escapes, so only where they are allowed.
        let live: HumanOutput.Live = Terminal.allowsEscapes(.standardOutput) ? .panel(title: "rapidscan watch \(watched)") : .none
        // Offline, no source is asked: the queue waits for `pending retry`.
        let retryEvery: TimeInterval? = retryEvery > 0 && !session.offline ? retryEvery : nil
        let context = try session.openContext(liveDisplay: live, retryEvery: retryEvery, journal: true)
        let cleanup: WatchSession.Cleanup = consume ? .delete : moveTo.map { .moveTo(URL(fileURLWithPath: $0)) } ?? .keep
        let watch = WatchSession(options: .init(
            directory: URL(fileURLWithPath: watched), cleanup: cleanup, idleExit: idleExit,
            workers: session.workerCount, keepAll: keepAll, rawFormat: session.rawFrameFormat, retryEvery: retryEvery))
        let scanOptions = session.scanOptions(thorough: true)
        let rawFormat = session.rawFrameFormat
        let thorough = thorough
        let interrupt = InterruptMonitor.process
        let summary: SessionSummary
        let makeDecoder: @Sendable () throws -> any FrameDecoder = {
            thorough ? try FileFrameDecoder(options: scanOptions, followUp: PrintedISBNFollowUp.factory(effort: scanOptions.effort)) as any FrameDecoder
                : try LiveFrameDecoder(rawFormat: rawFormat, followUp: PrintedISBNFollowUp.liveFactory)
        }
        do {
            if let camera {
                summary = try await watch.run(source: camera, pipeline: context.pipeline, output: context.output,
                                              interrupt: interrupt, makeDecoder: makeDecoder)
            } else {
                summary = try await watch.run(pipeline: context.pipeline, output: context.output, interrupt: interrupt,
                                              makeDecoder: makeDecoder)
            }
        } catch let failure as WatchSession.SourceFailed {
            throw SessionExitStatus.fail(failure.reason, status: SessionExitStatus.unreadable)
        } catch {
            throw SessionExitStatus.fail("\(error)")
        }
        throw SessionExitStatus.exitCode(for: summary)
    }
}

extension WatchCommand: FinishesOnInterrupt {}
