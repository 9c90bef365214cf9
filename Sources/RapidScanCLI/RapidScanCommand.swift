import ArgumentParser

/// The root command; each subcommand is one type in Commands/.
public struct RapidScanCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "rapidscan",
        abstract: "Catalogue physical books from pictures of their barcodes.",
        version: RapidScanVersion.current,
        subcommands: [
            DecodeCommand.self,
            ScanCommand.self,
            WatchCommand.self,
            LookupCommand.self,
            SearchCommand.self,
            PendingCommand.self,
            CacheCommand.self,
            AccountCommand.self,
            SpinesCommand.self,
            ReviewCommand.self,
            LibraryCommand.self,
            ImportCommand.self,
            ExportCommand.self,
        ]
    )

    public init() {}
}

public enum RapidScanVersion {
    public static let current = "0.1.0"
}

/// The executable's entry point: runs `RapidScanCommand` through ArgumentParser's async `main`.
public enum RapidScanEntryPoint {
    public static func run() async {
        await RapidScanCommand.main(nil)
    }
}
