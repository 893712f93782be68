"""pytest's collection of the package's doctests (``--doctest-modules``): a module that needs an optional
extra is left out where the extra is missing, as the tests of that extra skip (``elo_batch/lineage/events.py``
imports openlineage-python, ``pip install 'elo-batch[lineage]'``; only a configured run imports it)."""

import importlib.util

collect_ignore = [] if importlib.util.find_spec("openlineage") else ["elo_batch/lineage/events.py"]
