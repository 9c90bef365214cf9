import Foundation
import WorkerPools

/// An HTTP answer as the sources see it.
public struct HTTPResponse: Sendable {
    public let status: Int
    /// Header names lower-cased.
    public let headers: [String: String]
    public let body: Data
    /// The URL that answered (after redirects).
    public let url: URL?

    public init(status: Int, headers: [String: String] = [:], body: Data = Data(), url: URL? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The same answer with `redaction` applied to its headers and (textual) body.
    func redacting(_ redaction: SecretRedaction) -> HTTPResponse {
        let body = String(data: body, encoding: .utf8).map { Data(redaction.redact($0).utf8) } ?? body
        return HTTPResponse(status: status, headers: headers.mapValues(redaction.redact), body: body, url: url)
    }
}

/// A request as the client sends it: GET, or POST with a body (vision models).
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?

    public init(method: String = "GET", url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The credentials this request carries (header values, secret query values): what
    /// every answer and error is redacted of, and what a redirect must not carry elsewhere.
    var secrets: [String] {
        var found: [String] = []
        for (name, value) in headers where HTTPClient.secretHeaders.contains(name.lowercased()) {
            found.append(value)
            // "Bearer sk-…": the token alone is what a server quotes back.
            if let space = value.firstIndex(of: " ") {
                found.append(String(value[value.index(after: space)...]).trimmingCharacters(in: .whitespaces))
            }
        }
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return found + items.filter { HTTPClient.secretQueryItems.contains($0.name) }.compactMap(\.value)
    }
}

/// Where the client hands one line per request (debug level); the executable decides where
/// it goes. Lines never contain secret query values.
public struct RequestLogger: Sendable {
    let write: @Sendable (String) -> Void

    public init(_ write: @escaping @Sendable (String) -> Void) { self.write = write }

    public static let disabled = RequestLogger { _ in }
}

/// HTTP requests over libcurl (CurlTransport) with time-outs, a response-size cap, redirects
/// only within the configured host (RedirectPolicy), retries (`Backoff`, `Retry-After`
/// honoured), a bound on requests in flight, an optional rate limiter, and request logging;
/// every answer and error is redacted of the request's secrets before anyone reads it.
/// The metadata sources and the vision reader share this one stack.
public final class HTTPClient: Sendable {
    public struct Policy: Sendable, Hashable {
        /// The whole exchange (connecting, waiting, reading, redirects), per attempt.
        public var timeout: TimeInterval
        public var retries: Int
        public var maxConcurrentRequests: Int
        public var baseDelay: TimeInterval
        public var maxDelay: TimeInterval
        /// Larger response bodies are refused, counted after gzip/deflate decoding (a book's
        /// record is a few KB).
        public var maxResponseBytes: Int

        public init(timeout: TimeInterval = 10, retries: Int = 2, maxConcurrentRequests: Int = 4,
                    baseDelay: TimeInterval = 0.5, maxDelay: TimeInterval = 30, maxResponseBytes: Int = 4 << 20) {
            self.maxResponseBytes = maxResponseBytes
            self.timeout = timeout
            self.retries = retries
            self.maxConcurrentRequests = maxConcurrentRequests
            self.baseDelay = baseDelay
            self.maxDelay = maxDelay
        }
    }

    /// Decides what a response means: nil = hand it to the caller (success or an answer the
    /// caller interprets, like 404), or the error it represents (retried when transient).
    public typealias Classifier = @Sendable (HTTPResponse) -> SourceError?

    public let policy: Policy
    public let clock: any PacingClock
    private let inFlight: AsyncSemaphore
    private let logger: RequestLogger
    /// Query items whose values are replaced by REDACTED in logs.
    static let secretQueryItems: Set<String> = ["key"]
    /// Request headers that carry secrets (lower-cased): Google's key, bearer tokens
    /// (OpenAI, Ollama behind a proxy, Vertex), Anthropic's key.
    static let secretHeaders: Set<String> = ["x-goog-api-key", "authorization", "x-api-key"]

    public init(policy: Policy = Policy(), clock: any PacingClock = SystemPacingClock(), logger: RequestLogger = .disabled) {
        self.policy = policy
        self.clock = clock
        self.logger = logger
        self.inFlight = AsyncSemaphore(limit: policy.maxConcurrentRequests)
    }

    /// GETs `url`, retrying transient failures up to `policy.retries` times; throws what
    /// `classify` makes of the last answer.
    public func get(
        _ url: URL, headers: [String: String] = [:], rateLimiter: TokenBucket? = nil,
        classify: Classifier = HTTPClient.standardClassification
    ) async throws(SourceError) -> HTTPResponse {
        let (response, failure) = try await exchange(HTTPRequest(url: url, headers: headers), rateLimiter: rateLimiter, classify: classify)
        if let failure { throw failure }
        return response
    }

    /// Sends `request`, retrying while `classify` names a transient failure; returns the last
    /// answer whatever its status (the caller reads a provider's own error body), redacted.
    /// Throws only when no answer came (time-out, connection, size cap, refused redirect).
    public func send(
        _ request: HTTPRequest, rateLimiter: TokenBucket? = nil, classify: Classifier = HTTPClient.standardClassification
    ) async throws(SourceError) -> HTTPResponse {
        try await exchange(request, rateLimiter: rateLimiter, classify: classify).response
    }

    /// The redaction every answer to `request` gets.
    public static func redaction(for request: HTTPRequest) -> SecretRedaction { SecretRedaction(secrets: request.secrets) }

    /// The retry loop: the last answer and what `classify` made of it.
    private func exchange(
        _ request: HTTPRequest, rateLimiter: TokenBucket?, classify: Classifier
    ) async throws(SourceError) -> (response: HTTPResponse, failure: SourceError?) {
        // Whatever a server sends back (bodies, error messages) loses the request's secrets
        // in every encoding before anyone reads it.
        let redaction = Self.redaction(for: request)
        let shownURL = redaction.redact(redacted(request.url))
        var attempt = 0
        while true {
            attempt += 1
            let failure: SourceError
            var answer: HTTPResponse?
            switch await sendOnce(request, rateLimiter: rateLimiter) {
            case .success(let (received, elapsed)):
                let response = redaction.isEmpty ? received : received.redacting(redaction)
                logger.write("\(request.method) \(shownURL) -> \(response.status) (\(Int(elapsed * 1000)) ms, attempt \(attempt))")
                if response.body.count > policy.maxResponseBytes {
                    throw .badResponse("the response from \(request.url.host ?? "the server") is \(response.body.count) bytes, over the \(policy.maxResponseBytes)-byte limit")
                }
                guard let error = classify(response) else { return (response, nil) }
                failure = error.redacting(redaction)
                answer = response
            case .failure(let error):
                logger.write("\(request.method) \(shownURL) -> \(error.redacting(redaction)) (attempt \(attempt))")
                failure = error.redacting(redaction)
            }
            // A server asking to wait longer than a back-off would is not waited for: the
            // caller queues the lookup (or the photo) instead of holding up a run.
            // No connection at all (DNS, refused, unreachable) and time-outs are not retried
            // here: the lookup's breaker queues this book and the ones after it at once, and
            // `pending retry` asks again later.
            let waitTooLong = failure.retryAfter.map { $0 > policy.maxDelay } ?? false
            guard !waitTooLong, failure.isTransient, !failure.isConnectionLevel, failure != .timeout, attempt <= policy.retries,
                  !Task.isCancelled
            else {
                if let answer { return (answer, failure) }
                throw failure
            }
            let delay = retryDelay(after: attempt, error: failure)
            logger.write("retrying \(request.method) \(shownURL) in \(String(format: "%.2f", delay)) s")
            await clock.sleep(seconds: delay)
        }
    }

    /// One attempt: waits for the rate limiter and a free slot, then for the limiter's window
    /// again (the slot's wait may have brought it close to the previous send), then sends.
    private func sendOnce(_ request: HTTPRequest, rateLimiter: TokenBucket?) async -> Result<(HTTPResponse, TimeInterval), SourceError> {
        await rateLimiter?.acquire()
        await inFlight.acquire()
        await rateLimiter?.awaitSendingTime()
        let result = await perform(request)
        await inFlight.release()
        return result
    }

    private func perform(_ request: HTTPRequest) async -> Result<(HTTPResponse, TimeInterval), SourceError> {
        let started = Date()
        switch await CurlTransport.perform(request, timeout: policy.timeout, maxBytes: policy.maxResponseBytes) {
        case .success(let answer):
            let response = HTTPResponse(status: answer.status, headers: answer.headers, body: answer.body, url: answer.url)
            return .success((response, Date().timeIntervalSince(started)))
        case .failure(let failure):
            return .failure(Self.sourceError(for: failure, url: request.url, limit: policy.maxResponseBytes))
        }
    }

    static func sourceError(for failure: CurlTransport.Failure, url: URL, limit: Int) -> SourceError {
        let host = "\(url.host ?? "?")\(url.port.map { ":\($0)" } ?? "")"
        switch failure {
        case .timeout: return .timeout
        case .connect: return .network("cannot connect to \(host)")
        case .resolve: return .network("cannot resolve \(host)")
        case .tls: return .network("TLS connection to \(host) failed")
        case .cancelled: return .network("request cancelled")
        case .tooManyRedirects: return .badResponse("bad redirect from \(host)")
        case .redirectRefused(let target, let reason):
            return .badResponse("\(host) redirected \(reason) (\(target)); not followed: requests and their keys go only to the configured host")
        case .tooLarge:
            return .badResponse("the response from \(host) is over the \(limit)-byte limit")
        case .other(let code, let message):
            // Connection broken mid-transfer and the like: worth retrying.
            return .network("connection to \(host) lost (curl \(code): \(message))")
        }
    }

    /// Exponential back-off with jitter (50–100 % of base·2^(n-1)), or the server's
    /// `Retry-After`; capped at `policy.maxDelay` either way.
    func retryDelay(after attempt: Int, error: SourceError) -> TimeInterval {
        if let asked = error.retryAfter { return min(max(0, asked), policy.maxDelay) }
        return Backoff(base: policy.baseDelay, maximum: policy.maxDelay, spread: 0.5...1.0).delay(afterAttempt: attempt)
    }

    /// 429 = rate limited (with `Retry-After`), 5xx = server error, other 4xx except 404 =
    /// bad response; 2xx, 3xx and 404 go to the caller.
    public static let standardClassification: Classifier = { response in
        switch response.status {
        case 429:
            return .rateLimited(retryAfter: retryAfter(response.header("Retry-After")))
        case 500...599:
            return .server(status: response.status)
        case 404:
            return nil
        case 400...499:
            return .badResponse("HTTP \(response.status)")
        default:
            return nil
        }
    }

    /// `Retry-After` as seconds from now: delta-seconds or an HTTP-date.
    public static func retryAfter(_ value: String?, now: Date = Date()) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value) { return max(0, seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: value) { return max(0, date.timeIntervalSince(now)) }
        }
        return nil
    }

    /// How `sourceError` words failures where no connection was made at all.
    static let connectionLevelReasons = ["cannot connect to", "cannot resolve", "not connected to the internet"]

    /// The URL with secret query values replaced, for logs.
    func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let items = components.percentEncodedQueryItems
        else { return url.absoluteString }
        components.percentEncodedQueryItems = items.map { item in
            Self.secretQueryItems.contains(item.name) ? URLQueryItem(name: item.name, value: "REDACTED") : item
        }
        return components.string ?? "\(url.scheme ?? "http")://\(url.host ?? "")\(url.path)"
    }
}

enum RequestURL {
    static let queryValueAllowed: CharacterSet = {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "+&=\"#")
        return allowed
    }()

    /// `base` + path + query, with `+`, `&`, `=` and quotes in values percent-encoded
    /// (URLQueryItem leaves `+`, which Google would read as a space).
    static func make(base: URL, path: String, query: [URLQueryItem]) throws(SourceError) -> URL {
        let encoded = query.map { item in
            "\(item.name)=\(item.value?.addingPercentEncoding(withAllowedCharacters: queryValueAllowed) ?? "")"
        }.joined(separator: "&")
        guard let url = URL(string: base.absoluteString + path + "?" + encoded) else {
            throw .badResponse("cannot build a request URL from base \(base.absoluteString)")
        }
        return url
    }
}
