import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback HTTP server on plain sockets and threads, for hostile answers FlyingFox cannot
/// give (it sends whole bodies): a reply that trickles a byte at a time, or one that never
/// ends. Each connection's request is read (head and `Content-Length` body), then `respond`
/// writes whatever it likes until it returns or the client goes away. Threads, not tasks:
/// a handler that sleeps must not hold the cooperative pool the tests run on.
public final class RawSocketServer: @unchecked Sendable {
    /// One accepted connection, its request already read.
    public struct Connection: Sendable {
        let fd: Int32
        let server: RawSocketServer
        /// The request line and headers, as sent.
        public let head: String

        /// Writes all of `data`; false once the client has gone or the server stopped.
        public func write(_ data: Data) -> Bool {
            guard !server.isStopped else { return false }
            return data.withUnsafeBytes { buffer -> Bool in
                var offset = 0
                while offset < buffer.count {
                    let sent = send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                    if sent <= 0 { return false }
                    offset += sent
                }
                return true
            }
        }

        public func write(_ text: String) -> Bool { write(Data(text.utf8)) }
    }

    private let listener: Int32
    public let port: UInt16
    private let lock = NSLock()
    private var stopped = false
    private var heads: [String] = []

    /// Listens on 127.0.0.1 on a free port; `respond` runs on a thread of its own per connection.
    public init(respond: @escaping @Sendable (Connection) -> Void) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FixtureError.notStarted }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { close(fd); throw FixtureError.notStarted }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }
                Thread.detachNewThread { [self] in
                    let head = Self.readRequest(client)
                    lock.withLock { heads.append(head) }
                    respond(Connection(fd: client, server: self, head: head))
                    close(client)
                }
            }
        }
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The heads of the requests received so far.
    public var requests: [String] { lock.withLock { heads } }

    public var isStopped: Bool { lock.withLock { stopped } }

    /// Stops accepting; handlers see `write` fail and end.
    public func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// Reads the head and as many body bytes as `Content-Length` says (so the client's upload
    /// completes before the answer starts).
    private static func readRequest(_ fd: Int32) -> String {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var headEnd: Range<Data.Index>?
        while headEnd == nil {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return String(decoding: received, as: UTF8.self) }
            received.append(contentsOf: buffer[0..<count])
            headEnd = received.range(of: Data("\r\n\r\n".utf8))
        }
        let head = String(decoding: received[..<headEnd!.lowerBound], as: UTF8.self)
        let length = head.split(separator: "\r\n").compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        var bodyRead = received.count - headEnd!.upperBound
        while bodyRead < length {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            bodyRead += count
        }
        return head
    }
}
