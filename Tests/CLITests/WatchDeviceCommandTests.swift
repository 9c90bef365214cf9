import Foundation
import TestSupport
import Testing

/// `rapidscan watch --device` through the binary on real paths that are no camera (these
/// machines have none): each refusal names the path and what is wrong with it, exits 1 (input
/// that could not be used) and starts no watch. Frames from a camera are tested through the
/// frame-source seam with recorded frames (PipelineTests/DeviceFrameSourceTests).
@Suite struct WatchDeviceCommandTests {
    @Test func refusesPathsThatAreNoCaptureDevice() async throws {
        let harness = try CLIHarness()
        let null = try await harness.run(["watch", "--device", "/dev/null"])
        #expect(null.status == 1, "\(null.stderr)")
        #expect(null.stderr.hasPrefix("rapidscan: /dev/null: not a video capture device"), "\(null.stderr)")
        #expect(!null.stderr.contains("libv4l2"), "the device is asked before zbar: no library noise")

        let missing = harness.directory.appendingPathComponent("video9").path
        let absent = try await harness.run(["watch", "--device", missing])
        #expect(absent.status == 1, "\(absent.stderr)")
        #expect(absent.stderr.contains("rapidscan: \(missing): no such video device"), "\(absent.stderr)")

        let folder = try await harness.run(["watch", "--device", harness.directory.path])
        #expect(folder.status == 1, "\(folder.stderr)")
        #expect(folder.stderr.contains("\(harness.directory.path): not a video capture device (a directory)"), "\(folder.stderr)")
        #expect(!folder.stderr.contains("Watching"), "no watch starts")
    }

    @Test func frameFileOptionsAreRefusedWithADevice() async throws {
        let harness = try CLIHarness()
        let consume = try await harness.run(["watch", "--device", "/dev/null", "--consume"])
        #expect(consume.status == 64)
        #expect(consume.stderr.contains("--consume applies to frame files, not to --device"), "\(consume.stderr)")
        let both = try await harness.run(["watch", "--device", "/dev/null", harness.directory.path])
        #expect(both.status == 64)
        #expect(both.stderr.contains("not both"), "\(both.stderr)")
        let neither = try await harness.run(["watch"])
        #expect(neither.status == 64)
        #expect(neither.stderr.contains("--device"), "\(neither.stderr)")
    }

    /// Frames written at 10 a second pile up unless the recipe consumes them.
    @Test func helpRecipesConsumeTheFrames() async throws {
        let harness = try CLIHarness()
        let help = try await harness.run(["watch", "--help"])
        let lines = help.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let ffmpeg = try #require(lines.firstIndex { $0.hasPrefix("ffmpeg -f v4l2") }, "\(help.stdout)")
        let watch = try #require(lines[ffmpeg...].first { $0.contains("rapidscan watch") })
        #expect(watch.contains("--consume"), "\(watch)")
        #expect(help.stdout.contains("--device"))
    }
}
