import Foundation

/// Replies kept in this repository (`Tests/Recordings/`), for sources `../shared` has none of.
public enum Recordings {
    public static let root = SharedFiles.projectRoot.appendingPathComponent("Tests/Recordings")

    /// `Tests/Recordings/<relativePath>` as a response (see `FixtureResponse.file`).
    public static func response(_ relativePath: String, status: Int = 200) throws -> FixtureResponse {
        try FixtureResponse.file(root.appendingPathComponent(relativePath), status: status,
                                 headers: relativePath.hasSuffix(".xml") ? ["Content-Type": "text/xml; charset=utf-8"] : [:])
    }
}
