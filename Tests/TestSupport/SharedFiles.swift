import Foundation

/// Locates the project root and the `../shared` folder beside it (fixtures, real photos).
public enum SharedFiles {
    /// The package root (the folder holding Package.swift).
    public static let projectRoot: URL = {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // TestSupport
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // root
    }()

    /// `../shared` relative to the project root, or nil in a clone without it.
    public static let sharedRoot: URL? = {
        let url = projectRoot.appendingPathComponent("../shared").standardizedFileURL
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }()

    /// Message printed by tests that skip because `../shared` is absent.
    public static let missingMessage =
        "../shared is not beside this clone: tests that read shared fixtures and photos are skipped"

    public static func fixture(_ relative: String) -> URL? {
        sharedRoot?.appendingPathComponent("fixtures").appendingPathComponent(relative)
    }

    public static func image(_ relative: String) -> URL? {
        sharedRoot?.appendingPathComponent("images").appendingPathComponent(relative)
    }

    public static let sampleImages = projectRoot.appendingPathComponent("SampleImages")
}
