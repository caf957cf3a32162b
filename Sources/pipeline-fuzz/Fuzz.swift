import Foundation
import FuzzTargets

#if FUZZING
    /// The target libFuzzer drives: `PIPELINE_FUZZ_TARGET` names it (scripts/fuzz.sh).
    fileprivate let target: FuzzTargets.Target = {
        let name = ProcessInfo.processInfo.environment["PIPELINE_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTargets.named(name) else {
            FileHandle.standardError.write(
                Data(
                    "PIPELINE_FUZZ_TARGET must be one of: \(FuzzTargets.all.map(\.name).joined(separator: ", "))\n".utf8
                ))
            exit(2)
        }
        return target
    }()

    @_silgen_name("LLVMFuzzerRunDriver")
    fileprivate func runDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    /// One input, as libFuzzer calls it.
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOne(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
        target(bytes.map { Data(bytes: $0, count: count) } ?? Data())
        return 0
    }

    /// The executable's entry point as SwiftPM names it (`main` is defined as it): libFuzzer's
    /// driver, with the command line, calling the target on each input.
    @_cdecl("pipeline_fuzz_main")
    public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
        var count = argc
        var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
        return runDriver(&count, &arguments) { bytes, size in fuzzOne(bytes, size) }
    }
#else
    /// Without libFuzzer: replays files through a target, `pipeline-fuzz TARGET FILE…` (a crash's
    /// input, to see it again in a debugger).
    @main
    struct Replay {
        static func main() {
            let arguments = CommandLine.arguments.dropFirst()
            guard let name = arguments.first, let target = FuzzTargets.named(name) else {
                print(
                    "usage: pipeline-fuzz TARGET FILE…; targets: \(FuzzTargets.all.map(\.name).joined(separator: ", "))"
                )
                exit(2)
            }
            for file in arguments.dropFirst() {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                target(data)
                print("\(file): ok")
            }
        }
    }
#endif
