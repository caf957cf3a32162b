import CIndexStore
import ChildProcesses
import Foundation

/// Why the index store could not be read. Each reads as one line.
public enum SymbolIndexError: Error, Equatable, CustomStringConvertible {
    case noLibrary(String)
    case unreadable(store: String, reason: String)

    public var description: String {
        switch self {
        case .noLibrary(let why): why
        case .unreadable(let store, let reason): "\(store): \(reason)"
        }
    }
}

/// Reads the index store of a package's build (`<bin>/index/store`) through the toolchain's
/// libIndexStore, once: the package's own files' occurrences into a `SymbolIndex`.
public enum IndexStoreReader {
    /// The toolchain's libIndexStore: beside the `swift` first on PATH (`usr/bin/swift` →
    /// `usr/lib/libIndexStore.so`, `.dylib` on macOS).
    public static func library(variables: [String: String]) -> URL? {
        let name: String
        #if os(macOS)
            name = "libIndexStore.dylib"
        #else
            name = "libIndexStore.so"
        #endif
        for folder in Toolchain(variables: variables).folders {
            let candidate = folder.deletingLastPathComponent().appendingPathComponent("lib").appendingPathComponent(
                name)
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// The index store of the build whose products are in `bin`: the native build system's
    /// `<bin>/index/store` (`.build/<triple>/debug`), or Swift Build's, whose store is its output
    /// folder two levels up (`.build/out/v5` beside `.build/out/Products/Debug-linux`).
    public static func store(bin: URL) -> URL {
        let native = bin.appendingPathComponent("index/store")
        let swiftBuild = bin.deletingLastPathComponent().deletingLastPathComponent()
        let hasStore = { (folder: URL) in
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("v5/units").path)
        }
        return !hasStore(native) && hasStore(swiftBuild) ? swiftBuild : native
    }

    /// The package's declarations and their uses, from the store at `store`; only files below
    /// `package` (not its `.build`) that exist count.
    public static func read(store: URL, library: URL, package: URL) throws(SymbolIndexError) -> SymbolIndex {
        guard FileManager.default.fileExists(atPath: store.appendingPathComponent("v5").path) else {
            throw .unreadable(store: store.path, reason: "no index store (the build wrote none: not a debug build?)")
        }
        let walk = Walk(package: package.resolvingSymlinksInPath().standardizedFileURL.path)
        var error = [CChar](repeating: 0, count: 512)
        let context = Unmanaged.passUnretained(walk).toOpaque()
        // The callbacks reach `walk` through an unretained pointer: it is kept alive for the whole read.
        let status = withExtendedLifetime(walk) {
            pipeline_index_read(
                library.path, store.path, context,
                { context, path in
                    Unmanaged<Walk>.fromOpaque(context!).takeUnretainedValue().accepts(path)
                },
                { context, path, occurrence in
                    Unmanaged<Walk>.fromOpaque(context!).takeUnretainedValue().add(path, occurrence!.pointee)
                }, &error, error.count)
        }
        guard status == 0 else {
            throw .unreadable(
                store: store.path,
                reason: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return walk.index()
    }

    /// The symbol roles and relation roles the index writes (indexstore.h).
    enum Role {
        static let declaration: UInt64 = 1 << 0
        static let definition: UInt64 = 1 << 1
        static let reference: UInt64 = 1 << 2
        static let read: UInt64 = 1 << 3
        static let write: UInt64 = 1 << 4
        static let call: UInt64 = 1 << 5
        static let implicit: UInt64 = 1 << 8
        static let childOf: UInt64 = 1 << 9
        static let overrideOf: UInt64 = 1 << 11
        static let accessorOf: UInt64 = 1 << 15
    }

    /// The symbol kinds told apart (indexstore.h).
    enum Kind {
        static let macro: UInt32 = 4
        static let parameter: UInt32 = 25
    }

    /// The occurrences as they come, gathered per declaration.
    final class Walk {
        let package: String
        var files: [String] = []
        var fileIndex: [String: Int] = [:]
        var current: Int?
        var declarations: [String: SymbolIndex.Declaration] = [:]
        /// Every (USR, file, line) referring to something; kept to those declared in the package at the end.
        var references: [String: [Int]] = [:]
        var overriders: [String: [String]] = [:]
        var accessors: [String: [String]] = [:]
        var members: [String: [String]] = [:]
        /// USR → name, of everything referred to.
        var referred: [String: String] = [:]
        var unseen: [String: String] = [:]

        init(package: String) { self.package = package }

        func accepts(_ path: pipeline_index_string) -> Bool {
            let text = Self.string(path)
            guard text.hasPrefix(package + "/") else { return false }
            let relative = String(text.dropFirst(package.count + 1))
            guard !relative.hasPrefix(".build/"), FileManager.default.fileExists(atPath: text) else { return false }
            if fileIndex[relative] == nil {
                fileIndex[relative] = files.count
                files.append(relative)
            }
            current = fileIndex[relative]
            return true
        }

        func add(_ path: pipeline_index_string, _ occurrence: pipeline_index_occurrence) {
            guard let file = current else { return }
            let usr = Self.string(occurrence.usr)
            let name = Self.string(occurrence.name)
            let line = Int(occurrence.line)
            let roles = occurrence.roles
            // A parameter is declared with its function and used only inside it.
            guard occurrence.kind != Kind.parameter else { return }
            if occurrence.kind == Kind.macro, roles & Role.reference != 0, unseen[files[file]] == nil {
                unseen[files[file]] = "line \(line) expands the macro \(name), whose expansion the index does not show"
            }
            let relations = UnsafeBufferPointer(start: occurrence.relations, count: occurrence.relation_count)
            if roles & (Role.definition | Role.declaration) != 0 {
                if declarations[usr] == nil {
                    declarations[usr] = SymbolIndex.Declaration(name: name, file: file, line: line)
                }
                for relation in relations {
                    let related = Self.string(relation.usr)
                    if relation.roles & Role.overrideOf != 0 { overriders[related, default: []].append(usr) }
                    if relation.roles & Role.accessorOf != 0 { accessors[related, default: []].append(usr) }
                    if relation.roles & Role.childOf != 0 { members[related, default: []].append(usr) }
                }
            } else if roles & (Role.reference | Role.call | Role.read | Role.write) != 0 {
                references[usr, default: []] += [file, line]
                referred[usr] = name
            }
        }

        func index() -> SymbolIndex {
            for (usr, flat) in references where declarations[usr] != nil {
                var pairs: Set<[Int]> = []
                var kept: [Int] = []
                for at in stride(from: 0, to: flat.count - 1, by: 2)
                where pairs.insert([flat[at], flat[at + 1]]).inserted {
                    kept += [flat[at], flat[at + 1]]
                }
                declarations[usr]?.references = kept
            }
            for (usr, list) in overriders where declarations[usr] != nil {
                declarations[usr]?.overriddenBy = Array(Set(list)).sorted()
            }
            for (usr, list) in accessors where declarations[usr] != nil {
                declarations[usr]?.accessors = Array(Set(list)).sorted()
            }
            for (usr, list) in members where declarations[usr] != nil {
                declarations[usr]?.members = Array(Set(list)).sorted()
            }
            // An XCTest method (`testX()`) nothing refers to is left out: a change to it is judged by
            // its name, which finds nothing else either, and a suite of 10,000 tests keeps its map small.
            declarations = declarations.filter { _, declaration in
                !(declaration.name.hasPrefix("test") && declaration.name.hasSuffix("()"))
                    || declaration.references != nil
            }
            let external = Set(referred.filter { declarations[$0.key] == nil }.values.map(SymbolIndex.baseName))
            return SymbolIndex(
                files: files, declarations: declarations, externalNames: external.filter { !$0.isEmpty }.sorted(),
                unseen: unseen.isEmpty ? nil : unseen)
        }

        static func string(_ text: pipeline_index_string) -> String {
            guard let data = text.data, text.length > 0 else { return "" }
            return data.withMemoryRebound(to: UInt8.self, capacity: text.length) {
                String(decoding: UnsafeBufferPointer(start: $0, count: text.length), as: UTF8.self)
            }
        }
    }
}
