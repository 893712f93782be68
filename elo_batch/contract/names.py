"""Keeps the columns of a user's file apart from the columns elo-batch adds: one reserved namespace and
one reversible escape; no data handling.

elo-batch adds columns to the tables it reads: the reader's ``source_file`` and ``source_row``, and the
working columns of the checks and of the engine, whose names all begin with ``__`` (``__ragged__``,
``__failed``, ``__idx``, ...: :mod:`elo_batch.working` names them). Those names are reserved. A
user's column whose name is reserved, or begins with the escape mark ``~``, is renamed where its file
is read by putting a ``~`` in front:
``__raw_result`` is held as ``~__raw_result``, ``source_row`` as ``~source_row``, ``~x`` as ``~~x``.
The escape is one-to-one, so that two user columns never become one and no user column ever meets a
column of elo-batch; :func:`unescape` gives the name back wherever the user sees it again (the rating
list's pass-through columns in the new list, the ``raw`` record of a rejected row, messages).

>>> escape("__raw_result"), escape("source_row"), escape("name")
('~__raw_result', '~source_row', 'name')
>>> unescape(escape("~x"))
'~x'
"""

from __future__ import annotations

import re

from elo_batch.columns import SOURCE_FILE, SOURCE_ROW
from elo_batch.working import PREFIX

#: Put in front of a user's column name that is reserved.
ESCAPE = "~"
#: Columns the reader adds to every table it reads.
READER_COLUMNS = (SOURCE_FILE, SOURCE_ROW)


def is_reserved(name: str) -> bool:
    """A name that a user's column may not hold as it is (see the module docstring)."""
    return name.startswith((PREFIX, ESCAPE)) or name in READER_COLUMNS


def escape(name: str) -> str:
    """A user's column name as elo-batch holds it: with ``~`` in front when :func:`is_reserved`."""
    return ESCAPE + name if is_reserved(name) else name


def unescape(name: str) -> str:
    """The user's own name of a column held as :func:`escape` made it."""
    return name[len(ESCAPE) :] if name.startswith(ESCAPE) else name


def normalise(name: str) -> str:
    """A column name as written, normalised: trimmed (a byte-order mark too), lower case, spaces and dashes
    as underscores (then :func:`escape` makes it the name a table holds)."""
    return re.sub(r"[\s\-]+", "_", name.strip().lstrip("\ufeff").strip().lower())
