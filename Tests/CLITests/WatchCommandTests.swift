import Foundation
import TestSupport
import Testing

/// `rapidscan watch` end to end: frames written into a watched directory (one slowly, in
/// two halves) become events; SIGINT stops it with a summary.
@Suite(.serialized) struct WatchCommandTests {
    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func processesFramesAsTheyLandAndStopsOnSIGINT() async throws {
        try SharedFiles.requireShared()
        let harness = try CLIHarness()
        try await harness.startServer()
        defer { Task { await harness.server.stop() } }
        let frames = harness.directory.appendingPathComponent("frames")
        let done = harness.directory.appendingPathComponent("done")
        for folder in [frames, done] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        // Already there before the watch starts: left alone.
        try harness.addPhoto("isbn-9781761186769-aud.png", to: frames, as: "old.png", modified: Date())

        // A long window, so the repeat below is inside it however slowly this machine runs.
        let watch = try await harness.start(["watch", "--json", "--debounce", "60s", "--move-to", done.path, frames.path])
        try await watch.waitFor("the watch to be armed") { $0.stderr.contains("Watching") }

        // A frame renamed into place, as `ffmpeg -atomic_writing 1` does.
        let staged = harness.directory.appendingPathComponent("staged.png")
        try FileManager.default.copyItem(at: SharedFiles.sampleImages.appendingPathComponent("isbn-9781250313188-usd.png"), to: staged)
        try FileManager.default.moveItem(at: staged, to: frames.appendingPathComponent("000001.png"))
        try await watch.waitFor("the first book") { $0.stdout.contains(#""event":"added""#) }

        // A frame written in two halves with a pause: must not be read before it is closed.
        let bytes = try Data(contentsOf: SharedFiles.sampleImages.appendingPathComponent("isbn-9780990582939-noprice.png"))
        let slowURL = frames.appendingPathComponent("000002.png")
        let handle = try #require(FileHandle(forWritingAtPath: createEmpty(slowURL)))
        try handle.write(contentsOf: bytes.prefix(bytes.count / 2))
        try await Task.sleep(for: .milliseconds(400))
        #expect(!watch.stdout.contains("000002.png"), "a half-written frame was read")
        try handle.write(contentsOf: bytes.dropFirst(bytes.count / 2))
        try handle.close()
        try await watch.waitFor("the slow frame") { $0.stdout.contains("000002.png") }

        // The same book again: a repeat inside the window.
        try FileManager.default.copyItem(at: SharedFiles.sampleImages.appendingPathComponent("isbn-9781250313188-usd.png"),
                                         to: frames.appendingPathComponent("000003.png"))
        try await watch.waitFor("the repeat") { $0.stdout.contains(#""event":"debounced""#) }

        watch.signal(SIGINT)
        let result = await watch.finish()
        #expect(result.status == 0, "Ctrl-C is how a watch ends: \(result.stderr)")
        let byFile = Dictionary(grouping: result.events) { ($0["file"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent } ?? "" }
        #expect(byFile["000001.png"]?.first?["event"] as? String == "added")
        #expect(byFile["000002.png"]?.map { $0["event"] as? String } == ["added"], "read once, complete")
        #expect(byFile["000003.png"]?.first?["isbn13"] as? String == "9781250313188")
        #expect(byFile["old.png"] == nil)
        #expect(result.summary?["added"] as? Int == 2)
        #expect(result.summary?["interrupted"] as? Bool == false, "a watch ended by Ctrl-C is a whole run")
        // --move-to: processed frames moved out; the old one stays.
        let moved = try FileManager.default.contentsOfDirectory(atPath: done.path).sorted()
        #expect(moved == ["000001.png", "000002.png", "000003.png"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: frames.path) == ["old.png"])
        #expect(try await harness.ownedCount() == 2)
    }

    @Test func idleExitEndsAnUnattendedWatch() async throws {
        let harness = try CLIHarness()
        let frames = harness.directory.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        let result = try await harness.run(["watch", "--json", "--offline", "--consume", "--idle-exit", "0.5", frames.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.summary?["frames"] as? Int == 0)
        #expect(result.summary?["interrupted"] as? Bool == false)
    }

    /// --consume deletes a frame only once its book is safe in the database (here: queued,
    /// offline); an unreadable frame and one whose code found no book stay for the user.
    @Test func consumeKeepsFramesWhoseOutcomeIsNotSettled() async throws {
        let harness = try CLIHarness()
        let frames = harness.directory.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        let watch = try await harness.start(["watch", "--json", "--offline", "--consume", "--idle-exit", "3", frames.path])
        try await watch.waitFor("the watch to be armed") { $0.stderr.contains("Watching") }
        try FileManager.default.copyItem(at: SharedFiles.sampleImages.appendingPathComponent("isbn-9781250313188-usd.png"),
                                         to: frames.appendingPathComponent("000001.png"))
        try await watch.waitFor("the queued book") { $0.stdout.contains(#""event":"queued""#) }
        try Data("not a picture at all".utf8).write(to: frames.appendingPathComponent("000002.png"))
        try await watch.waitFor("the unreadable frame") { $0.stdout.contains("000002.png") }
        let result = await watch.finish()
        #expect(result.status == 1 || result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("kept"), "\(result.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: frames.path).sorted()
        #expect(left == ["000002.png"], "the queued frame goes, the unreadable one stays: \(left)")
    }

    @Test func refusesAMissingDirectory() async throws {
        let harness = try CLIHarness()
        let result = try await harness.run(["watch", harness.directory.appendingPathComponent("nope").path])
        #expect(result.status == 64)
        // A missing path and a file are different mistakes, told apart (issue 8).
        #expect(result.stderr.contains("nope: does not exist"))
        #expect(!result.stderr.contains("not a directory"))
        let file = harness.directory.appendingPathComponent("a-file.png")
        try Data("x".utf8).write(to: file)
        let notDirectory = try await harness.run(["watch", file.path])
        #expect(notDirectory.status == 64)
        #expect(notDirectory.stderr.contains("a-file.png: not a directory"))
        #expect(notDirectory.stderr.hasPrefix("rapidscan: "))
    }
}

/// Creates an empty file (opened read-only, so no close-write event) and returns its path.
func createEmpty(_ url: URL) -> String {
    close(open(url.path, O_CREAT | O_RDONLY, 0o644))
    return url.path
}
