// Imaging: see ARCHITECTURE.md
