"""The game pack's business tools: what a MOBA player does in the client, as a solver agent may call it.

The tools live in one module per part of the product (relative imports: the pack loads
as a package wherever its folder lives):

| module | tools |
|---|---|
| catalog | heroes, skins, items, runes, seasons and season rewards (read-only catalogue) |
| account | profiles, player search, owned heroes and skins, buying, gifting, equipping skins |
| runes | rune pages and their runes |
| builds | item builds |
| friends | friends, friend requests, special relations |
| clans | clans, members and roles |
| mail | the mailbox, mail rewards, season rewards |
| matches | match history, match details, statistics, rank history |

docs/packs/game.md lists every tool, the policies they enforce and the tables that stay read-only.
"""

from __future__ import annotations

from stateforge.tools import Toolkit

from . import (
    account,
    builds,
    catalog,
    clans,
    friends,
    mail,
    matches,
    runes,
)

TOOLS = Toolkit(
    [
        # catalogue
        catalog.search_heroes,
        catalog.get_hero,
        catalog.search_skins,
        catalog.search_items,
        catalog.list_runes,
        catalog.list_seasons,
        catalog.get_season_rewards,
        # account, collection and shop
        account.get_player,
        account.search_players,
        account.list_player_heroes,
        account.list_player_skins,
        account.buy_heroes,
        account.buy_skins,
        account.gift_skin,
        account.equip_skin,
        account.unequip_skin,
        # rune pages
        runes.list_rune_pages,
        runes.create_rune_page,
        runes.rename_rune_page,
        runes.set_default_rune_page,
        runes.add_runes_to_page,
        runes.remove_runes_from_page,
        runes.delete_rune_pages,
        # builds
        builds.search_builds,
        builds.create_build,
        builds.copy_build,
        builds.update_build,
        builds.delete_builds,
        builds.replace_build_item,
        # friends
        friends.list_friends,
        friends.list_friend_requests,
        friends.send_friend_requests,
        friends.accept_friend_requests,
        friends.decline_friend_requests,
        friends.cancel_friend_requests,
        friends.remove_friends,
        friends.set_friend_relation,
        # clans
        clans.search_clans,
        clans.get_clan,
        clans.list_clan_members,
        clans.create_clan,
        clans.join_clan,
        clans.leave_clan,
        clans.kick_clan_members,
        clans.set_clan_role,
        clans.transfer_clan_leadership,
        clans.update_clan,
        clans.disband_clan,
        # mail and season rewards
        mail.search_mail,
        mail.mark_mail_read,
        mail.claim_mail_rewards,
        mail.delete_mail,
        mail.send_mail,
        mail.claim_season_rewards,
        # matches and ranks
        matches.search_matches,
        matches.get_match,
        matches.get_player_stats,
        matches.get_rank_history,
    ],
    name="game",
)
