import RapidScanCLI

// Top-level code resolves `main()` to ArgumentParser's synchronous overload, which
// refuses an async root command; the entry point calls the async one explicitly.
await RapidScanEntryPoint.run()
