// BookCodes: see ARCHITECTURE.md
