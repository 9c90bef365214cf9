import CHTTPTransport
import Foundation

/// One GET through libcurl's blocking easy API, run on its own thread: the thread sleeps
/// in poll() while the server thinks, so waiting costs no CPU (FoundationNetworking's
/// URLSession on Linux kept a core busy for the whole wait). Time-outs, the response-size
/// cap and redirects are curl's; Task cancellation aborts the transfer within ~100 ms.
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
        case other(code: Int32, message: String)
    }

    static func get(url: URL, headers: [String: String], timeout: TimeInterval, maxBytes: Int) async -> Result<Answer, Failure> {
        let cancel = CancelFlag()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let thread = Thread {
                    continuation.resume(returning: perform(url: url, headers: headers, timeout: timeout, maxBytes: maxBytes, cancel: cancel))
                }
                thread.name = "rapidscan-http"
                thread.start()
            }
        } onCancel: {
            cancel.set()
        }
    }

    private static func perform(url: URL, headers: [String: String], timeout: TimeInterval, maxBytes: Int,
                                cancel: CancelFlag) -> Result<Answer, Failure> {
        let lines = headers.map { "\($0.key): \($0.value)" }
        var response = rs_http_response()
        let timeoutMS = max(1, Int(timeout * 1000))
        withCStrings(lines) { pointers in
            cancel.withPointer { flag in
                rs_http_get(url.absoluteString, pointers, pointers.count, timeoutMS, timeoutMS, maxBytes, flag, &response)
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
        let body = response.body.map { Data(bytes: $0, count: response.body_len) } ?? Data()
        let headerText = response.headers.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: response.headers_len), as: UTF8.self) } ?? ""
        var parsed: [String: String] = [:]
        for line in headerText.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            parsed[name] = parsed[name].map { "\($0), \(value)" } ?? value
        }
        let effective = response.effective_url.map { URL(string: String(cString: $0)) } ?? url
        return .success(Answer(status: response.status, headers: parsed, body: body, url: effective))
    }

    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        return body(copies.map { UnsafePointer($0) })
    }
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
