"""Writing results: the atomic partition writer, its lock, encodings, object stores, DuckDB and Delta."""
