import Dispatch
import Foundation
import PipelineCore

/// Ctrl-C and SIGTERM end every process group pipeline started (SIGTERM, then SIGKILL after half a
/// second) and exit with status 130, so no test process outlives pipeline. Installed by the first
/// process started (`ProcessGroups`), once.
enum Interrupts {
    /// The handlers, made once (a static's lazy initialisation runs once, whichever task asks first).
    nonisolated(unsafe) private static let sources: [DispatchSourceSignal] = [SIGINT, SIGTERM].map { signalNumber in
        signal(signalNumber, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
        source.setEventHandler {
            Task {
                FileHandle.standardError.write(Data("\ninterrupted: stopping every test process\n".utf8))
                await ProcessGroups.shared.terminateAll()
                exit(ExitStatus.interrupted.rawValue)
            }
        }
        source.resume()
        return source
    }

    static func install() { _ = sources }
}
