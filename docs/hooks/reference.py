"""The site's generated reference: Markdown written from the code at build time (a mkdocs hook; no plugin).

A page holds a marker ``<!-- generated: NAME -->`` where a generated part goes; :func:`on_page_markdown`
replaces it with ``GENERATORS[NAME]()``:

- ``cli``: every command of the typer app (:data:`elo_batch.cli.app.app`, through typer's click command
  tree) with its help, usage, arguments and options;
- ``input-columns``, ``output-columns``, ``audit-values``: the contract's columns as :mod:`elo_batch.columns`
  defines them once (each name's comment is its meaning), the output tables' columns in the order of
  ``RATINGS_OUTPUT``, ``AUDIT_OUTPUT``, ``REJECTED_OUTPUT``; the result tokens of
  :mod:`elo_batch.contract.schemas`;
- ``table-8.1.2``, ``table-8.1.1``, ``bands``: the FIDE tables and the band table as the rule sets read them
  (``elo_batch/rules/*.csv``); ``rules-source``: where each number of the rule sets comes from
  (``elo_batch/rules/SOURCE.md``, as it is);
- ``fide-list``: the columns ``elo-batch import fide-list`` writes and the FIDE header names (TXT) and
  elements (XML) each comes from (:mod:`elo_batch.formats.fidelist`).

Nothing is fetched: the hook reads this checkout. The docstrings' Sphinx roles (``:func:`x```), which
mkdocstrings shows as they are written, are shown as code (:func:`on_page_content`).
"""

from __future__ import annotations

import csv
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"<!-- generated: ([a-z0-9.-]+) -->")
_ROLE = re.compile(r":(?:func|class|mod|data|meth|attr|exc|obj):<code>~?([^<]*)</code>")


def on_config(config: Any) -> Any:
    """Make this checkout's ``elo_batch`` importable (CI installs it; a plain checkout need not)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return config


def on_page_markdown(markdown: str, **_: Any) -> str:
    """The page with each ``<!-- generated: NAME -->`` marker replaced by its generated Markdown."""
    return MARKER.sub(lambda found: GENERATORS[found.group(1)](), markdown)


def on_page_content(html: str, **_: Any) -> str:
    """A docstring's Sphinx role (``:func:`elo_batch.run```) shown as code, its ``~`` path shortened."""
    return _ROLE.sub(lambda found: f"<code>{_short(found.group(1))}</code>", html)


def _short(target: str) -> str:
    return target.rsplit(".", 1)[-1] if target.startswith("elo_batch.") else target


# --- the command line -------------------------------------------------------------------------------


def cli_reference() -> str:
    """Every command of ``elo-batch`` (typer's click tree): its help, usage, arguments and options."""
    import typer.main

    from elo_batch.cli.app import app

    root = typer.main.get_command(app)
    return "\n".join(_command_section(path, command) for path, command in _commands(root, "elo-batch"))


def _commands(command: Any, path: str) -> Iterator[tuple[str, Any]]:
    """(the command's path, the command) for ``command`` and every command below it, in registration order."""
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, f"{path} {name}")


def _command_section(path: str, command: Any) -> str:
    """One command as Markdown. Typer's parameters are those of its own copy of click, told by their
    ``param_type_name``."""
    arguments = [p for p in command.params if p.param_type_name == "argument"]
    options = [p for p in command.params if p.param_type_name == "option" and not p.hidden]
    usage = " ".join([path, *(["[OPTIONS]"] if options else []), *(_argument(a) for a in arguments)])
    if hasattr(command, "commands"):
        usage = f"{path} [OPTIONS] COMMAND [ARGS]..."
    lines = [f"## `{path}`", "", _text(command.help or ""), "", "```", usage, "```", ""]
    if arguments:
        lines += ["| argument | meaning |", "|---|---|"]
        lines += [f"| `{_argument(a)}` | {_cell(getattr(a, 'help', '') or '')} |" for a in arguments]
        lines.append("")
    if options:
        lines += ["| option | value | default | meaning |", "|---|---|---|---|"]
        lines += [_option_row(option) for option in options]
        lines.append("")
    return "\n".join(lines)


def _argument(argument: Any) -> str:
    name = argument.name.upper()
    return f"{name}..." if argument.nargs == -1 else name


def _option_row(option: Any) -> str:
    names = ", ".join(f"`{name}`" for name in [*option.opts, *option.secondary_opts])
    return f"| {names} | {_value(option)} | {_default(option)} | {_cell(option.help or '')} |"


def _value(option: Any) -> str:
    """What the option takes: its choices, a range, its metavar, or the kind of value; a flag takes none."""
    kind = option.type
    if option.is_flag:
        return "flag"
    if hasattr(kind, "choices"):
        return " \\| ".join(f"`{getattr(choice, 'value', choice)}`" for choice in kind.choices)
    if type(kind).__name__ in ("IntRange", "FloatRange"):
        word = "integer" if type(kind).__name__ == "IntRange" else "number"
        low = "" if kind.min is None else f"{kind.min} <= "
        high = "" if kind.max is None else f" <= {kind.max}"
        return f"{word} ({low}x{high})" if low or high else word
    if option.metavar:  # N|P%: each form as code (a pipe escaped inside code would show its backslash)
        return " \\| ".join(f"`{form}`" for form in option.metavar.split("|"))
    return {"INT": "integer", "FLOAT": "number", "BOOL": "true/false"}.get(kind.name.upper(), "text")


def _default(option: Any) -> str:
    if option.required:
        return "required"
    default = getattr(option.default, "value", option.default)  # an Enum default shows its value
    if default is None or default is False or not option.show_default:
        return ""
    return f"`{default}`"


def _text(help_text: str) -> str:
    """Typer's help text as Markdown: rich's escaped brackets unescaped."""
    return help_text.replace("\\[", "[")


def _cell(text: str) -> str:
    """Text for one cell of a Markdown table: one line, pipes escaped."""
    return " ".join(_text(text).split()).replace("|", "\\|")


# --- the contract's columns -------------------------------------------------------------------------

_CONSTANT = re.compile(r'^([A-Z][A-Z0-9_]*) = "([^"]*)"(?:\s*#\s*(.*))?$')
_SECTION = re.compile(r"^# --- (.+?) -+$")


def column_meanings() -> dict[str, tuple[str, str]]:
    """Each column name of :mod:`elo_batch.columns` -> (the section it is defined in, its comment)."""
    section, found = "", {}
    for line in (ROOT / "elo_batch" / "columns.py").read_text(encoding="utf-8").splitlines():
        heading = _SECTION.match(line)
        if heading:
            section = heading.group(1)
        constant = _CONSTANT.match(line)
        if constant and constant.group(2) not in found:
            found[constant.group(2)] = (section, (constant.group(3) or "").strip())
    return found


def _meaning(name: str) -> str:
    return _cell(column_meanings()[name][1])


def _column_table(names: tuple[str, ...] | list[str]) -> str:
    rows = [f"| `{name}` | {_meaning(name)} |" for name in names]
    return "\n".join(["| column | meaning |", "|---|---|", *rows])


def input_columns() -> str:
    """The input columns, section by section as :mod:`elo_batch.columns` groups them, with the result tokens."""
    from elo_batch.contract import schemas

    meanings = column_meanings()
    parts = []
    for section in dict.fromkeys(section for section, _ in meanings.values()):
        if section.startswith(("outputs", "audit")):
            continue
        names = [name for name, (where, _) in meanings.items() if where == section]
        names = [name for name in names if name not in ("tournament", "match")]
        parts += [f"### {section.capitalize()}", "", _column_table(names), ""]
    tokens = {
        "Two-sided results (white's score)": {**schemas.RESULTS, **schemas.FORFEITS},
        "One-sided scores (the player's score)": {**schemas.SCORES, **schemas.ONE_SIDED_FORFEITS},
    }
    forfeits = {*schemas.FORFEITS, *schemas.ONE_SIDED_FORFEITS}
    parts += ["### Result tokens", "", "| token | score | rated |", "|---|---|---|"]
    for label, table in tokens.items():
        parts.append(f"| *{label}* | | |")
        for token, score in table.items():
            rated = "no (forfeit, B.02 5.1)" if token in forfeits else "yes"
            parts.append(f"| `{token}` | {score / 100:g} | {rated} |")
    return "\n".join(parts) + "\n"


def output_columns() -> str:
    """The three output tables' columns, in the order they are written."""
    from elo_batch import columns as c

    tables = {"ratings": c.RATINGS_OUTPUT, "audit": c.AUDIT_OUTPUT, "rejected": c.REJECTED_OUTPUT}
    parts = []
    for table, names in tables.items():
        parts += [f"### `{table}`", "", _column_table(names), ""]
    return "\n".join(parts)


def audit_values() -> str:
    """The values of the audit's ``reason`` and ``event_rule`` columns, as :mod:`elo_batch.columns` names them."""
    meanings = column_meanings()
    parts = []
    for section in dict.fromkeys(section for section, _ in meanings.values()):
        if not section.startswith("audit"):
            continue
        values = [name for name, (where, _) in meanings.items() if where == section]
        rows = [f"| `{value}` | {_cell(note)} |" for value in values for note in [meanings[value][1]]]
        parts += [f"### {section.capitalize()}", "", "| value | note |", "|---|---|", *rows, ""]
    return "\n".join(parts)


# --- the rules as data ------------------------------------------------------------------------------


def _csv_rows(name: str) -> list[dict[str, str]]:
    with (ROOT / "elo_batch" / "rules" / name).open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def table_8_1_2() -> str:
    """FIDE table 8.1.2 (D -> PD) as ``elo_batch/rules/table_8_1_2.csv`` holds it."""
    lines = ["| row | D (after the 400-point rule) | PD higher-rated | PD lower-rated |", "|---:|---|---:|---:|"]
    for row in _csv_rows("table_8_1_2.csv"):
        span = f"{row['d_min']}-{row['d_max']}" if row["d_max"] else f"more than {int(row['d_min']) - 1}"
        high, low = int(row["pd_high"]) / 100, int(row["pd_low"]) / 100
        lines.append(f"| {row['row']} | {span} | {high:.2f} | {low:.2f} |")
    return "\n".join(lines) + "\n"


def table_8_1_1() -> str:
    """FIDE table 8.1.1 (p -> dp) as ``elo_batch/rules/table_8_1_1.csv`` holds it, in four column pairs."""
    pairs = [(int(row["p100"]) / 100, row["dp"]) for row in _csv_rows("table_8_1_1.csv")]
    pairs.sort(reverse=True)
    height = -(-len(pairs) // 4)
    lines = ["| p | dp " * 4 + "|", "|---:|---:" * 4 + "|"]
    for start in range(height):
        cells = [f"| {p:.2f} | {dp} " for p, dp in pairs[start::height]]
        lines.append("".join(cells) + "| | " * (4 - len(cells)) + "|")
    return "\n".join(lines) + "\n"


def rules_source() -> str:
    """``elo_batch/rules/SOURCE.md`` as it is, below its title, its headings one level down."""
    text = (ROOT / "elo_batch" / "rules" / "SOURCE.md").read_text(encoding="utf-8")
    body = text.split("\n", 1)[1] if text.startswith("# ") else text
    return re.sub(r"(?m)^(#+) ", lambda found: f"#{found.group(1)} ", body)


def bands() -> str:
    """The default band table (``elo_batch/rules/bands.csv``), highest band first."""
    rows = sorted(_csv_rows("bands.csv"), key=lambda row: -int(row["min_rating"]))
    lines = ["| band | from rating |", "|---|---:|"]
    lines += [f"| {row['band']} | {row['min_rating']} |" for row in rows]
    return "\n".join(lines) + "\n"


# --- import fide-list -------------------------------------------------------------------------------

#: The columns ``import fide-list`` writes, by the field it reads for each (``fidevalues._written_columns``).
_WRITTEN_NUMBERS = {"id": "player_id", "rating": "rating", "k": "k", "byear": "birth_year"}
_FIDE_HEADERS = ("players_list_foa.txt", "standard_rating_list.txt")


def _spelled() -> dict[str, str]:
    """FIDE's header names (lower case -> as FIDE spells them), from the layouts in tests/data/fidelist."""
    spelled: dict[str, str] = {}
    for name in _FIDE_HEADERS:
        header = (ROOT / "tests" / "data" / "fidelist" / name).read_text(encoding="ascii").splitlines()[0]
        spelled.update({label.lower(): label for label in header.split() if label not in ("Number",)})
    spelled["id number"] = "ID Number"
    return spelled


def fide_list() -> str:
    """Each column ``import fide-list`` writes, with the FIDE TXT header name and XML element it is read from."""
    from elo_batch.formats import fidelist, fidevalues

    spelled = _spelled()
    texts = {raw: name for name, raw in fidevalues.TEXTS.items()}
    written = {**_WRITTEN_NUMBERS, **texts, "games": "fide_games", "flag": "flag"}
    txt = {raw: f"`{spelled.get(label, label)}`" for label, raw in fidelist._TXT.items()}
    xml = {raw: f"`{tag}`" for tag, raw in fidelist._XML.items()}
    single = ("the month, such as `NOV25`", "`Gms`", "`K`")
    for position, raw in enumerate(("rating", "games", "k")):
        combined = " / ".join(
            f"`{spelled.get(labels[position], labels[position])}`" for labels in fidelist._TXT_COMBINED.values()
        )
        txt[raw] = f"{combined} (combined list, by `--list`); {single[position]} (one list)"
        xml[raw] = " / ".join(f"`{tags[position]}`" for tags in fidelist._XML_LISTS.values())
    lines = ["| written column | TXT header | XML element |", "|---|---|---|"]
    lines += [f"| `{name}` | {txt[raw]} | {xml[raw]} |" for raw, name in written.items()]
    lines.append("| `inactive` | from `Flag`: true for `i` and `wi` | from `flag` |")
    standard = spelled.get(fidelist._TXT_COMBINED["standard"][0])
    lines.append(
        f"| `standard_rating` | `{standard}`, when a combined list is read with `--list rapid` or "
        "`--list blitz` | `rating`, likewise |"
    )
    return "\n".join(lines) + "\n"


GENERATORS: dict[str, Callable[[], str]] = {
    "cli": cli_reference,
    "input-columns": input_columns,
    "output-columns": output_columns,
    "audit-values": audit_values,
    "table-8.1.2": table_8_1_2,
    "table-8.1.1": table_8_1_1,
    "bands": bands,
    "rules-source": rules_source,
    "fide-list": fide_list,
}
