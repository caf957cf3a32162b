/// `count` and `noun`, the noun plural unless the count is one: "1 test", "3 tests", "2 batches"
/// (`plural` when adding an "s" is not the plural).
public func counted(_ count: Int, _ noun: String, plural: String? = nil) -> String {
    "\(count) \(count == 1 ? noun : plural ?? noun + "s")"
}
