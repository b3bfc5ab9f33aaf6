import Dispatch
import Foundation
import Synchronization

/// Turns Ctrl-C (SIGINT) and SIGTERM into a call to `onInterrupt` while installed, instead
/// of killing the process: a render can then cancel its export, which removes the partial
/// output, and exit cleanly. A command run in process (``ReelCLI/run(_:in:)``) leaves the
/// process's signals alone: the handler installs nothing there.
final class InterruptHandler: @unchecked Sendable {
    // @unchecked: `sources` is set once in init and only cancelled afterwards; dispatch
    // sources are thread-safe.
    private let sources: [any DispatchSourceSignal]
    private let fired = Atomic<Bool>(false)

    init(onInterrupt: @escaping @Sendable () -> Void) {
        var list: [any DispatchSourceSignal] = []
        let signals = CommandEnvironment.current.handlesSignals ? [SIGINT, SIGTERM] : []
        for sig in signals {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            list.append(source)
        }
        sources = list
        for source in sources {
            source.setEventHandler { [weak self] in
                self?.fired.store(true, ordering: .relaxed)
                onInterrupt()
            }
            source.resume()
        }
    }

    /// Whether a signal arrived.
    var wasInterrupted: Bool { fired.load(ordering: .relaxed) }

    /// Restores the default signal handling.
    func remove() {
        guard !sources.isEmpty else { return }
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
