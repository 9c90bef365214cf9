import Foundation
import Testing

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

    /// Ends the calling test as *skipped* (Swift Testing's `Test.cancel`) when `../shared`
    /// is missing, so a test that did not run is never counted as passed. Under CI (`CI`
    /// set) a missing `../shared` is a failure instead: CI must run every test.
    public static func requireShared() throws {
        guard sharedRoot == nil else { return }
        if let ci = ProcessInfo.processInfo.environment["CI"], !ci.isEmpty, ci != "0", ci != "false" {
            throw MissingUnderCI()
        }
        try Test.cancel(Comment(rawValue: missingMessage))
    }

    /// `images/relative`, or the test skipped as `requireShared` says.
    public static func requireImage(_ relative: String) throws -> URL {
        try requireShared()
        return image(relative)!
    }

    public struct MissingUnderCI: Error, CustomStringConvertible {
        public var description: String { "CI is set but ../shared is missing: every test must run under CI" }
    }

    public static func fixture(_ relative: String) -> URL? {
        sharedRoot?.appendingPathComponent("fixtures").appendingPathComponent(relative)
    }

    public static func image(_ relative: String) -> URL? {
        sharedRoot?.appendingPathComponent("images").appendingPathComponent(relative)
    }

    public static let sampleImages = projectRoot.appendingPathComponent("SampleImages")
}
