"""Error classes of elo-batch, each carrying its exit code; never prints or exits.

Exit codes follow ``../shared/spec/interface.md`` (and BSD ``sysexits.h``): 2 usage, 65 bad input
data, 66 input missing or unreadable, 70 internal, 73 output not writable. Only the CLI turns these
errors into exit codes.
"""

from __future__ import annotations


class EloBatchError(Exception):
    """Base class: a failure the user can act on, with a message that says what, where and a hint.

    Attributes:
        exit_code: Process exit status the CLI uses for this error.
        message: What went wrong, without the place and the hint.
        path: Input or output file concerned, if any.
        row: 1-based data row (header not counted) in ``path``, if any.
        column: Column concerned, if any.
        value: The offending value, if any.
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
    ) -> None:
        self.message = message
        self.path = path
        self.row = row
        self.column = column
        self.value = value
        self.hint = hint
        where = ", ".join(
            part
            for part in (
                str(path) if path else "",
                f"row {row}" if row is not None else "",
                (f"option {column}" if column.startswith("-") else f"column {column}") if column else "",
            )
            if part
        )
        text = f"{where}: {message}" if where else message
        if hint:
            text += f"\nHint: {hint}"
        super().__init__(text)


class UsageError(EloBatchError, ValueError):
    """A bad flag or option value (``--period 2025-13``), exit 2."""

    exit_code = 2


class InputDataError(EloBatchError, ValueError):
    """Input data that cannot be rated as given (missing column, bad list row), exit 65."""

    exit_code = 65


class StrictRejectError(InputDataError):
    """``--strict`` and at least one input row was rejected, exit 65."""


class InputMissingError(EloBatchError, OSError):
    """An input file that does not exist or cannot be read, exit 66."""

    exit_code = 66


class OutputError(EloBatchError, OSError):
    """The output location cannot be written, exit 73."""

    exit_code = 73


class InternalError(EloBatchError, RuntimeError):
    """A fault of elo-batch itself, exit 70."""

    exit_code = 70
