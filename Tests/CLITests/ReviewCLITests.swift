import Foundation
import Imaging
import Synchronization
import TestSupport
import Testing

/// `rapidscan review` (issue 35): the numbers a person types, through the real binary.
@Suite(.serialized) struct ReviewCLITests {
    /// A library whose vision model reads one medium spine per photo (The Fifth Element).
    static func harness() async throws -> CLIHarness {
        let library = IntakeDoorsCLITests.Library()
        let harness = try await IntakeDoorsCLITests.harness(library)
        let fifth = try FixtureResponse.fixture("googlebooks/volumes_search_intitle_the_fifth_element_10_items.json")
        library.search.withLock { $0 = fifth }
        harness.server.route(SpinesCommandTests.chat, method: "POST") { _ in
            (try? IntakeShelfDoorsCLITests.chat(IntakeShelfDoorsCLITests.medium)) ?? FixtureResponse(status: 500)
        }
        harness.extraEnvironment["RAPIDSCAN_VISION_PROVIDER"] = "openai"
        harness.extraEnvironment["RAPIDSCAN_VISION_URL"] = harness.server.baseURL.appendingPathComponent("v1").absoluteString
        harness.extraEnvironment["RAPIDSCAN_VISION_MODEL"] = "shelf-test-model"
        return harness
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func acceptingOneAndThreeDoesNotRenumberTheRest() async throws {
        try SharedFiles.requireShared()
        let harness = try await Self.harness()
        defer { Task { await harness.server.stop() } }
        for name in ["left", "middle", "right"] {
            let kept = try await harness.run("spines", "--json", try IntakeShelfDoorsCLITests.photo(harness, name))
            #expect(kept.status == 6, "\(kept.stdout)\(kept.stderr)")
        }
        let listed = try await harness.run("review", "--json")
        #expect(listed.status == 6)
        let numbers = listed.jsonLines.compactMap { $0["number"] as? Int }
        let files = listed.jsonLines.compactMap { ($0["file"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent } }
        #expect(numbers.count == 3 && Set(numbers).count == 3, "\(listed.stdout)")
        #expect(files == ["left.jpg", "middle.jpg", "right.jpg"], "\(listed.stdout)")
        let human = try await harness.run("review")
        #expect(human.stdoutLines.map { $0.prefix(while: { $0 != "." }) } == numbers.map { Substring(String($0)) }, "\(human.stdout)")

        // Accept the first and the third: the middle one keeps its number.
        let accepted = try await harness.run("review", "--accept", "\(numbers[0]),\(numbers[2])", "--json")
        #expect(accepted.status == 6, "one still waits: \(accepted.stderr)")
        #expect(accepted.jsonLines.compactMap { $0["number"] as? Int } == [numbers[0], numbers[2]], "\(accepted.stdout)")
        let kinds = Set(accepted.jsonLines.compactMap { $0["event"] as? String })
        #expect(kinds.isSubset(of: ["added", "alreadyOwned"]) && accepted.jsonLines.count == 2, "\(accepted.stdout)")
        // Each book owned once, whichever entries named it.
        let books = Set(accepted.jsonLines.compactMap { $0["isbn13"] as? String })
        #expect(try await harness.ownedCount() == books.count, "\(accepted.stdout)")
        let left = try await harness.run("review", "--json")
        #expect(left.jsonLines.compactMap { $0["number"] as? Int } == [numbers[1]], "\(left.stdout)")
        #expect((left.jsonLines.first?["file"] as? String)?.hasSuffix("middle.jpg") == true)

        // A settled entry's number names nothing now, and says which still wait.
        let again = try await harness.run("review", "--accept", "\(numbers[0])")
        #expect(again.status == 1)
        #expect(again.stderr.contains("no entry \(numbers[0]) waits for review (waiting: \(numbers[1]))"), "\(again.stderr)")
        #expect(try await harness.run("review", "--reject", "\(numbers[1])").status == 0)
        #expect(try await harness.run("review").status == 0)
    }

    /// Debian's chromium (scripts/setup), or nil where it is not installed.
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Chromium headless on a local file, with every host name unresolvable (the page must
    /// need nothing from the network; a cover URL then simply does not load).
    static func chromium(_ arguments: [String], profile: URL) async throws -> CommandResult {
        let binary = try #require(chromium, "chromium is not installed: scripts/setup installs it")
        return try await runProcess(URL(fileURLWithPath: binary), [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
            "--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir=\(profile.path)",
        ] + arguments)
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func thePageShowsEachWaitingSpineWithItsCommandsInARealBrowser() async throws {
        try SharedFiles.requireShared()
        let harness = try await Self.harness()
        defer { Task { await harness.server.stop() } }
        for name in ["hall", "study"] {
            #expect(try await harness.run("spines", try IntakeShelfDoorsCLITests.photo(harness, name)).status == 6)
        }
        let numbers = try await harness.run("review", "--json").jsonLines.compactMap { $0["number"] as? Int }
        #expect(numbers.count == 2)
        // The page is for whoever opens it later: its commands name this library.
        let page = harness.directory.appendingPathComponent("review.html")
        let db = harness.database.path
        let written = try await harness.run("review", "--db", db, "--html", page.path)
        #expect(written.status == 6, "\(written.stderr)")
        #expect(written.stderr.contains("2 matches wait for review: \(page.path)"), "\(written.stderr)")
        let html = try String(contentsOf: page, encoding: .utf8)
        #expect(html.components(separatedBy: "src=\"data:image/jpeg;base64,").count == 3, "each spine's photo inline")
        #expect(!html.contains("src=\"file:") && !html.contains("src=\"/"), "nothing beside the page")

        let profile = harness.directory.appendingPathComponent("chromium-profile")
        let dom = try await Self.chromium(["--dump-dom", page.absoluteString], profile: profile)
        #expect(dom.status == 0, "\(dom.stderr)")
        for number in numbers {
            for flag in ["--accept", "--reject"] {
                let command = "rapidscan review --db \(db) \(flag) \(number)"
                #expect(dom.stdout.contains(command), "\(command) in the page's DOM")
            }
        }
        #expect(dom.stdout.components(separatedBy: "THE FIFTH ELEMENT").count == 3, "each reading")
        #expect(dom.stdout.contains("The Fifth Element") && dom.stdout.contains("Terry Bisson"))

        let shot = harness.directory.appendingPathComponent("review.png")
        let screenshot = try await Self.chromium(["--screenshot=\(shot.path)", "--window-size=1200,1600", page.absoluteString], profile: profile)
        #expect(screenshot.status == 0, "\(screenshot.stderr)")
        let image = try ImageLoader.load(contentsOf: shot).image
        #expect(image.width == 1200 && image.height == 1600)
        // Not one colour: the photos, the text and the boxes are drawn.
        let levels = Set(image.pixels)
        #expect(levels.count > 64, "\(levels.count) grey levels")

        // The commands work as printed.
        let accept = try await harness.run("review", "--db", db, "--accept", String(numbers[0]))
        #expect(accept.status == 6, "\(accept.stderr)")
        #expect(try await harness.run("review", "--reject", String(numbers[1])).status == 0)
    }
}
