import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
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

/// Where the client hands one line per request (debug level); the executable decides where
/// it goes. Lines never contain secret query values.
public struct RequestLogger: Sendable {
    let write: @Sendable (String) -> Void

    public init(_ write: @escaping @Sendable (String) -> Void) { self.write = write }

    public static let disabled = RequestLogger { _ in }
}

/// GET requests over libcurl (CurlTransport) with time-outs, a response-size cap, retries
/// (exponential back-off with jitter, `Retry-After` honoured), a bound on requests in
/// flight, an optional rate limiter, and request logging with secrets redacted.
public final class HTTPClient: Sendable {
    public struct Policy: Sendable, Hashable {
        public var timeout: TimeInterval
        public var retries: Int
        public var maxConcurrentRequests: Int
        public var baseDelay: TimeInterval
        public var maxDelay: TimeInterval
        /// Larger response bodies are refused (a book's record is a few KB).
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
    private let secretQueryItems: Set<String> = ["key"]
    /// Request headers that carry secrets (lower-cased).
    static let secretHeaders: Set<String> = ["x-goog-api-key", "authorization"]

    public init(policy: Policy = Policy(), clock: any PacingClock = SystemPacingClock(), logger: RequestLogger = .disabled) {
        self.policy = policy
        self.clock = clock
        self.logger = logger
        self.inFlight = AsyncSemaphore(limit: policy.maxConcurrentRequests)
    }

    private static func sessionTimeout(_ seconds: TimeInterval) -> TimeInterval { max(1, seconds.rounded(.up)) + 1 }

    /// GETs `url`, retrying transient failures up to `policy.retries` times.
    public func get(
        _ url: URL, headers: [String: String] = [:], rateLimiter: TokenBucket? = nil,
        classify: Classifier = HTTPClient.standardClassification
    ) async throws(SourceError) -> HTTPResponse {
        var request = URLRequest(
            url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: Self.sessionTimeout(policy.timeout))
        for (field, value) in headers { request.setValue(value, forHTTPHeaderField: field) }
        // Whatever a server sends back (bodies, error messages) loses the request's secrets
        // in every encoding before anyone reads it.
        let redaction = SecretRedaction(secrets: headers.filter { Self.secretHeaders.contains($0.key.lowercased()) }.map(\.value)
            + secretQueryValues(url))
        let shownURL = redaction.redact(redacted(url))
        var attempt = 0
        while true {
            attempt += 1
            let failure: SourceError
            switch await send(request, rateLimiter: rateLimiter) {
            case .success(let (answer, elapsed)):
                let response = redaction.isEmpty ? answer : answer.redacting(redaction)
                logger.write("GET \(shownURL) -> \(response.status) (\(Int(elapsed * 1000)) ms, attempt \(attempt))")
                if response.body.count > policy.maxResponseBytes {
                    throw .badResponse("the response from \(url.host ?? "the server") is \(response.body.count) bytes, over the \(policy.maxResponseBytes)-byte limit")
                }
                guard let error = classify(response) else { return response }
                failure = error.redacting(redaction)
            case .failure(let error):
                logger.write("GET \(shownURL) -> \(error.redacting(redaction)) (attempt \(attempt))")
                failure = error.redacting(redaction)
            }
            // A server asking to wait longer than a back-off would is not waited for: the
            // caller queues the lookup instead of holding up a scan.
            if let asked = failure.retryAfter, asked > policy.maxDelay { throw failure }
            // No connection at all (DNS, refused, unreachable) and time-outs are not retried
            // here: the lookup's breaker queues this book and the ones after it at once, and
            // `pending retry` asks again later.
            guard failure.isTransient, !failure.isConnectionLevel, failure != .timeout, attempt <= policy.retries, !Task.isCancelled else { throw failure }
            let delay = retryDelay(after: attempt, error: failure)
            logger.write("retrying GET \(shownURL) in \(String(format: "%.2f", delay)) s")
            await clock.sleep(seconds: delay)
        }
    }

    /// One attempt: waits for the rate limiter and a free slot, then sends.
    private func send(_ request: URLRequest, rateLimiter: TokenBucket?) async -> Result<(HTTPResponse, TimeInterval), SourceError> {
        await rateLimiter?.acquire()
        await inFlight.acquire()
        let result = await perform(request)
        await inFlight.release()
        return result
    }

    private func perform(_ request: URLRequest) async -> Result<(HTTPResponse, TimeInterval), SourceError> {
        let started = Date()
        guard let url = request.url else { return .failure(.badResponse("no request URL")) }
        switch await CurlTransport.get(url: url, headers: request.allHTTPHeaderFields ?? [:], timeout: policy.timeout,
                                       maxBytes: policy.maxResponseBytes) {
        case .success(let answer):
            let response = HTTPResponse(status: answer.status, headers: answer.headers, body: answer.body, url: answer.url)
            return .success((response, Date().timeIntervalSince(started)))
        case .failure(let failure):
            return .failure(Self.sourceError(for: failure, url: url, limit: policy.maxResponseBytes))
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

    private func secretQueryValues(_ url: URL) -> [String] {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return items.filter { secretQueryItems.contains($0.name) }.compactMap(\.value)
    }

    /// The URL with secret query values replaced, for logs.
    func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let items = components.percentEncodedQueryItems
        else { return url.absoluteString }
        components.percentEncodedQueryItems = items.map { item in
            secretQueryItems.contains(item.name) ? URLQueryItem(name: item.name, value: "REDACTED") : item
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
