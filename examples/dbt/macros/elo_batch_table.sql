{#- The source of one table of OUT (ratings, audit) in the form var table_format names: parquet (hive
    folders) or delta (Delta tables); any other value fails the compilation, naming it. -#}
{% macro elo_batch_table(name) -%}
  {%- set table_format = var('table_format') -%}
  {%- if table_format == 'parquet' -%}
    {{ source('elo_batch', name) }}
  {%- elif table_format == 'delta' -%}
    {{ source('elo_batch_delta', name) }}
  {%- else -%}
    {{ exceptions.raise_compiler_error("var table_format is " ~ table_format ~ ": use parquet (hive folders) or delta (--table-format delta)") }}
  {%- endif -%}
{%- endmacro %}

