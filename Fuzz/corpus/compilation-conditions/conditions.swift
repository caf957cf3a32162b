#if os(Linux) && arch(x86_64)
import Glibc
#elseif canImport(Darwin) || targetEnvironment(simulator)
import Darwin
#else
#if swift(>=5.9) && !DEBUG && FLAG
let x = 1
#endif
#endif
