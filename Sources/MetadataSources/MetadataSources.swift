// MetadataSources: see ARCHITECTURE.md
