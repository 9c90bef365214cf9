// BarcodeReading: see ARCHITECTURE.md
