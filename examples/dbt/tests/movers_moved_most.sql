-- biggest_movers keeps the period's largest changes: no player left out of a period's movers changed by
-- more points than the last mover kept (the rows returned fail the test).
with last_kept as (
    select period, min(abs(change)) as smallest
    from {{ ref('biggest_movers') }}
    group by period
)

select ratings.period, ratings.player_id, ratings.change
from {{ ref('elo_ratings') }} as ratings
join last_kept on last_kept.period = ratings.period
left join {{ ref('biggest_movers') }} as movers
    on movers.period = ratings.period and movers.player_id = ratings.player_id
where movers.player_id is null and abs(ratings.change) > last_kept.smallest
