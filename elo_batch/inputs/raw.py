"""The ``raw`` of a rejected row: the input row as a JSON object of its values as text, under the file's
own names; a row of a CSV file with more or fewer fields than its header (a ragged row) holds its own
fields only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import polars as pl

from elo_batch import columns as c
from elo_batch.contract.names import ESCAPE, unescape
from elo_batch.inputs.cellbound import cut
from elo_batch.inputs.cells import cell_text
from elo_batch.inputs.gamerules import GAME_COLUMNS

#: The long form of ragged rows' fields (:func:`fields_raw`): ``field`` 1-based; ``name`` the held name of
#: its column, null past the header; ``value`` the cell as the file's other cells are kept (trimmed, empty
#: = null).
FIELDS_SCHEMA = pl.Schema({c.SOURCE_ROW: pl.Int64, "field": pl.Int64, "name": pl.String, "value": pl.String})

#: What :func:`fields_raw` gives: the ``raw`` of each ragged row.
RAGGED_RAW_SCHEMA = pl.Schema({c.SOURCE_ROW: pl.Int64, c.RAW: pl.String})


@dataclass(frozen=True)
class WholeRows:
    """Whole rows of a file, for the ``raw`` of its rejected rows.

    Attributes:
        frame: The rows whose fields are the header's: every column (held names), then ``source_row``.
        ragged: The rows of a CSV file with more or fewer fields than its header, as ``raw`` already
            (:data:`RAGGED_RAW_SCHEMA`, from :func:`fields_raw`); empty for Parquet files and frames.
    """

    frame: pl.DataFrame
    ragged: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=RAGGED_RAW_SCHEMA))


def raw_json(schema: pl.Schema, columns: list[str], names: Mapping[str, str] | None = None) -> pl.Expr:
    """The ``raw`` of rejected rows: the input row as a JSON object of its values as text (see
    :func:`elo_batch.inputs.cells.cell_text`), under the file's own (unescaped) names (``names``: held
    name -> the file's own name where a column mapping renamed it); a text cell of a used column longer
    than the limit cut (:func:`elo_batch.inputs.cellbound.cut`)."""
    own = names or {}

    def text(name: str) -> pl.Expr:
        return (
            cut(cell_text(schema, name))
            if name in GAME_COLUMNS and schema[name] == pl.String
            else cell_text(schema, name)
        )

    fields = [text(name).alias(own.get(name, unescape(name))) for name in columns]
    return pl.struct(fields).struct.json_encode().alias(c.RAW)


def fields_raw(fields: pl.DataFrame) -> pl.DataFrame:
    """The ``raw`` of ragged rows from their own fields: a JSON object of the fields a row has, in its
    order, under the file's own names (as :func:`raw_json` names them); a field past the header under its
    position (``"#6"`` for a sixth field under five names), none of the header's missing names.

    Args:
        fields: A row per field (:data:`FIELDS_SCHEMA`), a row's fields together and in order.

    Returns:
        A row per ragged row (:data:`RAGGED_RAW_SCHEMA`), in the order of ``fields``: its width, not the
        header's, decides what a row costs (a short row under a wide header is a short object).
    """
    name, value = pl.col("name"), pl.col("value")
    own = _json_text(name.str.strip_prefix(ESCAPE))  # the name as unescape gives it
    key = pl.when(name.is_not_null()).then(own).otherwise(pl.format('"#{}"', pl.col("field")))
    text = pl.when(name.is_in(GAME_COLUMNS)).then(cut(value).str.strip_chars()).otherwise(value)
    pair = pl.concat_str(key, pl.lit(":"), _json_text(text))
    return (
        fields.group_by(c.SOURCE_ROW, maintain_order=True)
        .agg(pair.str.join(",").alias("pairs"))
        .select(pl.col(c.SOURCE_ROW), pl.format("{{{}}}", pl.col("pairs")).alias(c.RAW))
    )


def _json_text(text: pl.Expr) -> pl.Expr:
    """A text value as JSON writes it (``null`` for null), by polars' own JSON encoder, as :func:`raw_json`."""
    encoded = pl.struct(text.alias("v")).struct.json_encode()  # {"v":...}
    return encoded.str.slice(5, encoded.str.len_chars() - 6)
