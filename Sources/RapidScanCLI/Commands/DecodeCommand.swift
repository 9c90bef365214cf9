import ArgumentParser

// Placeholder; replaced by the issue that builds `rapidscan decode`.
struct DecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "decode", abstract: "(not built yet)")
    func run() async throws { throw ExitCode(70) }
}
