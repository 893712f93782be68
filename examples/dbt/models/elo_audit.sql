{{ config(materialized='view') }}
-- The audit of OUT, one row per game and side, `period` from the partition.
select * from {{ elo_batch_table('audit') }}
