import Foundation
import Imaging
import Synchronization
import TestSupport
import Testing

/// `rapidscan review` (issue 35): the numbers a person types, through the real binary.
@Suite(.serialized) struct ReviewCLITests {
    /// What the model answers (the medium reading, unless a test changes it).
    final class Answer: Sendable {
        let text = Mutex(IntakeShelfDoorsCLITests.medium)
    }

    /// The medium reading with its box: a spine printed top to bottom, in fractions of the image.
    static let mediumWithBox = #"{"spines": [{"text": "THE FIFTH ELEMENT", "title": "The Fifth Element", "author": null, "series": null, "volume": null, "position": 0, "confidence": 0.7, "unreadable": false, "box": [[0.42, 0.1], [0.42, 0.8], [0.40, 0.8], [0.40, 0.1]]}]}"#

    /// A library whose vision model reads one medium spine per photo (The Fifth Element).
    static func harness(_ answer: Answer = Answer()) async throws -> CLIHarness {
        let library = IntakeDoorsCLITests.Library()
        let harness = try await IntakeDoorsCLITests.harness(library)
        let fifth = try FixtureResponse.fixture("googlebooks/volumes_search_intitle_the_fifth_element_10_items.json")
        library.search.withLock { $0 = fifth }
        harness.server.route(SpinesCommandTests.chat, method: "POST") { _ in
            (try? IntakeShelfDoorsCLITests.chat(answer.text.withLock { $0 })) ?? FixtureResponse(status: 500)
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
        // Required, not expected: the numbers are indexed below (a stand-in that timed out would crash the run).
        try #require(numbers.count == 3 && Set(numbers).count == 3, "\(listed.stdout)")
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

    /// The spines cut out on a page, as the browser holds them (`img.crop`'s data: URI), decoded.
    static func crops(inDOM dom: String, directory: URL) throws -> [GrayImage] {
        try dom.matches(of: /<img class="crop"[^>]* src="data:image\/jpeg;base64,([^"]+)"/).enumerated().map { index, match in
            let file = directory.appendingPathComponent("crop-\(index).jpg")
            try #require(Data(base64Encoded: String(match.1))).write(to: file)
            return try ImageLoader.load(contentsOf: file).image
        }
    }

    /// A shelf read here (Tesseract, PP-OCR where installed) against Google Books on loopback,
    /// which knows *Tenth of December* without an ISBN: its spine waits for review. The page
    /// cuts the spine out of the photo: the crop is the spine's shape, not the photo's, and
    /// upright: rapidscan reading the crop as it stands (no turn) finds the title on it.
    @Test func aSpineReadHereIsCutOutOfItsPhotoUprightInARealBrowser() async throws {
        let library = IntakeDoorsCLITests.Library()
        let harness = try await IntakeDoorsCLITests.harness(library)
        defer { Task { await harness.server.stop() } }
        library.search.withLock {
            $0 = .json(#"{"totalItems": 1, "items": [{"id": "tenth", "volumeInfo": {"title": "Tenth of December", "authors": ["George Saunders"]}}]}"#)
        }
        let photo = harness.directory.appendingPathComponent("shelf.jpg")
        try FileManager.default.copyItem(at: SharedFiles.sampleImages.appendingPathComponent("shelves/shelf-03.jpg"), to: photo)
        let read = try await harness.run("spines", "--json", photo.path)
        // The other spines find no book here (exit 2); the one found waits for review.
        #expect(read.status == 2 && read.jsonLines.last?["review"] as? Int == 1, "\(read.stdout)\(read.stderr)")
        // Every reading says where its spine is: in the (upright) photo's shape, and this
        // one, printed top to bottom, starts at its top right and runs down the photo.
        let events = read.jsonLines.filter { $0["reading"] != nil }
        #expect(!events.isEmpty && events.allSatisfy { $0["box"] != nil }, "\(read.stdout)")
        func isTenth(_ event: [String: Any]) -> Bool {
            event["event"] as? String == "review" && (event["reading"] as? String)?.localizedCaseInsensitiveContains("December") == true
        }
        let tenth = try #require(events.first(where: isTenth), "\(read.stdout)")
        let box = try #require(tenth["box"] as? [String: Any])
        let (width, height) = (try #require((box["width"] as? NSNumber)?.doubleValue), try #require((box["height"] as? NSNumber)?.doubleValue))
        #expect(abs(width / height - 1800.0 / 840) < 0.01, "\(box)")
        let corners = try #require(box["corners"] as? [[NSNumber]]).map { $0.map(\.doubleValue) }
        try #require(corners.count == 4 && corners.allSatisfy { $0.count == 2 }, "\(corners)")
        #expect(corners[0][0] > corners[3][0] && corners[1][1] - corners[0][1] > 0.3 * height, "\(corners)")

        let page = harness.directory.appendingPathComponent("review.html")
        #expect(try await harness.run("review", "--html", page.path).status == 6)
        let profile = harness.directory.appendingPathComponent("chromium-profile")
        let dom = try await Self.chromium(["--dump-dom", page.absoluteString], profile: profile)
        #expect(dom.status == 0, "\(dom.stderr)")
        let waiting = try await harness.run("review", "--json").jsonLines
        let place = try #require(waiting.firstIndex(where: isTenth), "\(waiting)")
        let number = try #require(waiting[place]["number"] as? Int)
        #expect(dom.stdout.contains("rapidscan review --accept \(number)") && dom.stdout.contains("rapidscan review --reject \(number)"))
        #expect(dom.stdout.contains("Tenth of December") && dom.stdout.contains("class=\"reading\""), "the reading and the book")
        #expect(dom.stdout.contains("<polygon class=\"outline\""), "the spine outlined on the small photo")
        let crops = try Self.crops(inDOM: dom.stdout, directory: harness.directory)
        #expect(crops.count == waiting.count, "every waiting spine cut out")
        let crop = try #require(crops.indices.contains(place) ? crops[place] : nil)
        // The spine's shape with its margin (its text's length by its height), not the photo's.
        let (length, thickness) = (hypot(corners[1][0] - corners[0][0], corners[1][1] - corners[0][1]),
                                   hypot(corners[3][0] - corners[0][0], corners[3][1] - corners[0][1]))
        let expected = (length + 0.6 * thickness) / (1.6 * thickness)
        #expect(abs(Double(crop.width) / Double(crop.height) - expected) < 0.05 * expected, "\(crop.width)×\(crop.height), \(expected)")
        #expect(crop.width > 3 * crop.height && crop.width <= 1000, "\(crop.width)×\(crop.height)")

        let shot = harness.directory.appendingPathComponent("review.png")
        let screenshot = try await Self.chromium(["--screenshot=\(shot.path)", "--window-size=1200,900", page.absoluteString], profile: profile)
        #expect(screenshot.status == 0, "\(screenshot.stderr)")
        #expect(Set(try ImageLoader.load(contentsOf: shot).image.pixels).count > 64)

        // Upright: read as it stands (Tesseract at 0° alone), the crop shows the title.
        let config = harness.directory.appendingPathComponent("config/rapidscan")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try Data("[vision]\nrotations = [0]\nppocr = \"off\"\n".utf8).write(to: config.appendingPathComponent("config.toml"))
        let standing = try await harness.run("spines", "--json", "--offline", harness.directory.appendingPathComponent("crop-\(place).jpg").path)
        let words = standing.jsonLines.compactMap { $0["reading"] as? String }.joined(separator: " ")
        #expect(words.localizedCaseInsensitiveContains("December"), "read upright: \(words) \(standing.stderr)")
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
        let answer = Answer()
        let harness = try await Self.harness(answer)
        defer { Task { await harness.server.stop() } }
        // The hall's reading was kept before boxes were (none); the study's model gave its box.
        for name in ["hall", "study"] {
            #expect(try await harness.run("spines", try IntakeShelfDoorsCLITests.photo(harness, name)).status == 6)
            answer.text.withLock { $0 = Self.mediumWithBox }
        }
        let numbers = try await harness.run("review", "--json").jsonLines.compactMap { $0["number"] as? Int }
        try #require(numbers.count == 2, "indexed below")
        // The page is for whoever opens it later: its commands name this library.
        let page = harness.directory.appendingPathComponent("review.html")
        let db = harness.database.path
        let written = try await harness.run("review", "--db", db, "--html", page.path)
        #expect(written.status == 6, "\(written.stderr)")
        #expect(written.stderr.contains("2 matches wait for review: \(page.path)"), "\(written.stderr)")
        let html = try String(contentsOf: page, encoding: .utf8)
        // The hall: its whole photo; the study: its spine cut out and the photo small beside it.
        #expect(html.components(separatedBy: "src=\"data:image/jpeg;base64,").count == 4, "each spine's pictures inline")
        #expect(html.components(separatedBy: "class=\"photo\"").count == 2 && html.components(separatedBy: "class=\"crop\"").count == 2)
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
        // The model's box cut the study's spine out: 70% of the photo's height by 2% of its
        // width (497 by 43 px), turned to read across (long and low), not the photo's shape (3:1).
        let crops = try Self.crops(inDOM: dom.stdout, directory: harness.directory)
        let crop = try #require(crops.first)
        #expect(crops.count == 1 && crop.width > 5 * crop.height && crop.height <= 120, "\(crop.width)×\(crop.height)")

        // The commands work as printed.
        let accept = try await harness.run("review", "--db", db, "--accept", String(numbers[0]))
        #expect(accept.status == 6, "\(accept.stderr)")
        #expect(try await harness.run("review", "--reject", String(numbers[1])).status == 0)
    }
}
