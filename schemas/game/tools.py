"""The game pack's business tools: what a MOBA player does in the client, as a solver agent may call it.

The tools live in one module per part of the product (imported here as `schemas.game.<module>`, the pack
being part of the installed `schemas` package):

| module | tools |
|---|---|
| tools_catalog | heroes, skins, items, runes, seasons and season rewards (read-only catalogue) |
| tools_account | profiles, player search, owned heroes and skins, buying, gifting, equipping skins |
| tools_runes | rune pages and their runes |
| tools_builds | item builds |
| tools_friends | friends, friend requests, special relations |
| tools_clans | clans, members and roles |
| tools_mail | the mailbox, mail rewards, season rewards |
| tools_matches | match history, match details, statistics, rank history |

docs/packs/game.md lists every tool, the policies they enforce and the tables that stay read-only.
"""

from __future__ import annotations

from pipeline.tools import Toolkit
from schemas.game import (
    tools_account,
    tools_builds,
    tools_catalog,
    tools_clans,
    tools_friends,
    tools_mail,
    tools_matches,
    tools_runes,
)

TOOLS = Toolkit(
    [
        # catalogue
        tools_catalog.search_heroes,
        tools_catalog.get_hero,
        tools_catalog.search_skins,
        tools_catalog.search_items,
        tools_catalog.list_runes,
        tools_catalog.list_seasons,
        tools_catalog.get_season_rewards,
        # account, collection and shop
        tools_account.get_player,
        tools_account.search_players,
        tools_account.list_player_heroes,
        tools_account.list_player_skins,
        tools_account.buy_heroes,
        tools_account.buy_skins,
        tools_account.gift_skin,
        tools_account.equip_skin,
        tools_account.unequip_skin,
        # rune pages
        tools_runes.list_rune_pages,
        tools_runes.create_rune_page,
        tools_runes.rename_rune_page,
        tools_runes.set_default_rune_page,
        tools_runes.add_runes_to_page,
        tools_runes.remove_runes_from_page,
        tools_runes.delete_rune_pages,
        # builds
        tools_builds.search_builds,
        tools_builds.create_build,
        tools_builds.copy_build,
        tools_builds.update_build,
        tools_builds.delete_builds,
        tools_builds.replace_build_item,
        # friends
        tools_friends.list_friends,
        tools_friends.list_friend_requests,
        tools_friends.send_friend_requests,
        tools_friends.accept_friend_requests,
        tools_friends.decline_friend_requests,
        tools_friends.cancel_friend_requests,
        tools_friends.remove_friends,
        tools_friends.set_friend_relation,
        # clans
        tools_clans.search_clans,
        tools_clans.get_clan,
        tools_clans.list_clan_members,
        tools_clans.create_clan,
        tools_clans.join_clan,
        tools_clans.leave_clan,
        tools_clans.kick_clan_members,
        tools_clans.set_clan_role,
        tools_clans.transfer_clan_leadership,
        tools_clans.update_clan,
        tools_clans.disband_clan,
        # mail and season rewards
        tools_mail.search_mail,
        tools_mail.mark_mail_read,
        tools_mail.claim_mail_rewards,
        tools_mail.delete_mail,
        tools_mail.send_mail,
        tools_mail.claim_season_rewards,
        # matches and ranks
        tools_matches.search_matches,
        tools_matches.get_match,
        tools_matches.get_player_stats,
        tools_matches.get_rank_history,
    ],
    name="game",
)
