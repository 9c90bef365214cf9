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
    /// `RAPIDSCAN_TEST_SHARED` points elsewhere (a missing folder shows what a clone without it reports).
    public static let sharedRoot: URL? = {
        let url = ProcessInfo.processInfo.environment["RAPIDSCAN_TEST_SHARED"].map { URL(fileURLWithPath: $0) }
            ?? projectRoot.appendingPathComponent("../shared").standardizedFileURL
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }()

    /// Message printed by tests that skip because `../shared` is absent.
    public static let missingMessage =
        "../shared is not beside this clone: tests that read shared fixtures and photos are skipped"

    /// For `@Test(.enabled(if: SharedFiles.available, SharedFiles.skipped))`: without
    /// `../shared` the test is reported *skipped*; under CI it runs, and `requireShared` fails it.
    public static var available: Bool { sharedRoot != nil || runningUnderCI }
    public static let skipped = Comment(rawValue: missingMessage)

    static var runningUnderCI: Bool {
        ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty && $0 != "0" && $0 != "false" } ?? false
    }

    /// Ends the calling test as *skipped* (Swift Testing's `Test.cancel`) when `../shared`
    /// is missing, so a test that did not run is never counted as passed. Under CI (`CI`
    /// set) a missing `../shared` is a failure instead: CI must run every test.
    public static func requireShared() throws {
        guard sharedRoot == nil else { return }
        if runningUnderCI { throw MissingUnderCI() }
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
