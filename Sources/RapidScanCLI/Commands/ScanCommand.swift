import ArgumentParser

// Placeholder; replaced by the issue that builds `rapidscan scan`.
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "scan", abstract: "(not built yet)")
    func run() async throws { throw ExitCode(70) }
}
