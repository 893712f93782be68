"""Which files an input names: paths, globs and folders expanded to CSV and Parquet files, in a stable order."""

from __future__ import annotations

import glob
import os

from elo_batch.errors import InputMissingError

CSV_SUFFIXES = (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz", ".txt.gz")
PARQUET_SUFFIXES = (".parquet", ".pq")


def unreadable(exc: OSError, path: str) -> InputMissingError:
    """The error (exit 66) for an input file that exists in the listing but cannot be read."""
    return InputMissingError(
        f"cannot read the file ({exc.strerror or exc})",
        path=path,
        hint="check that the file exists and that this user may read it.",
    )


def expand_paths(paths: list[str] | tuple[str, ...], *, exclude: tuple[str, ...] = ()) -> list[str]:
    """Files named by paths, globs or folders, in a stable order.

    Args:
        paths: Files, glob patterns (``games/*.csv``) or folders (all CSV and Parquet files inside,
            recursively, sorted by path; hidden files and folders, whose names start with ``.``, are
            skipped, like a warehouse does).
        exclude: Files or folders that a folder or a glob must not pick up (the run's own rating list
            and output folder when they sit inside the games folder). Files named one by one are kept.

    Returns:
        File paths, folders and globs expanded in sorted order; a file named more than once (by
        another spelling, a link, or a glob) is kept once, in its first place.

    Raises:
        InputMissingError: a path does not exist, a folder cannot be listed, or a glob or folder holds
            no CSV or Parquet file.
    """
    skip = [os.path.abspath(path) for path in exclude]
    found = [path for given in paths for path in _expand_one(given, skip)]
    unique: dict[str, str] = {}
    for path in found:  # one file named twice (./g.csv and g.csv, a path and a glob) is read once
        unique.setdefault(os.path.realpath(path), path)
    return list(unique.values())


def _expand_one(given: str, skip: list[str]) -> list[str]:
    """The files one path, glob or folder names, in sorted order; none under ``skip`` (absolute paths)
    from a folder or a glob.

    Raises:
        InputMissingError: as :func:`expand_paths`.
    """
    if os.path.isdir(given):
        inside = [path for path in _data_files(given) if _wanted(path, skip)]
        if not inside:
            raise InputMissingError(
                "folder holds no .csv or .parquet file",
                path=given,
                hint="name the files, or point at the folder that holds them.",
            )
        return inside
    if os.path.exists(given):
        return [given]
    if glob.has_magic(given):
        matched = sorted(p for p in glob.glob(given, recursive=True) if os.path.isfile(p) and _wanted(p, skip))
        if not matched:
            raise InputMissingError("no file matches this pattern", path=given)
        return matched
    raise InputMissingError("no such file", path=given, hint="check the path; globs must be quoted.")


def _wanted(path: str, skip: list[str]) -> bool:
    """Whether ``path`` is neither one of ``skip`` (absolute paths) nor inside one."""
    full = os.path.abspath(path)
    return not any(full == other or full.startswith(other + os.sep) for other in skip)


def _data_files(folder: str) -> list[str]:
    def refuse(exc: OSError) -> None:
        raise InputMissingError(f"cannot list the folder ({exc.strerror or exc})", path=exc.filename or folder)

    files: list[str] = []
    for top, dirs, names in os.walk(folder, onerror=refuse):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        files.extend(
            os.path.join(top, name)
            for name in names
            if not name.startswith(".") and name.lower().endswith(CSV_SUFFIXES + PARQUET_SUFFIXES)
        )
    return sorted(files)
