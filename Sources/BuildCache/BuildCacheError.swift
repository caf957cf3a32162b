import ObjectStorage
import PipelineCore

/// Why the build cache could not do what it was asked. A test run goes on without the cache
/// (saying why); `pipeline test --build-only`, whose job is to keep the build, fails with it.
public enum BuildCacheError: Error, Equatable, ExitCoded {
    case toolchain(reason: String)
    case store(StoreError)
    case archive(command: String, output: String)
    /// An entry or a run's products that cannot be used, and why.
    case unusable(String)
    case io(path: String, reason: String)

    public var description: String {
        switch self {
        case .toolchain(let reason): "the toolchain could not be asked its version: \(reason)"
        case .store(let error): "the build cache's store: \(error)"
        case .archive(let command, let output):
            "\(command) failed: \(output.split(separator: "\n").suffix(3).joined(separator: "; "))"
        case .unusable(let reason): reason
        case .io(let path, let reason): "\(path): \(reason)"
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .toolchain, .archive: .build
        case .store, .unusable, .io: .storage
        }
    }
}
