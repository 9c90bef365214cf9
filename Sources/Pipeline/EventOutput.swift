import Foundation

/// Stage "emit": where a session's events and notes go. The library only emits; the
/// executable decides what a person or a script sees (RapidScanCLI/Output). One output
/// per session, called from the session's task in capture order.
public protocol EventOutput: AnyObject {
    /// `totalFrames` is known for `scan`, nil for `watch`.
    func started(totalFrames: Int?)
    func emit(_ event: ScanEvent, record: SessionRecord)
    /// After every frame (progress bar, live panel).
    func frameFinished(record: SessionRecord)
    /// Something about the run rather than a frame's outcome (a warning, the watch armed).
    func note(_ note: SessionNote)
    func finished(_ summary: SessionSummary)
}

/// What a session has to say besides its events: diagnostics the executable words and
/// writes to standard error.
public enum SessionNote: Sendable, Hashable {
    /// `watch` is armed: frames written from now on are seen.
    case watching(directory: String)
    /// The kernel's inotify queue overflowed; some frames were not seen.
    case watchOverflowed
    /// The watched directory was removed or moved; the watch stops.
    case directoryGone(directory: String)
    /// `--consume`/`--move-to` left a frame in place: what it holds is not settled in the library.
    case keptFrame(file: String, outcomes: [ScanEvent.Kind])
    /// `--move-to` could not move a processed frame.
    case cannotMove(file: String, directory: String, reason: String)
    /// The resume state of a file could not be read: it is scanned again.
    case resumeStateUnreadable(file: String, reason: String)
    /// A file's books are stored but the file could not be marked processed: a later scan reads it again.
    case notMarkedProcessed(file: String, reason: String)
    /// Interrupted: the file's lookups were cut and its books only queued, so it is left for the next run to read again.
    case notMarkedAfterInterrupt(file: String)
    /// `scan`: the library's server went away (`reason` names its host and port); the scan
    /// stopped after `file`, leaving it and the files after it unmarked for the next run.
    case serverLost(reason: String, file: String)
    /// `watch` could not read its pending queue to retry it.
    case queueRetryFailed(reason: String)
}
