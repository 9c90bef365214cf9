import BookCodes
import Foundation
import Synchronization

/// A lookup started ahead of time, shared by every frame that asked for the same ISBN.
final class PendingLookupTask: Sendable {
    let task: Task<SessionPipeline.Answer, Never>
    /// The symbology of the code that started it (the intake's origin).
    let symbology: Symbology
    private let done: Flag

    init(symbology: Symbology, cancellation: LookupCancellation, _ body: @escaping @Sendable () async -> SessionPipeline.Answer) {
        self.symbology = symbology
        let done = Flag()
        self.done = done
        task = Task {
            let answer = await body()
            done.set()
            return answer
        }
        cancellation.register(task)
    }

    var isDone: Bool { done.isSet }
}

/// A one-way flag shared with a task.
final class Flag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// Ctrl-C during a session: the lookups in flight are cancelled (the HTTP transport aborts
/// within ~0.1 s) and their books are queued like any unanswered lookup, so a run ends at
/// once instead of waiting out time-outs and retries; later lookups start cancelled.
public final class LookupCancellation: Sendable {
    private struct State {
        var cancelled = false
        var tasks: [Task<SessionPipeline.Answer, Never>] = []
    }

    private let state = Mutex(State())

    public init() {}

    func register(_ task: Task<SessionPipeline.Answer, Never>) {
        let cancelled = state.withLock { state in
            state.tasks.removeAll { $0.isCancelled }
            state.tasks.append(task)
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    public func cancelAll() {
        let tasks = state.withLock { state in
            state.cancelled = true
            defer { state.tasks.removeAll() }
            return state.tasks
        }
        tasks.forEach { $0.cancel() }
    }
}
