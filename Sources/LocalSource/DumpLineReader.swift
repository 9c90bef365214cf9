import CZlib
import Foundation

/// Reads an Open Library dump file line by line, gzip (any number of members) or plain,
/// recognised by its first two bytes, never its name. Offsets are in the uncompressed
/// text, so a load stopped at any point resumes after the last line it stored.
final class DumpLineReader {
    struct Line: Sendable {
        /// 1-based, as an editor shows it.
        var number: Int
        var bytes: ArraySlice<UInt8>
    }

    let path: String
    /// Bytes of the file itself read so far (compressed bytes for gzip): progress.
    private(set) var fileBytesRead: Int64 = 0
    /// Uncompressed bytes handed out as lines so far (the resume offset).
    private(set) var textOffset: Int64 = 0
    private(set) var lineNumber = 0
    let isGzip: Bool

    private let handle: FileHandle
    private var stream = z_stream()
    private var inflating = false
    private var input: [UInt8] = []
    private var inputUsed = 0
    private var finishedInput = false
    private var pending: [UInt8] = []
    private var pendingStart = 0
    /// Inflated text before it joins `pending` (kept: zeroing 4 MB a fill is not free).
    private var output = [UInt8](repeating: 0, count: DumpLineReader.chunk * 4)
    private static let chunk = 1 << 20

    init(path: String) throws(DumpError) {
        self.path = path
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .unreadable(path: path, reason: Self.errnoText()) }
        self.handle = handle
        let magic = (try? handle.read(upToCount: 2)) ?? Data()
        isGzip = magic.count == 2 && magic[magic.startIndex] == 0x1f && magic[magic.startIndex + 1] == 0x8b
        try? handle.seek(toOffset: 0)
        if isGzip {
            // 15 + 32: a zlib or gzip header, detected.
            guard inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                throw .unreadable(path: path, reason: "zlib could not start")
            }
            inflating = true
        }
    }

    deinit {
        if inflating { inflateEnd(&stream) }
        try? handle.close()
    }

    /// Skips to `offset` (a line start a previous run stored): a seek in a plain file; a
    /// gzip stream is inflated up to it (zlib cannot seek).
    func skip(toOffset offset: Int64, lineNumber: Int) throws(DumpError) {
        guard offset > 0 else { return }
        if !isGzip {
            do { try handle.seek(toOffset: UInt64(offset)) } catch { throw .unreadable(path: path, reason: "\(error)") }
            fileBytesRead = offset
        } else {
            var remaining = offset
            while remaining > 0 {
                let available = pending.count - pendingStart
                if available == 0 {
                    guard try fill() else { throw .unreadable(path: path, reason: "the file is shorter than when it was last loaded") }
                    continue
                }
                let take = Int(min(Int64(available), remaining))
                pendingStart += take
                remaining -= Int64(take)
            }
        }
        textOffset = offset
        self.lineNumber = lineNumber
    }

    /// Up to `count` lines (fewer at the end of the file; none after it). Line ends are not
    /// part of the bytes; a last line without one is still a line.
    func nextLines(_ count: Int) throws(DumpError) -> [Line] {
        var lines: [Line] = []
        lines.reserveCapacity(count)
        while lines.count < count {
            if let newline = nextNewline() {
                lineNumber += 1
                let slice = pending[pendingStart..<newline]
                textOffset += Int64(newline - pendingStart + 1)
                pendingStart = newline + 1
                lines.append(Line(number: lineNumber, bytes: slice))
                continue
            }
            guard try fill() else {
                if pendingStart < pending.count {
                    lineNumber += 1
                    textOffset += Int64(pending.count - pendingStart)
                    lines.append(Line(number: lineNumber, bytes: pending[pendingStart...]))
                    pendingStart = pending.count
                }
                break
            }
        }
        return lines
    }

    /// The index in `pending` of the next line end at or after `pendingStart` (memchr: a line is ~1.5 KB).
    private func nextNewline() -> Int? {
        pending.withUnsafeBufferPointer { buffer in
            guard pendingStart < buffer.count, let base = buffer.baseAddress,
                  let found = memchr(base + pendingStart, 0x0A, buffer.count - pendingStart) else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Appends more text to `pending` (dropping what was consumed); false at the end of the file.
    private func fill() throws(DumpError) -> Bool {
        if pendingStart > 0 {
            pending = Array(pending[pendingStart...])
            pendingStart = 0
        }
        if !isGzip {
            guard let data = try readFile(), !data.isEmpty else { return false }
            pending.append(contentsOf: data)
            return true
        }
        var produced = 0
        while produced == 0 {
            if inputUsed == input.count {
                guard !finishedInput, let data = try readFile(), !data.isEmpty else {
                    finishedInput = true
                    return false
                }
                input = Array(data)
                inputUsed = 0
            }
            let status: Int32 = input.withUnsafeMutableBufferPointer { inputBuffer in
                output.withUnsafeMutableBufferPointer { outputBuffer in
                    stream.next_in = inputBuffer.baseAddress! + inputUsed
                    stream.avail_in = UInt32(inputBuffer.count - inputUsed)
                    stream.next_out = outputBuffer.baseAddress!
                    stream.avail_out = UInt32(outputBuffer.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    inputUsed = inputBuffer.count - Int(stream.avail_in)
                    produced = outputBuffer.count - Int(stream.avail_out)
                    return status
                }
            }
            switch status {
            case Z_OK, Z_BUF_ERROR: break
            case Z_STREAM_END:
                // Dumps may be several gzip members one after another.
                inflateReset(&stream)
            default:
                let message = stream.msg.map { String(cString: $0) } ?? "status \(status)"
                throw .unreadable(path: path, reason: "broken gzip data after \(fileBytesRead) bytes (\(message))")
            }
        }
        pending.append(contentsOf: output[0..<produced])
        return true
    }

    private func readFile() throws(DumpError) -> Data? {
        do {
            let data = try handle.read(upToCount: Self.chunk)
            fileBytesRead += Int64(data?.count ?? 0)
            return data
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}
