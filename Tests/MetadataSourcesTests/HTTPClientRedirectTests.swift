import Foundation
@testable import MetadataSources
import Testing
import TestSupport

/// POST through the one stack, and the redirect rule: followed within the configured host,
/// never to another host or port, never from https to http. Two loopback servers on
/// different ports; the second records what reached it.
@Suite struct HTTPClientRedirectTests {
    static let key = "sk-redirect-secret-0123456789"

    @Test func postSendsTheBodyAndHandsBackAnErrorAnswerRedacted() async throws {
        try await withFixtureServer { server in
            server.route("/v1/messages", method: "POST") { request in
                .json(#"{"error": {"message": "bad key \#(Self.key) for body of \#(request.body.count) bytes"}}"#, status: 401)
            }
            let client = HTTPClient(policy: .init(timeout: 10, retries: 2))
            let body = Data(repeating: UInt8(ascii: "x"), count: 300_000)
            let response = try await client.send(HTTPRequest(
                method: "POST", url: server.baseURL.appendingPathComponent("v1/messages"),
                headers: ["x-api-key": Self.key, "Content-Type": "application/json"], body: body))
            #expect(response.status == 401)
            let text = String(decoding: response.body, as: UTF8.self)
            #expect(text.contains("bad key REDACTED for body of 300000 bytes"), "\(text)")
            let request = try #require(server.requests.first)
            #expect(request.method == "POST" && request.body == body && request.header("x-api-key") == Self.key)
            #expect(server.requests.count == 1, "a 401 is not retried")
        }
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func aRedirectToAnotherPortIsNotFollowed(status: Int) async throws {
        try await withFixtureServer { configured in
            try await withFixtureServer { elsewhere in
                elsewhere.route("/*", method: nil, response: FixtureResponse(status: 200, body: Data("stolen".utf8)))
                configured.route("/books/v1/volumes", method: nil, response: FixtureResponse(
                    status: status, headers: ["Location": elsewhere.baseURL.absoluteString + "/books/v1/volumes?q=x"]))
                let client = HTTPClient(policy: .init(timeout: 10, retries: 2))
                let url = configured.baseURL.appendingPathComponent("books/v1/volumes")
                for request in [HTTPRequest(url: url, headers: ["X-Goog-Api-Key": Self.key]),
                                HTTPRequest(method: "POST", url: url, headers: ["Authorization": "Bearer \(Self.key)"], body: Data("{}".utf8))] {
                    do {
                        _ = try await client.send(request)
                        Issue.record("a redirect to another port was followed")
                    } catch let error as SourceError {
                        #expect(error.description.contains("redirected to another port (\(elsewhere.baseURL.absoluteString)/books/v1/volumes?q=x)"),
                                "\(error)")
                        #expect(!error.isTransient, "not retried")
                    }
                }
                #expect(elsewhere.requests.isEmpty)
                #expect(configured.requests.count == 2)
            }
        }
    }

    @Test func aRedirectWithinTheHostIsFollowedWithItsMethodAsHTTPSaysAndTheKey() async throws {
        try await withFixtureServer { server in
            server.route("/old", method: nil, response: FixtureResponse(status: 307, headers: ["Location": "/new"]))
            server.route("/seeother", method: nil, response: FixtureResponse(status: 303, headers: ["Location": "/new"]))
            server.route("/new", method: nil) { request in
                FixtureResponse(status: 200, body: Data("\(request.method) \(request.body.count)".utf8))
            }
            let client = HTTPClient(policy: .init(timeout: 10, retries: 0))
            let body = Data("{\"a\":1}".utf8)
            let kept = try await client.send(HTTPRequest(method: "POST", url: server.baseURL.appendingPathComponent("old"),
                                                         headers: ["x-api-key": Self.key], body: body))
            #expect(String(decoding: kept.body, as: UTF8.self) == "POST 7")
            let turned = try await client.send(HTTPRequest(method: "POST", url: server.baseURL.appendingPathComponent("seeother"),
                                                           headers: ["x-api-key": Self.key], body: body))
            #expect(String(decoding: turned.body, as: UTF8.self) == "GET 0")
            #expect(server.requests(to: "/new").allSatisfy { $0.header("x-api-key") == Self.key })
        }
    }

    @Test func redirectPolicyAllowsOnlyTheConfiguredHost() throws {
        func refusal(_ from: String, _ to: String) -> String? {
            RedirectPolicy.refusal(from: URL(string: from)!, to: URL(string: to)!)
        }
        #expect(refusal("https://api.openai.com/v1/x", "https://api.openai.com/v1/y") == nil)
        #expect(refusal("http://openlibrary.org/isbn/1.json", "https://openlibrary.org/books/2.json") == nil, "an upgrade to https")
        #expect(refusal("https://api.openai.com/v1/x", "http://api.openai.com/v1/x") == "from https to http")
        #expect(refusal("https://api.openai.com/v1/x", "https://evil.example/v1/x") == "to another host")
        #expect(refusal("http://127.0.0.1:8080/x", "http://127.0.0.1:8081/x") == "to another port")
        #expect(refusal("http://localhost:8080/x", "https://localhost:8443/x") == "to another port")
        #expect(refusal("https://a.example/x", "ftp://a.example/x") == "to a URL that is not http or https")
    }

    @Test func aKeyInBase64AtAnyOffsetIsRedacted() {
        let redaction = SecretRedaction(secret: Self.key)
        for prefix in ["", "u", "us", "user:"] {
            let encoded = Data((prefix + Self.key + ":x").utf8).base64EncodedString()
            let shown = redaction.redact("Authorization: Basic \(encoded)")
            #expect(shown.contains(SecretRedaction.placeholder), "\(prefix): \(shown)")
            // All but the characters a neighbouring byte shares are gone.
            #expect(shown.count <= "Authorization: Basic \(encoded)".count - 30 + SecretRedaction.placeholder.count, "\(prefix): \(shown)")
        }
        #expect(!redaction.redact("Bearer \(Self.key.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)").contains("0123456789"))
    }
}
