"""Recipes of the game pack: the offline task generator's programs (docs/tasks.md, "Writing recipes").

One module per part of the product, as the tools are split (`common` holds what they share):

| module | recipes |
|---|---|
| friends | prune the friend list, answer / withdraw requests, special relations, befriend teammates |
| mail | delete / mark / claim mail in bulk, write to the clan leader, claim season rewards |
| clans | kick, promote, demote, hand over, join a clan, fit its size |
| builds | swap an item in builds, delete builds, copy official builds, hide builds |
| collection | rune pages, buying heroes, gifting and wearing skins |
| stories | the default tier: storylines of several dependent steps (friend list, shop, clan, seasons) |

docs/tasks.md ("The game pack's recipes") lists them with their capabilities and infeasible variants.
"""

from __future__ import annotations

from .builds import (
    build_for_most_played_hero,
    copy_top_official_build,
    delete_hero_builds,
    delete_old_private_builds,
    hide_unpopular_builds,
    replace_item_in_builds,
)
from .clans import (
    demote_recent_elders,
    fit_clan_to_members,
    hand_over_to_top_elder,
    join_friends_clan,
    join_strongest_open_clan,
    kick_inactive_members,
    promote_top_contributors,
)
from .collection import (
    buy_heroes_under_price,
    copy_rune_page_without_colour,
    create_rune_page,
    gift_skin_to_closest_friend,
    wear_newest_skins,
)
from .friends import (
    answer_requests_by_note,
    befriend_match_teammates,
    closest_friend_relation,
    decline_requests_before,
    prune_inactive_friends,
    withdraw_old_requests,
)
from .mail import (
    claim_all_mail_rewards,
    claim_every_season_reward,
    claim_one_kind_of_rewards,
    claim_season_rewards,
    claim_then_clear_mailbox,
    delete_old_read_mail,
    mail_clan_leader,
    mark_kind_read_before,
)
from .stories import STORYLINES

WARMUP = [
    prune_inactive_friends,
    decline_requests_before,
    answer_requests_by_note,
    withdraw_old_requests,
    closest_friend_relation,
    befriend_match_teammates,
    delete_old_read_mail,
    claim_all_mail_rewards,
    claim_then_clear_mailbox,
    claim_one_kind_of_rewards,
    mark_kind_read_before,
    mail_clan_leader,
    claim_season_rewards,
    claim_every_season_reward,
    kick_inactive_members,
    promote_top_contributors,
    hand_over_to_top_elder,
    join_friends_clan,
    join_strongest_open_clan,
    fit_clan_to_members,
    demote_recent_elders,
    replace_item_in_builds,
    delete_hero_builds,
    delete_old_private_builds,
    copy_top_official_build,
    build_for_most_played_hero,
    hide_unpopular_builds,
    create_rune_page,
    copy_rune_page_without_colour,
    buy_heroes_under_price,
    gift_skin_to_closest_friend,
    wear_newest_skins,
]
"""The warm-up tier: short, single-step tasks (`generate-tasks --tier warmup`)."""

RECIPES = [story.recipe() for story in STORYLINES]
"""The default tier: composed, long-horizon storylines (stories.py)."""

TIERS = {"long": RECIPES, "warmup": WARMUP}
"""Selectable task sets; the first is the default."""
