"""The job layer: one run of the pipeline, from the inputs read and checked to each period written.

``pipeline`` (read and check once, settle events, rate each period over an engine), ``runner`` (one run
under OUT's lock, each period written; ``validate``), ``reading`` (a run's inputs and the ``Engine``
protocol), ``writing`` (one rated period written: partitions, manifest, Delta, DuckDB), ``rated`` (the
public ``PeriodResult``), ``sources`` (the API's sources as the readers take them), ``sanity`` and
``guards`` (warnings about likely mistakes, the run-level guards). The public API (:mod:`elo_batch.api`)
and the CLI drive it; the engines (``engine/``, ``sparkengine/``) never import it, but the Spark engine
uses what the pipeline hands its engines (``reading``, ``sources``, ``rated``, ``sanity``).
"""
