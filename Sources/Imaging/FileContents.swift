#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a whole file with POSIX calls, so failures keep the system's own reason
/// (Foundation's Data(contentsOf:) folds them into one generic message).
enum FileContents {
    static func bytes(atPath path: String, name: String) throws(ImageError) -> [UInt8] {
        // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below).
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            let reason = systemMessage(errno)
            throw .cannotOpen(file: name, reason: isDanglingLink(path)
                ? "\(reason): dangling symbolic link" : reason)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .cannotOpen(file: name, reason: systemMessage(errno))
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw .isDirectory(file: name)
        default: throw .cannotOpen(file: name, reason: "not a regular file")
        }
        // Regular files come in one read of the stated size (+1 byte to see the end);
        // pipes and files that grew meanwhile are read on until end of file.
        var bytes = [UInt8](repeating: 0, count: max(Int(status.st_size), 0) + 1)
        var filled = 0
        while true {
            if filled == bytes.count { bytes.append(contentsOf: repeatElement(0, count: bytes.count)) }
            let count = bytes.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress.map { $0 + filled }, buffer.count - filled)
            }
            if count > 0 { filled += count; continue }
            if count == 0 { break }
            let failure = errno
            if failure == EINTR { continue }
            throw failure == EISDIR ? .isDirectory(file: name)
                : .cannotOpen(file: name, reason: systemMessage(failure))
        }
        bytes.removeSubrange(filled...)
        if bytes.isEmpty { throw .emptyFile(file: name) }
        return bytes
    }

    private static func systemMessage(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    private static func isDanglingLink(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFLNK
    }
}
