"""The period engine as kernels: a pre-pass over the period, a map per chunk of games, a reduce, a finalize.

One period flows through them as follows (each step a pure function over polars frames; numpy adds by
index behind one function, :func:`elo_batch.kernels.sums.add_at`):

1. :func:`prepass.prepare`: the facts that need the whole period become columns and broadcast tables:
   the list in force (with base ratings from the games where there is none), the players' dense
   indices, the period table (with the ``duplicate`` flags set across all input files);
2. map, on each :class:`sides.Chunk` of the period table: :func:`sides.rate_chunk` rates both sides of
   every row against the ratings in force (D, PD, why a side counts or not), and
   :func:`sums.partial_sums` turns them into per-player partial sums in exact integers (and the
   sides that first ratings need);
3. :func:`sums.reduce_sums`: the partial sums of all chunks added by player;
4. :func:`finish.finalize`: K, the 700 rule, the single rounding, the floor, first ratings and the
   next list's state; then :func:`audit.audit` of each chunk from its rated sides and the finalized K.

The result does not depend on how the period table is cut into chunks (``tests/test_kernels.py``).
:mod:`elo_batch.period` is the local engine: these kernels over chunks of ``SUM_ROWS`` rows.
"""
