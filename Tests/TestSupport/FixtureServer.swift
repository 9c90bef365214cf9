import FlyingFox
import Foundation

/// A request as the fixture server received it, for assertions.
public struct RecordedRequest: Sendable, Hashable {
    public var method: String
    public var path: String
    /// Query items, percent-decoded ("+" stays "+"), in request order.
    public var queryItems: [(name: String, value: String)] { zip(queryNames, queryValues).map { ($0, $1) } }
    /// The raw (still percent-encoded) query string, without "?".
    public var rawQuery: String
    /// Header names lower-cased.
    public var headers: [String: String]
    /// The request body (POST requests: the JSON sent).
    public var body: Data = Data()

    private var queryNames: [String]
    private var queryValues: [String]

    init(method: String, path: String, rawQuery: String, query: [(String, String)], headers: [String: String]) {
        self.method = method
        self.path = path
        self.rawQuery = rawQuery
        self.queryNames = query.map(\.0)
        self.queryValues = query.map(\.1)
        self.headers = headers
    }

    /// The first value of a query item.
    public func query(_ name: String) -> String? {
        queryNames.firstIndex(of: name).map { queryValues[$0] }
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// A loopback HTTP server (FlyingFox) that replays recorded responses.
///
/// Routes match by path (exact, or a prefix ending in `*`), optional method and optional
/// query items; the most recently added matching route answers, so a test can override a
/// route later. A route can give a sequence of responses (the last one repeats), run a
/// closure, or never answer (for client time-outs). Unmatched requests get 404 with a body
/// naming the request. Every request is recorded in `requests`.
///
/// `stop()` closes the listening socket; `start()` after it listens again on the same
/// port, so clients configured with `baseURL` see "server down" and then "server back".
public final class FixtureServer: @unchecked Sendable {
    public typealias Handler = @Sendable (RecordedRequest) async -> FixtureResponse

    enum Behaviour {
        case responses([FixtureResponse])
        case handler(Handler)
        case neverAnswer
    }

    struct Route {
        var method: String?
        var path: String
        var query: [String: String]
        var behaviour: Behaviour
        var served = 0

        func matches(_ request: RecordedRequest) -> Bool {
            if let method, method != request.method { return false }
            if path.hasSuffix("*") {
                guard request.path.hasPrefix(path.dropLast()) else { return false }
            } else if path != request.path {
                return false
            }
            return query.allSatisfy { request.query($0.key) == $0.value }
        }
    }

    // All mutable state is guarded by `lock`.
    private let lock = NSLock()
    private var routes: [Route] = []
    private var recorded: [RecordedRequest] = []
    private var server: HTTPServer?
    private var serverTask: Task<Void, any Error>?
    private var port: UInt16 = 0
    private var releaseHangingRequests = false
    private let hangLimit: Duration

    /// - Parameter hangLimit: how long a "never answers" route holds a request at most
    ///   (a safety net; clients in tests time out far sooner).
    public init(hangLimit: Duration = .seconds(60)) {
        self.hangLimit = hangLimit
    }

    deinit {
        serverTask?.cancel()
    }

    // MARK: Lifecycle

    /// Starts listening on 127.0.0.1: on a free port the first time, on the same port after `stop()`.
    public func start() async throws {
        let port = withLock { () -> UInt16? in
            guard server == nil else { return nil }
            releaseHangingRequests = false
            return self.port
        }
        guard let port else { return }
        let handler = ForwardingHandler(server: self)
        let http = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: port), logger: .disabled, handler: handler)
        let task = Task { try await http.run() }
        do {
            try await http.waitUntilListening(timeout: 10)
        } catch {
            task.cancel()
            throw error
        }
        guard case .ip4(_, let boundPort)? = await http.listeningAddress else {
            task.cancel()
            throw FixtureError.notStarted
        }
        withLock {
            self.server = http
            self.serverTask = task
            self.port = boundPort
        }
    }

    /// Closes the listening socket and lets hanging requests go; the port is kept for `start()`.
    public func stop() async {
        let http = withLock { () -> HTTPServer? in
            releaseHangingRequests = true
            defer { server = nil; serverTask = nil }
            return server
        }
        await http?.stop(timeout: 0.05)
    }

    public var isRunning: Bool { withLock { server != nil } }

    /// `http://127.0.0.1:PORT` (no trailing slash). Valid after the first `start()`.
    public var baseURL: URL {
        URL(string: "http://127.0.0.1:\(withLock { port })")!
    }

    // MARK: Routes

    /// Answers requests for `path` with `responses` in turn; the last one repeats.
    public func route(
        _ path: String, method: String? = "GET", query: [String: String] = [:], responses: [FixtureResponse]
    ) {
        precondition(!responses.isEmpty, "a route needs at least one response")
        add(Route(method: method, path: path, query: query, behaviour: .responses(responses)))
    }

    public func route(
        _ path: String, method: String? = "GET", query: [String: String] = [:],
        status: Int = 200, headers: [String: String] = [:], body: Data = Data()
    ) {
        route(path, method: method, query: query, responses: [FixtureResponse(status: status, headers: headers, body: body)])
    }

    public func route(
        _ path: String, method: String? = "GET", query: [String: String] = [:], response: FixtureResponse
    ) {
        route(path, method: method, query: query, responses: [response])
    }

    public func route(_ path: String, method: String? = "GET", query: [String: String] = [:], handler: @escaping Handler) {
        add(Route(method: method, path: path, query: query, behaviour: .handler(handler)))
    }

    /// Replays a recorded fixture (`../shared/fixtures/<relativePath>`) for `path`.
    public func replay(
        _ path: String, fixture relativePath: String, status: Int = 200,
        headers: [String: String] = [:], query: [String: String] = [:]
    ) throws {
        route(path, query: query, response: try FixtureResponse.fixture(relativePath, status: status, headers: headers))
    }

    /// Requests to `path` are read and then held without an answer (until `stop()`).
    public func neverAnswer(_ path: String, method: String? = "GET", query: [String: String] = [:]) {
        add(Route(method: method, path: path, query: query, behaviour: .neverAnswer))
    }

    public func removeAllRoutes() { withLock { routes.removeAll() } }

    // MARK: Request log

    public var requests: [RecordedRequest] { withLock { recorded } }

    public func requests(to path: String) -> [RecordedRequest] { requests.filter { $0.path == path } }

    public func clearRequests() { withLock { recorded.removeAll() } }

    // MARK: Handling

    private func add(_ route: Route) { withLock { routes.append(route) } }

    fileprivate func handle(_ request: HTTPRequest) async -> HTTPResponse {
        var recordedRequest = Self.record(request)
        recordedRequest.body = (try? await request.bodyData) ?? Data()
        let behaviour = withLock { () -> Behaviour? in
            recorded.append(recordedRequest)
            guard let index = routes.lastIndex(where: { $0.matches(recordedRequest) }) else { return nil }
            defer { routes[index].served += 1 }
            if case .responses(let list) = routes[index].behaviour {
                return .responses([list[min(routes[index].served, list.count - 1)]])
            }
            return routes[index].behaviour
        }
        let answer: FixtureResponse
        switch behaviour {
        case .responses(let list)?:
            answer = list[0]
        case .handler(let handler)?:
            answer = await handler(recordedRequest)
        case .neverAnswer?:
            await hang()
            answer = FixtureResponse(status: 503, body: Data("fixture server stopped".utf8))
        case nil:
            answer = FixtureResponse(
                status: 404,
                body: Data("no fixture route for \(recordedRequest.method) \(recordedRequest.path)?\(recordedRequest.rawQuery)".utf8))
        }
        return Self.httpResponse(answer)
    }

    private func hang() async {
        let clock = ContinuousClock()
        let deadline = clock.now + hangLimit
        while clock.now < deadline, !Task.isCancelled, !withLock({ releaseHangingRequests }) {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    private static func record(_ request: HTTPRequest) -> RecordedRequest {
        var headers: [String: String] = [:]
        for (field, value) in request.headers {
            let name = field.rawValue.lowercased()
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        let rawQuery = request.target.query(percentEncoded: true)
        return RecordedRequest(
            method: request.method.rawValue,
            path: request.path,
            rawQuery: rawQuery,
            query: request.query.map { ($0.name, $0.value) },
            headers: headers)
    }

    private static func httpResponse(_ answer: FixtureResponse) -> HTTPResponse {
        var headers = HTTPHeaders()
        for (name, value) in answer.headers where name.lowercased() != "content-length" {
            headers.addValue(value, for: HTTPHeader(name))
        }
        return HTTPResponse(
            statusCode: HTTPStatusCode(answer.status, phrase: phrase(for: answer.status)),
            headers: headers, body: answer.body)
    }

    private static func phrase(for status: Int) -> String {
        switch status {
        case 200: "OK"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status \(status)"
        }
    }

    private func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

/// Forwards every request to the fixture server's route table.
private struct ForwardingHandler: HTTPHandler {
    let server: FixtureServer
    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        await server.handle(request)
    }
}

/// Runs `body` with a started server, then stops it (awaited, also when `body` throws), so
/// no test leaves a listener behind or forgets to stop one.
public func withFixtureServer<T>(
    hangLimit: Duration = .seconds(60), _ body: (FixtureServer) async throws -> T
) async throws -> T {
    let server = FixtureServer(hangLimit: hangLimit)
    try await server.start()
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}
