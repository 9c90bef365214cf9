import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes an export to the file `export -o` names without replacing what is there when it
/// is not a plain file: a regular file (or none yet) is replaced whole through a temporary
/// file beside it and a rename, so a reader never sees half an export; a device
/// (`/dev/null`), a FIFO or a socket is written into (renaming over `/dev/null` as root
/// turned the device into a regular file). A symbolic link is followed, as the shell's `>`
/// does: its target gets the export and the link stays a link (the user named the link to
/// mean its file; replacing the link would cut it from what it points at).
public enum ExportFile {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "cannot write \(path): \(reason)" }
    }

    public static func write(_ data: Data, to path: String) throws(Failure) {
        let target = resolved(path)
        var info = stat()
        if stat(target, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFREG: try replace(target, with: data, mode: info.st_mode & 0o7777)
            case S_IFDIR: throw Failure(path: path, reason: "it is a directory")
            default: try writeInto(target, data, shownAs: path)
            }
        } else if errno == ENOENT {
            try replace(target, with: data, mode: nil)
        } else {
            throw Failure(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// The file a path leads to through any symbolic links (the last component's links
    /// too); a dangling link's target, which the export then creates.
    static func resolved(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK,
                  let target = try? FileManager.default.destinationOfSymbolicLink(atPath: current)
            else { return current }
            current = target.hasPrefix("/") ? target
                : (URL(fileURLWithPath: current).deletingLastPathComponent().appendingPathComponent(target).path)
        }
        return current
    }

    /// A temporary file in the same folder, written and synced, then renamed over `path`.
    private static func replace(_ path: String, with data: Data, mode: mode_t?) throws(Failure) {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var template = Array((directory + "/.rapidscan-export-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
        let temporary = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        // An existing file keeps its permissions; a new one gets the umask's (mkstemp's are 0600).
        let wanted = mode ?? { let mask = umask(0); umask(mask); return 0o666 & ~mask }()
        var failure: Failure?
        if fchmod(descriptor, wanted) != 0 {
            failure = Failure(path: path, reason: String(cString: strerror(errno)))
        } else {
            do { try writeAll(descriptor, data, path: path) } catch { failure = error }
            if failure == nil, fsync(descriptor) != 0 { failure = Failure(path: path, reason: String(cString: strerror(errno))) }
        }
        close(descriptor)
        if failure == nil, rename(temporary, path) != 0 { failure = Failure(path: path, reason: String(cString: strerror(errno))) }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }

    /// Writes into an existing special file (device, FIFO) as `>` would.
    private static func writeInto(_ path: String, _ data: Data, shownAs shown: String) throws(Failure) {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(path: shown, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        try writeAll(descriptor, data, path: shown)
    }

    private static func writeAll(_ descriptor: Int32, _ data: Data, path: String) throws(Failure) {
        let failure: Int32? = data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure { throw Failure(path: path, reason: String(cString: strerror(failure))) }
    }
}
