{{ config(materialized='view') }}
-- The rating lists of OUT, one row per player and period, as elo-batch wrote them.
select * from {{ elo_batch_table('ratings') }}
