"""A run's lineage as the job layer drives it: START when the run begins, each period once written, then
COMPLETE, FAIL or ABORT; a no-op that imports nothing of OpenLineage when it is not configured.

Library code: never prints, exits or fails the run for lineage's sake; what goes wrong is logged once
(logger ``elo_batch.lineage``, which the CLI prints on stderr).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from elo_batch.lineage.config import configuration

LOG = logging.getLogger("elo_batch.lineage")
#: Called once a period is written, with its manifest (as written) and its outputs (table -> file).
OnWritten = Callable[[Mapping[str, Any], Mapping[str, str]], None]


def _ignore(manifest: Mapping[str, Any], outputs: Mapping[str, str]) -> None:
    """What a run without lineage does with a period written: nothing."""


@contextlib.contextmanager
def tracked(out: str, periods: tuple[str, ...]) -> Iterator[OnWritten]:
    """The lineage of one run into ``out``: inside the block, the run; it is given the callback to call
    with each period written.

    Unconfigured (:func:`elo_batch.lineage.config.configuration`): nothing is imported or emitted. Else
    START on entry; on exit COMPLETE built from the periods' manifests (inputs: the game files and the
    list; outputs: the tables under ``out``), FAIL for an error (its message and exit code; the periods
    written before it), ABORT for SIGINT or SIGTERM; the error goes on as it came.

    Args:
        out: The run's output folder or object-store URI.
        periods: The periods of the run, in order (``YYYY-MM``).

    Yields:
        The callback of a period written (:data:`OnWritten`).
    """
    where = configuration()
    lineage = _start(where, out, periods) if where else None
    if lineage is None:
        yield _ignore
        return
    written: list[tuple[Mapping[str, Any], Mapping[str, str]]] = []
    try:
        yield lambda manifest, outputs: written.append((manifest, outputs))
    except BaseException as error:
        lineage.end(written, error)
        raise
    lineage.end(written, None)


def _start(where: str, out: str, periods: tuple[str, ...]) -> Any:
    """The run's lineage (:class:`elo_batch.lineage.events.RunLineage`), its START emitted; None, logged,
    when openlineage-python is not installed or its client cannot be made."""
    try:
        from elo_batch.lineage import events
    except ImportError as error:
        LOG.warning(
            "OpenLineage is configured (%s) but cannot be used (%s): this run emits no lineage events. "
            "Hint: pip install 'elo-batch[lineage]'.", where, error,
        )  # fmt: skip
        return None
    return events.RunLineage.start(where, out=out, periods=periods)
