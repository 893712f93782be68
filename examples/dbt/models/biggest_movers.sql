-- The month's biggest movers: per period, the var('movers') players whose rating changed most, by the
-- size of `change` (the rounded change of the period, rating points); gains before losses of the same
-- size, then by player_id. Only rated players move: a first rating (status new) and an unrated player
-- have no change, and a player without a rated game changed by 0.
with moved as (
    select
        period,
        player_id,
        rating_before,
        rating,
        change,
        case when change > 0 then 'up' else 'down' end as direction,
        games,
        score,
        expected_score,
        k_used,
        status,
        band,
        row_number() over (
            partition by period order by abs(change) desc, change desc, player_id
        ) as mover_rank
    from {{ ref('elo_ratings') }}
    where change <> 0
)

select * from moved
where mover_rank <= {{ var('movers') }}
