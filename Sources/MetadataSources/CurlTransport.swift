import CHTTPTransport
import Foundation

/// One HTTP request through libcurl's blocking easy API, run on its own thread: the thread
/// sleeps in poll() while the server thinks, so waiting costs no CPU (FoundationNetworking's
/// URLSession on Linux kept a core busy for the whole wait). Time-outs and the response-size
/// cap are curl's; redirects are followed here, only where `RedirectPolicy` allows; Task
/// cancellation aborts the transfer within ~100 ms.
enum CurlTransport {
    struct Answer: Sendable {
        let status: Int
        let headers: [String: String]
        let body: Data
        let url: URL?
    }

    enum Failure: Error, Sendable {
        case resolve, connect, timeout, cancelled, tooManyRedirects, tls
        case tooLarge(limit: Int)
        /// A redirect `RedirectPolicy` refuses (another host or port, https to http).
        case redirectRefused(to: String, reason: String)
        case other(code: Int32, message: String)
    }

    /// At most this many redirects within the configured host.
    static let maxRedirects = 5

    /// Sends `request`; `timeout` bounds the whole exchange, redirects included.
    static func perform(_ request: HTTPRequest, timeout: TimeInterval, maxBytes: Int) async -> Result<Answer, Failure> {
        let cancel = CancelFlag()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let thread = Thread {
                    continuation.resume(returning: follow(request, timeout: timeout, maxBytes: maxBytes, cancel: cancel))
                }
                thread.name = "rapidscan-http"
                thread.start()
            }
        } onCancel: {
            cancel.set()
        }
    }

    private static func follow(_ request: HTTPRequest, timeout: TimeInterval, maxBytes: Int, cancel: CancelFlag) -> Result<Answer, Failure> {
        let deadline = Date().addingTimeInterval(timeout)
        var current = request
        for _ in 0...maxRedirects {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return .failure(.timeout) }
            let hop: (answer: Answer, redirect: String?)
            switch once(current, timeout: remaining, maxBytes: maxBytes, cancel: cancel) {
            case .failure(let failure): return .failure(failure)
            case .success(let result): hop = result
            }
            guard [301, 302, 303, 307, 308].contains(hop.answer.status), let location = hop.redirect else { return .success(hop.answer) }
            guard let next = URL(string: location) else { return .failure(.redirectRefused(to: location, reason: "to something that is not a URL")) }
            if let reason = RedirectPolicy.refusal(from: current.url, to: next) {
                return .failure(.redirectRefused(to: location, reason: reason))
            }
            // 307/308 repeat the request as it was; 301/302/303 turn it into a GET without a body.
            if ![307, 308].contains(hop.answer.status), current.method != "GET" {
                current.method = "GET"
                current.body = nil
                current.headers = current.headers.filter { $0.key.lowercased() != "content-type" }
            }
            current.url = next
        }
        return .failure(.tooManyRedirects)
    }

    private static func once(_ request: HTTPRequest, timeout: TimeInterval, maxBytes: Int,
                             cancel: CancelFlag) -> Result<(answer: Answer, redirect: String?), Failure> {
        let lines = request.headers.map { "\($0.key): \($0.value)" }
        var response = rs_http_response()
        let timeoutMS = max(1, Int(timeout * 1000))
        // A trailing NUL keeps the buffer non-empty, so an empty POST body is still a body.
        let body: [CChar]? = request.body.map { $0.map { CChar(bitPattern: $0) } + [0] }
        withCStrings(lines) { pointers in
            cancel.withPointer { flag in
                func send(_ bytes: UnsafePointer<CChar>?) {
                    rs_http_perform(request.method, request.url.absoluteString, pointers, pointers.count, bytes,
                                    request.body?.count ?? 0, timeoutMS, timeoutMS, maxBytes, flag, &response)
                }
                if let body { body.withUnsafeBufferPointer { send($0.baseAddress) } } else { send(nil) }
            }
        }
        defer { rs_http_response_free(&response) }
        if response.too_large != 0 { return .failure(.tooLarge(limit: maxBytes)) }
        if response.cancelled != 0 { return .failure(.cancelled) }
        switch response.curl_code {
        case 0: break
        case Int32(RS_HTTP_RESOLVE): return .failure(.resolve)
        case Int32(RS_HTTP_CONNECT): return .failure(.connect)
        case Int32(RS_HTTP_TIMEOUT): return .failure(.timeout)
        case Int32(RS_HTTP_TOO_MANY_REDIRECTS): return .failure(.tooManyRedirects)
        case let code where rs_http_is_tls_error(code) != 0: return .failure(.tls)
        case let code:
            let message = withUnsafeBytes(of: response.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return .failure(.other(code: code, message: message))
        }
        let data = response.body.map { Data(bytes: $0, count: response.body_len) } ?? Data()
        let headerText = response.headers.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: response.headers_len), as: UTF8.self) } ?? ""
        var parsed: [String: String] = [:]
        for line in headerText.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            parsed[name] = parsed[name].map { "\($0), \(value)" } ?? value
        }
        let redirect = response.redirect_url.map { String(cString: $0) }
        return .success((Answer(status: response.status, headers: parsed, body: data, url: request.url), redirect))
    }

    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        return body(copies.map { UnsafePointer($0) })
    }
}

/// Which redirects are followed: only to the host (and port) the request was sent to, and
/// never from https to http. The request's headers carry keys (`Authorization`, `x-api-key`,
/// `x-goog-api-key`) and a vision request's body carries the photo: neither goes anywhere the
/// user did not configure. Not following (a clear error naming the target) is safer than
/// following without the key: a body would still go to the other host, and the answer would
/// be another server's "unauthorized".
enum RedirectPolicy {
    /// Why a redirect from `origin` to `target` is not followed, or nil to follow it.
    static func refusal(from origin: URL, to target: URL) -> String? {
        let fromScheme = origin.scheme?.lowercased() ?? "", toScheme = target.scheme?.lowercased() ?? ""
        guard ["http", "https"].contains(toScheme) else { return "to a URL that is not http or https" }
        if fromScheme == "https", toScheme == "http" { return "from https to http" }
        guard origin.host?.lowercased() == target.host?.lowercased() else { return "to another host" }
        let fromPort = origin.port ?? defaultPort(fromScheme), toPort = target.port ?? defaultPort(toScheme)
        // The same host moving to https on its standard port is the one change of port allowed.
        let upgrade = fromScheme == "http" && toScheme == "https" && origin.port == nil && target.port == nil
        guard fromPort == toPort || upgrade else { return "to another port" }
        return nil
    }

    private static func defaultPort(_ scheme: String) -> Int { scheme == "https" ? 443 : 80 }
}

/// A flag C reads while Swift may set it from another thread (an aligned int: a torn read
/// is impossible; C sees it as volatile).
final class CancelFlag: @unchecked Sendable {
    private let pointer: UnsafeMutablePointer<Int32>

    init() {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: 0)
    }

    deinit { pointer.deallocate() }

    func set() { pointer.pointee = 1 }

    func withPointer<R>(_ body: (UnsafePointer<Int32>) -> R) -> R { body(UnsafePointer(pointer)) }
}
