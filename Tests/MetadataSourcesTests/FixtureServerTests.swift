import Foundation
import Testing
import TestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The loopback server other workers' tests rely on: routing, recording, restart on one port.
@Suite struct FixtureServerTests {
    private func get(_ url: URL) async throws -> (Int, Data, HTTPURLResponse) {
        let (data, response) = try await URLSession.shared.data(from: url)
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, data, http)
    }

    @Test func routesByPathAndQueryAndRecordsRequests() async throws {
        try await withFixtureServer { server async throws in
            server.route("/a", body: Data("any".utf8))
            server.route("/a", query: ["q": "isbn:1"], body: Data("one".utf8))
            server.route("/prefix/*", status: 201)
            let base = server.baseURL

            #expect(try await get(URL(string: "/a?q=isbn:1&x=2", relativeTo: base)!).1 == Data("one".utf8))
            #expect(try await get(URL(string: "/a?q=other", relativeTo: base)!).1 == Data("any".utf8))
            #expect(try await get(URL(string: "/prefix/deep/er", relativeTo: base)!).0 == 201)
            let (status, body, _) = try await get(URL(string: "/nothing?z=1", relativeTo: base)!)
            #expect(status == 404)
            #expect(String(decoding: body, as: UTF8.self).contains("/nothing?z=1"))

            #expect(server.requests.map(\.path) == ["/a", "/a", "/prefix/deep/er", "/nothing"])
            #expect(server.requests[0].query("q") == "isbn:1")
            #expect(server.requests[0].query("x") == "2")
            #expect(server.requests[0].header("Host")?.hasPrefix("127.0.0.1") == true)
        }
    }

    @Test func sequenceOfResponsesRepeatsTheLast() async throws {
        try await withFixtureServer { server async throws in
            server.route("/s", responses: [FixtureResponse(status: 503), FixtureResponse(status: 200)])
            let url = server.baseURL.appendingPathComponent("s")
            #expect(try await get(url).0 == 503)
            #expect(try await get(url).0 == 200)
            #expect(try await get(url).0 == 200)
        }
    }

    @Test(.enabled(if: SharedFiles.available, SharedFiles.skipped)) func rawHTTPFixtureIsParsedAndRedirectFollowed() async throws {
        try SharedFiles.requireShared()
        try await withFixtureServer { server in
            try server.replay("/isbn/9780000000000.json", fixture: "openlibrary/isbn_redirect_302.http")
            server.route("/books/OL7353617M.json", response: .json(#"{"key":"/books/OL7353617M"}"#))
            let (status, body, _) = try await get(server.baseURL.appendingPathComponent("isbn/9780000000000.json"))
            #expect(status == 200)
            #expect(String(decoding: body, as: UTF8.self).contains("OL7353617M"))
            #expect(server.requests.map(\.path) == ["/isbn/9780000000000.json", "/books/OL7353617M.json"])

            let parsed = try FixtureResponse.fixture("openlibrary/isbn_redirect_302.http")
            #expect(parsed.status == 302)
            #expect(parsed.headers["Location"] == "/books/OL7353617M.json")
        }
    }

    @Test func stopThenStartListensAgainOnTheSamePort() async throws {
        try await withFixtureServer { server in
            server.route("/up", body: Data("up".utf8))
            let url = server.baseURL.appendingPathComponent("up")
            #expect(try await get(url).0 == 200)

            await server.stop()
            #expect(!server.isRunning)
            await #expect(throws: (any Error).self) { _ = try await get(url) }

            try await server.start()
            #expect(server.baseURL.appendingPathComponent("up") == url)
            #expect(try await get(url).1 == Data("up".utf8))
        }
    }

    @Test func withFixtureServerStopsTheServerAfterTheBodyEvenWhenItThrows() async throws {
        struct Failure: Error {}
        let used = try await withFixtureServer { server in
            #expect(server.isRunning)
            return server
        }
        #expect(!used.isRunning)
        let box = ServerBox()
        await #expect(throws: Failure.self) {
            try await withFixtureServer { server in
                box.server = server
                throw Failure()
            }
        }
        #expect(box.server?.isRunning == false)
    }

    @Test func temporaryDirectoryIsRemovedAfterUse() throws {
        let kept = try withTemporaryDirectory { directory in
            try Data("x".utf8).write(to: directory.appendingPathComponent("f"))
            #expect(FileManager.default.fileExists(atPath: directory.path))
            return directory
        }
        #expect(!FileManager.default.fileExists(atPath: kept.path))
    }
}

final class ServerBox: @unchecked Sendable {
    var server: FixtureServer?
}
