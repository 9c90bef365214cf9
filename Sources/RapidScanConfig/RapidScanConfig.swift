// RapidScanConfig: see ARCHITECTURE.md
