import Foundation

/// One canned HTTP answer: status, headers, body.
public struct FixtureResponse: Sendable, Hashable {
    public var status: Int
    /// Header names as written; FlyingFox adds Content-Length itself.
    public var headers: [String: String]
    public var body: Data

    public init(status: Int = 200, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON body given as text.
    public static func json(_ text: String, status: Int = 200, headers: [String: String] = [:]) -> FixtureResponse {
        var all = ["Content-Type": "application/json; charset=utf-8"]
        all.merge(headers) { _, new in new }
        return FixtureResponse(status: status, headers: all, body: Data(text.utf8))
    }

    /// A response read from a recorded fixture under `../shared/fixtures/`.
    ///
    /// `.http` files hold a raw response (status line, headers, blank line, body) and are
    /// parsed; any other file is used as the body with `status` and a content type guessed
    /// from its extension. `headers` are added on top (e.g. `Retry-After`).
    public static func fixture(
        _ relativePath: String, status: Int = 200, headers: [String: String] = [:]
    ) throws(FixtureError) -> FixtureResponse {
        guard let url = SharedFiles.fixture(relativePath) else { throw .sharedFilesMissing }
        return try file(url, status: status, headers: headers)
    }

    /// Like `fixture(_:)` for any file on disk.
    public static func file(
        _ url: URL, status: Int = 200, headers: [String: String] = [:]
    ) throws(FixtureError) -> FixtureResponse {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadable(path: url.path, reason: error.localizedDescription)
        }
        var response: FixtureResponse
        if url.pathExtension == "http" {
            response = try parseRawHTTP(data, name: url.lastPathComponent)
        } else {
            response = FixtureResponse(status: status, headers: ["Content-Type": contentType(for: url)], body: data)
        }
        response.headers.merge(headers) { _, new in new }
        return response
    }

    /// Parses "HTTP/1.1 302 Found\nLocation: …\n\nbody" (LF or CRLF line ends).
    public static func parseRawHTTP(_ data: Data, name: String = "response") throws(FixtureError) -> FixtureResponse {
        guard let text = String(data: data, encoding: .utf8) else {
            throw .badRawHTTP(name: name, reason: "not UTF-8 text")
        }
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n")
        let head: Substring
        let body: Substring
        if let split = normalized.range(of: "\n\n") {
            head = normalized[..<split.lowerBound]
            body = normalized[split.upperBound...]
        } else {
            head = normalized[...]
            body = ""
        }
        var lines = head.split(separator: "\n", omittingEmptySubsequences: false).makeIterator()
        let statusParts = (lines.next() ?? "").split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/"), let status = Int(statusParts[1]) else {
            throw .badRawHTTP(name: name, reason: "first line is not an HTTP status line")
        }
        var headers: [String: String] = [:]
        while let line = lines.next() {
            guard let colon = line.firstIndex(of: ":") else {
                throw .badRawHTTP(name: name, reason: "header line without ':' (\(line))")
            }
            let field = line[..<colon].trimmingCharacters(in: .whitespaces)
            headers[field] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return FixtureResponse(status: status, headers: headers, body: Data(body.utf8))
    }

    static func contentType(for url: URL) -> String {
        switch url.pathExtension.lowercased() {
        case "json": "application/json; charset=utf-8"
        case "html": "text/html; charset=utf-8"
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        default: "application/octet-stream"
        }
    }
}

public enum FixtureError: Error, Sendable, CustomStringConvertible {
    case sharedFilesMissing
    case unreadable(path: String, reason: String)
    case badRawHTTP(name: String, reason: String)
    case notStarted

    public var description: String {
        switch self {
        case .sharedFilesMissing: SharedFiles.missingMessage
        case .unreadable(let path, let reason): "\(path): cannot read fixture (\(reason))"
        case .badRawHTTP(let name, let reason): "\(name): not a raw HTTP response: \(reason)"
        case .notStarted: "the fixture server has not been started"
        }
    }
}
