// BookLookup: see ARCHITECTURE.md
