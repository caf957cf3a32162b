import TestCore

/// What a run of the request would do, read without building or running anything (a pipeline's
/// dry run): notes on the selection, the snapshot switches and the timings' place, and the shards
/// planned from the recorded durations (none when there are none yet).
public struct TestPreview: Sendable {
    public var notes: [String] = []
    public var shards: [Shard] = []
}

extension TestFlow {
    public func preview() async throws -> TestPreview {
        let selection = request.selection == .affected ? try await affectedSelection() : nil
        var options = request.runOptions()
        options.filters += selection?.filters ?? []
        let place = try timingsPlace()
        let timings = try await place.plannedTimings.load()
        let tests = timings.tests.keys.sorted().map { TestID($0, framework: .xctest) }
        let selected = (try? options.select(tests)) ?? []
        var preview = TestPreview(notes: selection?.reasons ?? [])
        let snapshots = snapshotCheck()
        preview.notes.append(
            "snapshots: \(snapshots.switchSetting)"
                + (snapshots.writesFail ? " (CI: a missing reference fails, a written one too)" : "")
                + "; failed snapshots go to \(snapshots.artifacts.path) and are reviewed in \(snapshots.page.path)")
        preview.notes.append("timings: read from \(place) to plan, and updated there after the run")
        if selection?.filters?.isEmpty == true {
            preview.notes.append("the stage would be skipped")
        } else if selected.isEmpty {
            preview.notes.append(
                "no recorded durations in \(place) yet: the shards are planned when the tests are listed")
        } else {
            preview.shards = ShardPlanner(timings: timings).plan(selected, shards: options.shards)
        }
        return preview
    }
}
