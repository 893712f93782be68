"""The rating engine: pure polars kernels (pre-pass, map, reduce, finalize) and the FIDE expressions; no I/O."""
