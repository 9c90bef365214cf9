import Foundation
import Imaging

/// Why a path given to `FileWalker` yields no file to scan.
public enum FileWalkError: Error, Sendable, Hashable, CustomStringConvertible {
    case notFound(path: String)
    case danglingLink(path: String, target: String)
    case unreadableDirectory(path: String, reason: String)
    case noImages(path: String)

    public var path: String {
        switch self {
        case .notFound(let path), .danglingLink(let path, _), .unreadableDirectory(let path, _),
             .noImages(let path):
            path
        }
    }

    public var description: String {
        switch self {
        case .notFound(let path):
            "\(path): no such file or directory"
        case .danglingLink(let path, let target):
            "\(path): symbolic link to '\(target)', which does not exist"
        case .unreadableDirectory(let path, let reason):
            "\(path): cannot read directory (\(reason))"
        case .noImages(let path):
            "\(path): no image files in this directory (looked for \(FileWalker.extensionList))"
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
    /// whose extension is not an image format rapidscan reads.
    public static func imageFiles(in paths: [URL], rawFormat: RawFrameFormat? = nil) -> [FileWalkEntry] {
        var entries: [FileWalkEntry] = []
        for url in paths {
            switch kind(of: url) {
            case .missing:
                entries.append(FileWalkEntry(url: url, error: .notFound(path: url.relativePath)))
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

    private enum Kind { case missing, dangling(target: String), file, directory }

    private static func kind(of url: URL) -> Kind {
        let path = url.path
        var info = stat()
        if stat(path, &info) == 0 {
            return (info.st_mode & S_IFMT) == S_IFDIR ? .directory : .file
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
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? String(describing: error)
            return [FileWalkEntry(url: directory, error: .unreadableDirectory(path: directory.relativePath, reason: reason))]
        }
        var entries: [FileWalkEntry] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            let child = directory.appendingPathComponent(name)
            switch kind(of: child) {
            case .missing:
                continue  // removed while walking
            case .dangling(let target):
                if ImageLoader.isSupportedImage(child, rawFormat: rawFormat) {
                    entries.append(FileWalkEntry(url: child, error: .danglingLink(path: child.relativePath, target: target)))
                }
            case .file:
                if ImageLoader.isSupportedImage(child, rawFormat: rawFormat) { entries.append(FileWalkEntry(url: child)) }
            case .directory:
                entries += walk(child, rawFormat: rawFormat, visited: &visited)
            }
        }
        return entries
    }
}
