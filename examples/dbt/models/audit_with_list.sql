-- The audit joined to the list: each game side of a period beside the player's and the opponent's rows
-- of that period's new rating list (status, new rating, the period's change). Every player the audit
-- names is on the list of the period (listed, met in the games, or newly rated); a one-sided row without
-- an opponent_id has no opponent columns.
select
    audit.period,
    audit.game_id,
    audit.event_id,
    audit.round,
    audit.date,
    audit.player_id,
    audit.opponent_id,
    audit.colour,
    audit.rating,
    audit.opponent_rating,
    audit.rating_diff,
    audit.capped,
    audit.expected_score,
    audit.score,
    audit.k_used,
    audit.k_change,
    audit.counted,
    audit.reason,
    player.status as player_status,
    player.rating as player_rating_after,
    player.change as player_change,
    opponent.status as opponent_status,
    opponent.rating as opponent_rating_after
from {{ ref('elo_audit') }} as audit
left join {{ ref('elo_ratings') }} as player
    on player.period = audit.period and player.player_id = audit.player_id
left join {{ ref('elo_ratings') }} as opponent
    on opponent.period = audit.period and opponent.player_id = audit.opponent_id
