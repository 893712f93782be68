"""OpenLineage run events of ``elo-batch run``: off unless OpenLineage is configured the standard way.

``config`` finds the configuration as openlineage-python's client does, without importing it;
``tracking`` (what the job layer calls) emits nothing and imports nothing of OpenLineage when there is
none; ``events`` (imported only when configured) builds START, COMPLETE (from each period's manifest),
FAIL and ABORT events and emits them. A lineage failure never fails the run: it is logged once.
"""
