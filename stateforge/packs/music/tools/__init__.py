"""The music pack's business tools: what a listener (or the support agent acting for one) can do in the
app, shaped like the product's API rather than its tables.

The tools live in modules beside this file, one area each, and are listed here in the order clients see
them: the catalogue and charts, people and accounts, billing, the library, listening, playlists and
comments. Every write tool acts for one listener, named by username (or e-mail address), and refuses what
the pack's policies (domain.yaml `policies`) forbid, naming the policy. docs/packs/music.md describes them.
"""

from __future__ import annotations

from .account import (
    close_account,
    find_users,
    get_profile,
    list_devices,
    register_device,
    remove_device,
    sign_out_devices,
    update_profile,
)
from .billing import (
    cancel_subscription,
    change_plan,
    get_subscription,
    list_payments,
    list_plans,
    pay_overdue,
    refund_payment,
    set_auto_renew,
    subscribe,
)
from .catalog import (
    get_album,
    get_artist,
    get_song,
    list_artist_albums,
    list_genres,
    search_albums,
    search_artists,
    search_songs,
)
from .charts import get_chart, list_charts
from .comments import delete_comments, edit_comment, list_comments, post_comment
from .history import (
    delete_listening_history,
    get_listening_history,
    listening_stats,
    play_song,
)
from .library import (
    follow_artists,
    like_songs,
    list_followed_artists,
    list_liked_songs,
    set_artist_notifications,
    unfollow_artists,
    unlike_songs,
)
from .playlist_songs import (
    add_songs_to_playlist,
    duplicate_playlist,
    move_playlist_song,
    remove_songs_from_playlist,
    sort_playlist,
)
from .playlists import (
    create_playlist,
    delete_playlist,
    get_playlist,
    search_playlists,
    update_playlist,
)

TOOLS = [
    # the catalogue and the charts
    search_songs,
    get_song,
    search_albums,
    get_album,
    search_artists,
    get_artist,
    list_artist_albums,
    list_genres,
    list_charts,
    get_chart,
    # people, accounts and devices
    find_users,
    get_profile,
    update_profile,
    close_account,
    list_devices,
    register_device,
    sign_out_devices,
    remove_device,
    # plans, subscriptions and payments
    list_plans,
    get_subscription,
    subscribe,
    change_plan,
    cancel_subscription,
    set_auto_renew,
    pay_overdue,
    list_payments,
    refund_payment,
    # the library
    list_liked_songs,
    like_songs,
    unlike_songs,
    list_followed_artists,
    follow_artists,
    unfollow_artists,
    set_artist_notifications,
    # listening
    play_song,
    get_listening_history,
    listening_stats,
    delete_listening_history,
    # playlists
    search_playlists,
    get_playlist,
    create_playlist,
    update_playlist,
    delete_playlist,
    add_songs_to_playlist,
    remove_songs_from_playlist,
    move_playlist_song,
    sort_playlist,
    duplicate_playlist,
    # comments
    list_comments,
    post_comment,
    edit_comment,
    delete_comments,
]
