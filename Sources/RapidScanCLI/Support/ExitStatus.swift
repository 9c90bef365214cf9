import ArgumentParser

/// Exit statuses shared by the commands (sysexits-style; ArgumentParser already exits 64 on
/// a usage error). When several apply, the most serious wins: failure over partial.
enum ExitStatus {
    /// Everything asked for was done.
    static let success = ExitCode(0)
    /// Some input could not be read at all (missing, unreadable, corrupt).
    static let inputError = ExitCode(1)
    /// Every input was read, but some held nothing usable (e.g. a photo without a barcode).
    static let partial = ExitCode(4)
    /// Bad command line (EX_USAGE).
    static let usage = ExitCode(64)
}
