"""Whether OpenLineage is configured, found where openlineage-python's ``OpenLineageClient`` looks for its
configuration, without importing it (an unconfigured run loads nothing of OpenLineage)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

#: The client's configuration file, looked for in the working folder and in ``~/.openlineage``.
CONFIG_FILE = "openlineage.yml"
#: The variables of the client's configuration from the environment (``OPENLINEAGE__TRANSPORT__TYPE=file``).
TRANSPORT_VARIABLES = "OPENLINEAGE__TRANSPORT__"


def configuration(
    environ: Mapping[str, str] | None = None, *, cwd: Path | None = None, home: Path | None = None
) -> str | None:
    """Where OpenLineage's configuration comes from, or None when lineage is off.

    The client's order (openlineage-python 1.x, ``OpenLineageClient.config``): ``OPENLINEAGE_DISABLED=true``
    turns it off; else a readable file named by ``OPENLINEAGE_CONFIG``, else ``openlineage.yml`` in the
    working folder, else ``~/.openlineage/openlineage.yml``; else ``OPENLINEAGE_URL`` (HTTP) or any
    ``OPENLINEAGE__TRANSPORT__*`` variable.

    Args:
        environ: The environment (None: ``os.environ``).
        cwd: The working folder (None: the process's).
        home: The home folder (None: ``~``).

    Returns:
        The file found, or the variable that configures it (for messages: ``OPENLINEAGE__TRANSPORT__TYPE``
        where it is set); None: not configured.

    >>> configuration({"OPENLINEAGE_URL": "http://marquez:5000"}, cwd=Path("/nowhere"), home=Path("/nowhere"))
    'OPENLINEAGE_URL'
    >>> configuration({"OPENLINEAGE_URL": "http://x", "OPENLINEAGE_DISABLED": "true"}) is None
    True
    """
    env = os.environ if environ is None else environ
    if env.get("OPENLINEAGE_DISABLED", "").strip().lower() == "true":
        return None
    files = (env.get("OPENLINEAGE_CONFIG") or None, (cwd or Path.cwd()) / CONFIG_FILE,
             (home or Path.home()) / ".openlineage" / CONFIG_FILE)  # fmt: skip
    for file in files:
        if file and os.path.isfile(file) and os.access(file, os.R_OK):
            return str(file)
    if env.get("OPENLINEAGE_URL"):
        return "OPENLINEAGE_URL"
    transport = sorted(name for name in env if name.startswith(TRANSPORT_VARIABLES))
    return (TRANSPORT_VARIABLES + "TYPE") if TRANSPORT_VARIABLES + "TYPE" in transport else next(iter(transport), None)
