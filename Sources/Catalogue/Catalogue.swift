// Catalogue: see ARCHITECTURE.md
