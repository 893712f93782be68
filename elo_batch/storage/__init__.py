"""Where tables lie, below both ``inputs/`` and ``outputs/``: object-store locations and single objects
(:mod:`~elo_batch.storage.objectstore`), a Delta table as elo-batch reads it
(:mod:`~elo_batch.storage.deltatables`), and the CSV formula escape both ways
(:mod:`~elo_batch.storage.formulas`). No rating rules; imports nothing of ``inputs/`` or ``outputs/``."""
