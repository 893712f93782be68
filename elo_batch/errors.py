"""Error classes of elo-batch, each carrying its exit code; never prints or exits.

Exit codes follow ``../shared/spec/interface.md`` (and BSD ``sysexits.h``): 2 usage, 65 bad input
data, 66 input missing or unreadable, 70 internal, 73 output not writable. Only the CLI turns these
errors into exit codes.

A message names an option of the run through :func:`option`: the library's text names it as the
Python keyword (``rule_set='elo'``), the CLI's text (:meth:`EloBatchError.render` with the flags) as
the flag (``--rule-set elo``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

#: Marks an option named in a message: ``\ue000name\ue002``, or ``\ue000name\ue001T text\ue002`` with its
#: value (T: ``s`` text, ``o`` anything else, ``n`` None, no text); private-use characters, never in a
#: message otherwise, resolved whenever the message is rendered.
_OPTION = re.compile("\ue000([A-Za-z0-9_]+)(?:\ue001([son])(.*?))?\ue002", re.DOTALL)


def option(name: str, value: str | bool | int | None = None, *, none: bool = False) -> str:
    """An option of the run, as a message names it: ``name`` is the Python keyword (``rule_set``).

    Rendered as ``rule_set`` or ``rule_set='elo'`` in the library's text, and as the flag
    (``--rule-set``, ``--rule-set elo``; a flag set to True alone) in the CLI's (see
    :meth:`EloBatchError.render`). ``none``: the option set to None, ``ratings=None`` in the library's
    text and ``--ratings none`` in the CLI's.

    >>> error = UsageError(f"{option('rules', 'elo')} and {option('strict', True)} clash")
    >>> str(error)
    "rules='elo' and strict=True clash"
    >>> error.render({})
    '--rules elo and --strict clash'
    >>> Text(f"or {option('ratings', none=True)}").render({})
    'or --ratings none'
    """
    if none:
        return f"\ue000{name}\ue001n\ue002"
    if value is None:
        return f"\ue000{name}\ue002"
    return f"\ue000{name}\ue001{'s' if isinstance(value, str) else 'o'}{value}\ue002"


def _resolve(text: str, flags: Mapping[str, str] | None) -> str:
    def one(match: re.Match[str]) -> str:
        name, kind, value = match.groups()
        if kind == "n":
            value = "None" if flags is None else "none"
        if flags is None:
            return name if kind is None else f"{name}={value!r}" if kind == "s" else f"{name}={value}"
        flag = flags.get(name, "--" + name.replace("_", "-"))
        return flag if kind is None or (kind, value) == ("o", "True") else f"{flag} {value}"

    return _OPTION.sub(one, text)


class Text(str):
    """A message that is not an error (a run's warning) and names options through :func:`option`.

    As a ``str`` it is the library's text (``ratings``); :meth:`render` gives the CLI's (``--ratings``).

    >>> note = Text(f"give the list in force with {option('ratings')}")
    >>> note, note.render({})
    ('give the list in force with ratings', 'give the list in force with --ratings')
    """

    _marked: str

    def __new__(cls, marked: str) -> Text:
        text = super().__new__(cls, _resolve(marked, None))
        text._marked = marked
        return text

    def render(self, flags: Mapping[str, str] | None = None) -> str:
        """The text with options named as flags (``flags`` as for :meth:`EloBatchError.render`)."""
        return _resolve(self._marked, flags)


def render_text(text: str, flags: Mapping[str, str] | None) -> str:
    """``text`` as the CLI shows it: a :class:`Text` with its options as flags, any other text as it is."""
    return text.render(flags) if isinstance(text, Text) else text


class EloBatchError(Exception):
    """Base class: a failure the user can act on, with a message that says what, where and a hint.

    Attributes:
        exit_code: Process exit status the CLI uses for this error.
        message: What went wrong, without the place and the hint.
        path: Input or output file concerned, if any.
        row: 1-based data row (header not counted) in ``path``, if any.
        column: Column concerned, if any.
        value: The offending value, if any.
        hint: What to do about it, if anything (the library's text).
        option: The option (Python keyword, ``period``) whose value is wrong, if any.
    """

    exit_code = 70

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        row: int | None = None,
        column: str | None = None,
        value: object = None,
        hint: str | None = None,
        option: str | None = None,
    ) -> None:
        self._message, self._hint = message, hint
        self.path = path
        self.row = row
        self.column = column
        self.value = value
        self.hint = _resolve(hint, None) if hint else hint
        self.option = option
        super().__init__(self.render())

    @property
    def message(self) -> str:
        """The message alone, without its place (file, row, column, option) and hint."""
        return self._message

    def render(self, flags: Mapping[str, str] | None = None) -> str:
        """The full message: where (file, row, column or option), what, and the hint.

        Args:
            flags: None for the library's text, which names options as Python keywords (``option
                rule_set``); else option keyword -> CLI flag (``{"list_kind": "--list"}``), other
                keywords becoming ``--`` plus the keyword with dashes (``--rule-set``).
        """
        named = None
        if self.option:
            named = "option " + (self.option if flags is None else _resolve(f"\ue000{self.option}\ue002", flags))
        elif self.column and self.column.startswith("-"):
            named = f"option {self.column}"
        elif self.column:
            named = f"column {self.column}"
        where = ", ".join(
            part
            for part in (str(self.path) if self.path else "", f"row {self.row}" if self.row is not None else "", named)
            if part
        )
        text = f"{where}: {self._message}" if where else self._message
        if self._hint:
            text += f"\nHint: {self._hint}"
        return _resolve(text, flags)


class UsageError(EloBatchError, ValueError):
    """A bad flag or option value (``--period 2025-13``), exit 2."""

    exit_code = 2


class InputDataError(EloBatchError, ValueError):
    """Input data that cannot be rated as given (missing column, bad list row), exit 65."""

    exit_code = 65


class StrictRejectError(InputDataError):
    """``--strict`` and at least one input row was rejected, exit 65."""


class NoRatingSourceError(InputDataError):
    """No rating list was named and no game row of the periods rated carries a rating, exit 65: every
    player would start unrated (``--ratings none``, ``ratings=None``, says that is meant)."""


class InputMissingError(EloBatchError, OSError):
    """An input file that does not exist or cannot be read, exit 66."""

    exit_code = 66


class OutputError(EloBatchError, OSError):
    """The output location cannot be written, exit 73."""

    exit_code = 73


class InternalError(EloBatchError, RuntimeError):
    """A fault of elo-batch itself, exit 70."""

    exit_code = 70
