import BookMetadata
import Foundation
import Imaging

/// Why a path given to `FileWalker` yields no file to scan.
public enum FileWalkError: Error, Sendable, Hashable, CustomStringConvertible {
    case notFound(path: String)
    case danglingLink(path: String, target: String)
    case unreadableDirectory(path: String, reason: String)
    case noImages(path: String)
    /// A link that leads back to itself (ELOOP).
    case symlinkLoop(path: String)
    /// Longer than the system accepts (ENAMETOOLONG).
    case pathTooLong(path: String, bytes: Int)
    /// A name whose bytes are not UTF-8; `path` shows them escaped (`caf\xE9.png`).
    case notUTF8(path: String)
    /// The name was given on the command line with bytes that are not UTF-8 (decoded as U+FFFD).
    case undecodableArgument(path: String)

    public var path: String {
        switch self {
        case .notFound(let path), .danglingLink(let path, _), .unreadableDirectory(let path, _),
             .noImages(let path), .symlinkLoop(let path), .pathTooLong(let path, _), .notUTF8(let path),
             .undecodableArgument(let path):
            path
        }
    }

    /// Paths are shown escaped (`OutsideText.shown`): a name holding ESC or a newline
    /// reaches the terminal as text.
    public var description: String {
        switch self.shownPaths {
        case .notFound(let path):
            "\(path): no such file or directory"
        case .danglingLink(let path, let target):
            "\(path): symbolic link to '\(target)', which does not exist"
        case .unreadableDirectory(let path, let reason):
            "\(path): cannot read directory (\(reason))"
        case .noImages(let path):
            "\(path): no image files in this directory (looked for \(FileWalker.extensionList))"
        case .symlinkLoop(let path):
            "\(path): symbolic link loop (the link leads back to itself)"
        case .pathTooLong(let path, let bytes):
            "\(path): path too long (\(bytes) bytes; the system accepts \(PATH_MAX - 1))"
        case .notUTF8(let path):
            "\(path): file name is not valid UTF-8 (bytes shown escaped); rename it to scan it"
        case .undecodableArgument(let path):
            "\(path): the name given has bytes that are not UTF-8; rename the file or scan its folder"
        }
    }
}

extension FileWalkError {
    fileprivate var shownPaths: FileWalkError {
        let shown: (String) -> String = OutsideText.shown
        return switch self {
        case .notFound(let path): .notFound(path: shown(path))
        case .danglingLink(let path, let target): .danglingLink(path: shown(path), target: shown(target))
        case .unreadableDirectory(let path, let reason): .unreadableDirectory(path: shown(path), reason: reason)
        case .noImages(let path): .noImages(path: shown(path))
        case .symlinkLoop(let path): .symlinkLoop(path: shown(path))
        case .pathTooLong(let path, let bytes): .pathTooLong(path: shown(path), bytes: bytes)
        case .notUTF8(let path): .notUTF8(path: shown(path))
        case .undecodableArgument(let path): .undecodableArgument(path: shown(path))
        }
    }
}

/// One file to scan, or a path that cannot be scanned and why.
public struct FileWalkEntry: Sendable, Hashable {
    /// Built from the path as given, so `url.relativePath` prints as the user typed it.
    public var url: URL
    public var error: FileWalkError?

    public init(url: URL, error: FileWalkError? = nil) {
        self.url = url
        self.error = error
    }

    /// The path to show the user.
    public var path: String { url.relativePath }
}

/// Turns the paths a user typed into the files to scan.
public enum FileWalker {
    /// Files given explicitly are always tried (the loader says what is wrong with them);
    /// folders are walked recursively in name order, skipping hidden entries and files
    /// whose extension is not an image format (image formats rapidscan cannot read are
    /// kept, so that the loader reports each of them by name).
    public static func imageFiles(in paths: [URL], rawFormat: RawFrameFormat? = nil) -> [FileWalkEntry] {
        var entries: [FileWalkEntry] = []
        for url in paths {
            switch kind(of: url) {
            case .missing:
                let error: FileWalkError = url.relativePath.contains("\u{FFFD}")
                    ? .undecodableArgument(path: url.relativePath) : .notFound(path: url.relativePath)
                entries.append(FileWalkEntry(url: url, error: error))
            case .failed(let error):
                entries.append(FileWalkEntry(url: url, error: error))
            case .dangling(let target):
                entries.append(FileWalkEntry(url: url, error: .danglingLink(path: url.relativePath, target: target)))
            case .file:
                entries.append(FileWalkEntry(url: url))
            case .directory:
                var visited = Set<String>()
                let found = walk(url, rawFormat: rawFormat, visited: &visited)
                entries += found.isEmpty
                    ? [FileWalkEntry(url: url, error: .noImages(path: url.relativePath))] : found
            }
        }
        return entries
    }

    static var extensionList: String {
        ImageLoader.imageExtensions.sorted().map { "." + $0 }.joined(separator: " ")
    }

    private enum Kind { case missing, dangling(target: String), file, directory, failed(FileWalkError) }

    private static func kind(of url: URL) -> Kind {
        let path = url.path
        var info = stat()
        if stat(path, &info) == 0 {
            return (info.st_mode & S_IFMT) == S_IFDIR ? .directory : .file
        }
        switch errno {
        case ELOOP: return .failed(.symlinkLoop(path: url.relativePath))
        case ENAMETOOLONG: return .failed(.pathTooLong(path: url.relativePath, bytes: path.utf8.count))
        default: break
        }
        if lstat(path, &info) == 0 {
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
            return .dangling(target: target)
        }
        return .missing
    }

    private static func walk(_ directory: URL, rawFormat: RawFrameFormat?, visited: inout Set<String>) -> [FileWalkEntry] {
        // Symbolic links may loop back to a folder already walked.
        let realPath = directory.resolvingSymlinksInPath().path
        guard visited.insert(realPath).inserted else { return [] }
        let names: [RawName]
        switch listDirectory(directory.path) {
        case .success(let listed): names = listed
        case .failure(let failure):
            return [FileWalkEntry(url: directory, error: .unreadableDirectory(path: directory.relativePath, reason: failure.reason))]
        }
        var entries: [FileWalkEntry] = []
        for raw in names.sorted(by: { $0.shown < $1.shown }) where raw.bytes.first != UInt8(ascii: ".") {
            guard let name = raw.utf8 else {
                // Foundation cannot carry these bytes in a path: reported, never dropped.
                let shown = directory.appendingPathComponent(raw.shown)
                if ImageLoader.isImageFile(shown, rawFormat: rawFormat) {
                    entries.append(FileWalkEntry(url: shown, error: .notUTF8(path: shown.relativePath)))
                }
                continue
            }
            let child = directory.appendingPathComponent(name)
            switch kind(of: child) {
            case .missing:
                continue  // removed while walking
            case .failed(let error):
                if ImageLoader.isImageFile(child, rawFormat: rawFormat) { entries.append(FileWalkEntry(url: child, error: error)) }
            case .dangling(let target):
                if ImageLoader.isImageFile(child, rawFormat: rawFormat) {
                    entries.append(FileWalkEntry(url: child, error: .danglingLink(path: child.relativePath, target: target)))
                }
            case .file:
                if ImageLoader.isImageFile(child, rawFormat: rawFormat) { entries.append(FileWalkEntry(url: child)) }
            case .directory:
                entries += walk(child, rawFormat: rawFormat, visited: &visited)
            }
        }
        return entries
    }
}

/// A directory entry's name as the bytes on disk.
struct RawName {
    let bytes: [UInt8]

    /// The name, when its bytes are UTF-8.
    var utf8: String? { String(validating: bytes, as: UTF8.self) }

    /// The name with every byte that is not part of valid UTF-8 shown as `\xHH`.
    var shown: String { RawName.escaped(bytes) }

    /// The one rule for showing a name (`OutsideText.shown`): bytes that are not UTF-8 and
    /// control characters (ESC, a newline) escaped.
    static func escaped(_ bytes: [UInt8]) -> String { OutsideText.shown(bytes) }
}

/// The entries of `path` (without `.` and `..`) as raw bytes, or why it cannot be read.
func listDirectory(_ path: String) -> Result<[RawName], ListingError> {
    guard let handle = opendir(path) else { return .failure(ListingError(reason: String(cString: strerror(errno)))) }
    defer { closedir(handle) }
    var names: [RawName] = []
    while let entry = readdir(handle) {
        let bytes = withUnsafeBytes(of: entry.pointee.d_name) { buffer in
            Array(buffer.prefix { $0 != 0 })
        }
        if bytes == [0x2E] || bytes == [0x2E, 0x2E] { continue }
        names.append(RawName(bytes: bytes))
    }
    return .success(names)
}

struct ListingError: Error { let reason: String }
