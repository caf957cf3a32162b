import Dispatch
import Foundation
import PipelineCore

/// Ctrl-C and SIGTERM end every process group pipeline started (SIGTERM, then SIGKILL after half a
/// second) and exit with status 130, so no test process outlives pipeline.
public enum Interrupts {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    public static func install() {
        guard sources.isEmpty else { return }
        for signalNumber in [SIGINT, SIGTERM] {
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
            sources.append(source)
        }
    }
}
