import ArgumentParser
import RapidScanConfig

/// `rapidscan scna photos`: the subcommand a mistyped word was probably meant to be, for the
/// usage error (the entry point's error path).
enum CommandSuggestion {
    /// The first word of `arguments` that is not a subcommand where one was expected, and the
    /// nearest subcommand name (at most two letters off), as `rapidscan scan`; nil when the
    /// words name commands or nothing is near.
    static func nearest(to arguments: [String], root: any ParsableCommand.Type = RapidScanCommand.self)
        -> (typed: String, suggestion: String)? {
        var command = root
        var path = [root._commandName]
        for word in arguments {
            // Options, or words after a command without subcommands, are that command's arguments.
            let subcommands = command.configuration.subcommands.filter { $0.configuration.shouldDisplay }
            guard !word.hasPrefix("-"), !subcommands.isEmpty else { return nil }
            if let next = command.configuration.subcommands.first(where: { $0._commandName == word || $0.configuration.aliases.contains(word) }) {
                command = next
                path.append(word)
                continue
            }
            let names = subcommands.map { $0._commandName } + (path.count == 1 ? ["help"] : [])
            let scored = names.map { (name: $0, distance: editDistance($0, word.lowercased())) }
                .filter { $0.distance <= 2 && $0.distance < word.count }
            guard let best = scored.min(by: { $0.distance < $1.distance }) else { return nil }
            return (word, (path + [best.name]).joined(separator: " "))
        }
        return nil
    }
}
