"""The contract between the layers: the tables' types (:mod:`~elo_batch.contract.schemas`), the names a
user's columns are held under (:mod:`~elo_batch.contract.names`), and the records the inputs hand the
engine (:mod:`~elo_batch.contract.tables`). Below both ``engine/`` and ``inputs/``: imports only polars and
:mod:`elo_batch.columns` / :mod:`elo_batch.working`."""
