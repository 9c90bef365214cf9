import RapidScanCLI

await RapidScanCommand.main()
