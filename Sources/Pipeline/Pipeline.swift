// Pipeline: see ARCHITECTURE.md
