import ArgumentParser
import Catalogue
import Foundation
import LibraryTransfer
import RapidScanConfig

/// Shell completions that complete values, not only option names: fixed sets from the types
/// that define them, and the library's own list names and owned ISBNs, read when the shell
/// asks (the completion script runs the binary; a library not created yet offers nothing).
enum ValueCompletion {
    static let readingStatus = CompletionKind.list(ReadingStatus.allCases.map(\.rawValue))
    static let ownedFormat = CompletionKind.list(OwnedFormat.allCases.map(\.rawValue))
    static let exportFormat = CompletionKind.list(ExportFormat.allCases.map(\.rawValue))
    static let importFormat = CompletionKind.list(ImportFormat.allCases.map(\.rawValue))
    /// `spines --provider`: the vision providers and the local reader.
    static let spineProvider = CompletionKind.list(["openai", "ollama", "gemini", "anthropic", "tesseract"])
    static let librarySort = CompletionKind.list(["title", "author", "added", "rating", "status"])

    /// The library's list names, default lists included.
    static let listNames = CompletionKind.custom { words, _, prefix in
        let names = (try? library(words: words)?.lists().map(\.name)) ?? []
        return names.filter { $0.hasPrefix(prefix) }
    }

    /// The ISBN-13s of the books owned.
    static let ownedISBNs = CompletionKind.custom { words, _, prefix in
        let isbns = (try? library(words: words)?.ownedItems().map(\.isbn)) ?? []
        return isbns.filter { $0.hasPrefix(prefix) }
    }

    /// The library the command being completed would open (`--db`/`--config` typed on the
    /// line, else the environment and config file), read-only; nil when none exists yet.
    private static func library(words: [String]) throws -> (any CatalogueStore)? {
        func value(of option: String) -> String? {
            guard let index = words.firstIndex(of: option), index + 1 < words.count else { return nil }
            return words[index + 1]
        }
        var settings = try RapidScanSettings.load(configFile: value(of: "--config").map { URL(fileURLWithPath: $0) })
        if let db = value(of: "--db") { settings.database = db }
        // A shared server is not asked on every Tab: its values are not completed.
        if let url = settings.database, DatabaseURL.isURL(url) { return nil }
        let path = settings.databaseURL(paths: XDGPaths()).path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try Catalogue(path: path, readOnly: true)
    }
}
