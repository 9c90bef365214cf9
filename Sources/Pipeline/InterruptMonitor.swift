import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C (SIGINT) and SIGTERM as a flag the session polls between frames, so frames in
/// flight finish, their outcomes are committed and the summary is printed. A second signal
/// clears the progress line and leaves within a second (status 130), summary or not.
public final class InterruptMonitor: Sendable {
    /// The exit status of a run stopped by a signal (128 + SIGINT).
    public static let exitStatus: Int32 = 130

    /// The process's monitor, installed as the executable's first act so a signal that
    /// arrives while a command is still starting up is not the default kill.
    public static let process = InterruptMonitor()

    private let received = Mutex<Int32?>(nil)
    /// Commands with nothing to finish let the first signal end the process at once.
    private let exitsAtOnce = Mutex(false)
    /// Set once in `init`, never changed; Dispatch sources are thread-safe objects.
    private nonisolated(unsafe) let sources: [any DispatchSourceSignal]
    private let handlers = Mutex<[@Sendable () -> Void]>([])
    /// Runs before a second signal forces the exit (the executable clears its progress line).
    private let forcedExitHandler = Mutex<@Sendable () -> Void>({})

    public init(signals: [Int32] = [SIGINT, SIGTERM]) {
        sources = signals.map { number in
            // The default action would kill the process before the summary; Dispatch delivers instead.
            signal(number, SIG_IGN)
            return DispatchSource.makeSignalSource(signal: number, queue: .global())
        }
        for (number, source) in zip(signals, sources) {
            source.setEventHandler { [self] in
                let first = received.withLock { value -> Bool in
                    defer { value = value ?? number }
                    return value == nil
                }
                if exitsAtOnce.withLock({ $0 }) { _exit(Self.exitStatus) }
                guard first else { return stopSoon() }
                for handler in handlers.withLock({ $0 }) { handler() }
            }
            source.resume()
        }
    }

    /// A second signal: the session is already stopping (its lookups cancelled); give it a
    /// moment to print its summary, then leave regardless. The executable's handler runs
    /// first (it clears the progress line so the shell gets a clean terminal either way).
    private func stopSoon() {
        forcedExitHandler.withLock { $0 }()
        DispatchQueue.global().asyncAfter(deadline: .now() + 1.0) { _exit(Self.exitStatus) }
    }

    /// Runs `handler` when a second signal is about to force the exit (this module prints nothing).
    public func beforeForcedExit(_ handler: @escaping @Sendable () -> Void) {
        forcedExitHandler.withLock { $0 = handler }
    }

    /// For a command with no session to finish: a signal (already received, or to come)
    /// ends the process with status 130.
    public func exitOnInterrupt() {
        exitsAtOnce.withLock { $0 = true }
        if isInterrupted { _exit(Self.exitStatus) }
    }

    /// The first signal received, if any.
    public var receivedSignal: Int32? { received.withLock { $0 } }
    public var isInterrupted: Bool { receivedSignal != nil }

    /// Runs `handler` (on a Dispatch queue) when the first signal arrives; at once if it already has.
    public func onInterrupt(_ handler: @escaping @Sendable () -> Void) {
        handlers.withLock { $0.append(handler) }
        if isInterrupted { handler() }
    }

    /// Puts the default actions back (for tests and for the end of a command).
    public func cancel() {
        for source in sources {
            source.cancel()
            signal(Int32(source.handle), SIG_DFL)
        }
    }
}
