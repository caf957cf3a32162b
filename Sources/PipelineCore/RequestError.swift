/// A request that cannot be carried out as asked (a usage error): one line saying what to change.
public struct RequestError: Error, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
