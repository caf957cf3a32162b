import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sends `signal` to the process group `group` leads; 0 when it was delivered.
@discardableResult
fileprivate func signalGroup(_ group: pid_t, _ signal: Int32) -> Int32 {
    kill(-group, signal)
}

/// How a child process ended.
public enum Termination: Equatable, Sendable, CustomStringConvertible {
    case exited(Int32)
    case signalled(Int32)

    public var description: String {
        switch self {
        case .exited(let code): "exit code \(code)"
        case .signalled(let signal): "signal \(signal) (\(Termination.signalName(signal)))"
        }
    }

    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGILL: "SIGILL"
        case SIGTRAP: "SIGTRAP"
        case SIGABRT: "SIGABRT"
        case SIGBUS: "SIGBUS"
        case SIGFPE: "SIGFPE"
        case SIGKILL: "SIGKILL"
        case SIGSEGV: "SIGSEGV"
        case SIGTERM: "SIGTERM"
        default: "signal \(signal)"
        }
    }

    /// Decodes a `waitpid` status (the W* macros are not visible to Swift).
    init(waitStatus status: Int32) {
        let signal = status & 0x7f
        self = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }
}

/// A process that could not be started.
public struct ProcessError: Error, Equatable, CustomStringConvertible {
    public let command: String
    public let reason: String

    public var description: String { "cannot start \(command): \(reason)" }
}

/// A process started in its own process group, with no standard input, its standard output
/// appended to one log file and its standard error to the same file or another. The group is what
/// gets killed on a timeout or an interrupt, so grandchildren go with it. Every process this tool
/// starts is one of these.
public final class ChildProcess: Sendable {
    public let pid: pid_t

    private init(pid: pid_t) {
        self.pid = pid
    }

    /// Starts `arguments[0]` (looked up in PATH when it has no slash); standard error goes to
    /// `errors`, or with the output to `log` when nil.
    public static func start(
        _ arguments: [String], variables: [String: String], log: URL, errors: URL? = nil
    ) async throws(ProcessError) -> ChildProcess {
        guard let program = arguments.first, !program.isEmpty else {
            throw ProcessError(command: "(nothing)", reason: "no program to run")
        }
        let launch = Launch(arguments: arguments, variables: variables, log: log, errors: errors)
        return ChildProcess(pid: try await ProcessGroups.shared.spawn(launch))
    }

    /// Waits for the process to end, polling so no thread blocks. `onPoll` runs between polls and may
    /// end it; cancellation of the waiting task kills the process group.
    public func wait(onPoll: () async -> Void = {}) async -> Termination {
        var delay: UInt64 = 2_000_000
        while true {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid || (result < 0 && errno != EINTR) {
                await ProcessGroups.shared.forget(pid)
                return result == pid ? Termination(waitStatus: status) : .exited(127)
            }
            if Task.isCancelled { kill() }
            await onPoll()
            try? await Task.sleep(nanoseconds: delay)
            delay = min(delay * 2, 10_000_000)
        }
    }

    /// Ends the whole process group at once: SIGKILL, as for a hung test, which gets no say.
    public func kill() {
        signalGroup(pid, SIGKILL)
    }

    /// Asks the whole process group to end (SIGTERM); the caller sends `kill()` if it has not
    /// after a grace period, as `run` does.
    public func terminate() {
        signalGroup(pid, SIGTERM)
    }
}

/// Every live process group this process started, so an interrupt can end them all.
public actor ProcessGroups {
    public static let shared = ProcessGroups()
    private var groups: Set<pid_t> = []

    private var stopping = false

    /// Whether an interrupt is ending every process: results gathered now are incomplete.
    public var isStopping: Bool { stopping }

    /// Starts a process and records its group in one step, so an interrupt cannot fall between
    /// the two; once stopping, nothing new starts.
    fileprivate func spawn(_ launch: Launch) throws(ProcessError) -> pid_t {
        guard !stopping else { throw ProcessError(command: launch.arguments[0], reason: "interrupted") }
        Interrupts.install()
        let pid = try launch.spawn()
        groups.insert(pid)
        return pid
    }

    func forget(_ pid: pid_t) { groups.remove(pid) }

    /// Sends SIGTERM to every group, then SIGKILL to any still alive after `grace`. From then on
    /// every new group is killed as it starts, so nothing outlives the caller's exit.
    public func terminateAll(grace: Duration = .milliseconds(500)) async {
        stopping = true
        for group in groups { signalGroup(group, SIGTERM) }
        let deadline = ContinuousClock.now + grace
        while ContinuousClock.now < deadline && groups.contains(where: { signalGroup($0, 0) == 0 }) {
            try? await Task.sleep(for: .milliseconds(20))
        }
        for group in groups { signalGroup(group, SIGKILL) }
    }
}

/// The posix_spawn call, kept apart from the process's lifetime.
fileprivate struct Launch {
    let arguments: [String]
    let variables: [String: String]
    let log: URL
    let errors: URL?

    func spawn() throws(ProcessError) -> pid_t {
        let descriptor = try appending(to: log)
        defer { close(descriptor) }
        let errorDescriptor = try errors.map(appending) ?? descriptor
        defer { if errorDescriptor != descriptor { close(errorDescriptor) } }

        #if canImport(Darwin)
            var actions: posix_spawn_file_actions_t? = nil
            var attributes: posix_spawnattr_t? = nil
        #else
            var actions = posix_spawn_file_actions_t()
            var attributes = posix_spawnattr_t()
        #endif
        try check(posix_spawn_file_actions_init(&actions), "posix_spawn_file_actions_init")
        defer { posix_spawn_file_actions_destroy(&actions) }
        try check(
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0), "posix_spawn_file_actions_addopen")
        try check(posix_spawn_file_actions_adddup2(&actions, descriptor, 1), "posix_spawn_file_actions_adddup2")
        try check(posix_spawn_file_actions_adddup2(&actions, errorDescriptor, 2), "posix_spawn_file_actions_adddup2")

        try check(posix_spawnattr_init(&attributes), "posix_spawnattr_init")
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGHUP] { sigaddset(&defaults, signal) }
        try check(posix_spawnattr_setsigdefault(&attributes, &defaults), "posix_spawnattr_setsigdefault")
        var noMask = sigset_t()
        sigemptyset(&noMask)
        try check(posix_spawnattr_setsigmask(&attributes, &noMask), "posix_spawnattr_setsigmask")
        try check(posix_spawnattr_setpgroup(&attributes, 0), "posix_spawnattr_setpgroup")
        try check(
            posix_spawnattr_setflags(
                &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)),
            "posix_spawnattr_setflags")

        let program = arguments[0].contains("/") ? arguments[0] : Launch.lookUp(arguments[0], in: variables["PATH"])
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        try check(posix_spawn(&pid, program, &actions, &attributes, argv, envp), nil)
        return pid
    }

    /// A file opened for appending, for the child's output.
    private func appending(to file: URL) throws(ProcessError) -> Int32 {
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw ProcessError(
                command: arguments[0], reason: "cannot write \(file.path): \(String(cString: strerror(errno)))")
        }
        return descriptor
    }

    /// The one checker of the spawn calls, which return an error number: `call` names a set-up
    /// call that failed (nil for the spawn itself, whose error says enough).
    private func check(_ result: Int32, _ call: String?) throws(ProcessError) {
        guard result == 0 else {
            let reason = String(cString: strerror(result))
            throw ProcessError(command: arguments[0], reason: call.map { "\($0): \(reason)" } ?? reason)
        }
    }

    static func lookUp(_ program: String, in path: String?) -> String {
        for folder in (path ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(folder)/\(program)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return program
    }
}
