"""The tables of the players behind the seats, declared on the schema's one
:data:`~marrakech.web.store.table_metadata.metadata` (re-exported by
:mod:`marrakech.web.store.schema`, where every table is looked up): accounts and their
credentials, sessions and passkey challenges; the reminders' addresses, mutes, visits,
outbox and keys; push devices; follows, blocks and challenges between players; the
quick-pairing pools. Kept apart from the games' tables only for the length of a file.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Column,
    Double,
    ForeignKey,
    Index,
    Integer,
    SmallInteger,
    Table,
    Text,
    false,
    text,
    true,
)

from marrakech.web.store.table_metadata import metadata

# -- accounts (issue #24) ----------------------------------------------------------------
#
# An account's ``id`` is random and never changes (ratings and seats refer to it); its
# name may be freed by deleting the account. Times are epoch seconds, as for games.

accounts = Table(
    "accounts",
    metadata,
    Column("id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    # The name compared case-insensitively (marrakech.web.accounts.names.name_key);
    # NULL once the account is deleted, so that the name is free again.
    Column("name_key", Text, unique=True),
    # How the name looks (marrakech.web.protocol.name_skeleton: its UTS #39 skeleton,
    # case folded), unique too: two instances cannot both give look-alike names. NULL
    # once deleted, and for an account that looked like an older one before revision
    # 0008_name_skeletons (it keeps its name; the older one keeps the skeleton).
    Column("name_skeleton", Text),
    Column("created", Double, nullable=False),
    Column("deleted", Boolean, nullable=False, server_default=false()),
    Column("deleted_at", Double),
    # When a page of the account's last said it is open (issue 37: friends "online").
    Column("seen", Double),
)

credentials = Table(
    "credentials",
    metadata,
    # ``password:ACCOUNT`` (one password an account) or ``passkey:CREDENTIAL_ID``.
    Column("id", Text, primary_key=True),
    Column("account_id", Text, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("kind", Text, nullable=False),
    # Argon2id, in its own encoded form (parameters and salt included).
    Column("password_hash", Text),
    # A passkey: its credential id and COSE public key (base64url), signature counter
    # and transports (comma-separated).
    Column("credential_id", Text),
    Column("public_key", Text),
    Column("sign_count", Integer, nullable=False, server_default=text("0")),
    Column("transports", Text, nullable=False, server_default=text("''")),
    Column("created", Double, nullable=False),
    Column("last_used", Double),
    CheckConstraint("kind IN ('password', 'passkey')", name="credentials_kind_check"),
)
Index("accounts_by_name_skeleton", accounts.c.name_skeleton, unique=True)

Index("credentials_by_account", credentials.c.account_id)

sessions = Table(
    "sessions",
    metadata,
    # SHA-256 of the cookie's 256 random bits: the database alone signs nobody in.
    Column("token_hash", Text, primary_key=True),
    Column("account_id", Text, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("created", Double, nullable=False),
    Column("last_seen", Double, nullable=False),
    Column("user_agent", Text, nullable=False, server_default=text("''")),
)
Index("sessions_by_account", sessions.c.account_id)
Index("sessions_by_last_seen", sessions.c.last_seen)

challenges = Table(
    "challenges",
    metadata,
    # A WebAuthn ceremony's challenge, kept server-side (any instance may finish it),
    # used once (deleted when used) and only until ``expires``.
    Column("id", Text, primary_key=True),
    Column("purpose", Text, nullable=False),
    Column("challenge", Text, nullable=False),
    # Registering: the account adding a passkey, or the name of the account to create.
    Column("account_id", Text),
    Column("name", Text),
    Column("user_handle", Text),
    Column("expires", Double, nullable=False),
    CheckConstraint("purpose IN ('register', 'authenticate')", name="challenges_purpose_check"),
)
Index("challenges_by_expiry", challenges.c.expires)

# -- reminders (issue 25) -----------------------------------------------------------------
#
# docs/playing.md, "Reminders"; marrakech.web.reminders. An address belongs to an account
# (every game of its seats) or to one guest seat of one game; reminders wait in the outbox
# until a background task of any instance claims and sends them.

mail_addresses = Table(
    "mail_addresses",
    metadata,
    # Random, never reused: the signed links name it.
    Column("id", Text, primary_key=True),
    # ``account:ID`` or ``seat:GAME:SEAT`` (unique: one address each).
    Column("owner", Text, nullable=False, unique=True),
    Column("account_id", Text, ForeignKey("accounts.id", ondelete="CASCADE")),
    Column("game_id", Text, ForeignKey("games.id", ondelete="CASCADE")),
    Column("seat", SmallInteger),
    # A seat's address holds for the token that gave it: a seat opened again and taken
    # by someone else does not send its reminders to the first player.
    Column("token_hash", Text),
    Column("address", Text, nullable=False),
    Column("lang", Text, nullable=False, server_default=text("'en'")),
    # pending (its link not followed yet), verified, unsubscribed, undeliverable.
    Column("status", Text, nullable=False, server_default=text("'pending'")),
    # SHA-256 of the nonces the verify and unsubscribe links carry: each link works once.
    Column("verify_nonce", Text),
    Column("unsubscribe_nonce", Text),
    Column("created", Double, nullable=False),
    Column("changed", Double, nullable=False),
    Column("problem", Text, nullable=False, server_default=text("''")),
    CheckConstraint(
        "status IN ('pending', 'verified', 'unsubscribed', 'undeliverable')",
        name="mail_addresses_status_check",
    ),
)
Index("mail_addresses_by_game", mail_addresses.c.game_id, mail_addresses.c.seat)
Index("mail_addresses_by_account", mail_addresses.c.account_id)

mail_mutes = Table(
    "mail_mutes",
    metadata,
    # A seat's player muted this game's reminders.
    Column("game_id", Text, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("seat", SmallInteger, primary_key=True),
    Column("at", Double, nullable=False),
)

mail_visits = Table(
    "mail_visits",
    metadata,
    # When a seat's player last had the game's page open (opened or closed it): a
    # your-turn reminder is not sent after a visit that saw the turn.
    Column("game_id", Text, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("seat", SmallInteger, primary_key=True),
    Column("at", Double, nullable=False),
)

mail_outbox = Table(
    "mail_outbox",
    metadata,
    # The idempotency key: ``GAME/SEAT/TURN/KIND`` (a reminder) or ``verify/ID/NONCE``:
    # a second insert of one key is a no-op, so nothing is queued (or sent) twice.
    Column("key", Text, primary_key=True),
    Column("kind", Text, nullable=False),
    Column("address_id", Text, ForeignKey("mail_addresses.id", ondelete="CASCADE")),
    Column("game_id", Text),
    Column("seat", SmallInteger),
    Column("turn", Integer),
    # A verify message's link (its token) until it is sent; then cleared.
    Column("link", Text),
    # A push's device (push_subscriptions.id; its kind is ``push:KIND``), else NULL.
    Column("subscription_id", Text),
    Column("due", Double, nullable=False),
    # queued, sending (claimed until ``claimed_until``), sent, skipped, failed.
    Column("status", Text, nullable=False, server_default=text("'queued'")),
    Column("claimed_by", Text),
    Column("claimed_until", Double, nullable=False, server_default=text("0")),
    Column("attempts", Integer, nullable=False, server_default=text("0")),
    Column("created", Double, nullable=False),
    Column("done_at", Double),
    Column("problem", Text, nullable=False, server_default=text("''")),
    CheckConstraint(
        "status IN ('queued', 'sending', 'sent', 'skipped', 'failed')",
        name="mail_outbox_status_check",
    ),
)
Index("mail_outbox_due", mail_outbox.c.status, mail_outbox.c.due)
Index("mail_outbox_by_game", mail_outbox.c.game_id, mail_outbox.c.seat)

mail_keys = Table(
    "mail_keys",
    metadata,
    # The keys that sign the links (``links``) and the device cookies (``devices``, issue
    # 36), each made once, on first use, shared by every instance.
    Column("name", Text, primary_key=True),
    Column("secret", Text, nullable=False),
)

# -- push notifications (issue 37) -------------------------------------------------------
#
# docs/web.md, "Push notifications"; marrakech.web.reminders.webpush. A browser's push
# subscription, given by a signed-in account on one device, for the kinds it opts in to.

push_subscriptions = Table(
    "push_subscriptions",
    metadata,
    Column("id", Text, primary_key=True),
    # The push service's URL for this browser (a capability: whoever has it may push).
    Column("endpoint", Text, nullable=False, unique=True),
    # RFC 8291's keys, base64url: the browser's P-256 public key and the auth secret.
    Column("p256dh", Text, nullable=False),
    Column("auth", Text, nullable=False),
    Column("account_id", Text, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    # The kinds opted in to, space-separated (marrakech.web.reminders.webpush.PUSH_KINDS).
    Column("kinds", Text, nullable=False),
    Column("lang", Text, nullable=False, server_default=text("'en'")),
    Column("created", Double, nullable=False),
)
Index("push_subscriptions_by_account", push_subscriptions.c.account_id)

# -- friends and challenges (issue 37, item 2; docs/web.md, "Friends and challenges") ----
follows = Table(
    "follows",
    metadata,
    Column("follower", Text, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("followed", Text, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("at", Double, nullable=False),
)
blocks = Table(
    "blocks",
    metadata,
    Column("blocker", Text, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("blocked", Text, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("at", Double, nullable=False),
)
Index("follows_by_followed", follows.c.followed)
Index("blocks_by_blocked", blocks.c.blocked)
# A challenge (status open, accepted, declined or cancelled) with its game's settings
# (JSON); once accepted, its game and each player's seat token (purged a day after).
game_challenges = Table(
    "game_challenges",
    metadata,
    Column("id", Text, primary_key=True),
    Column("challenger", Text, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("challenged", Text, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("settings", Text, nullable=False),
    Column("created", Double, nullable=False),
    Column("expires", Double, nullable=False),
    Column("status", Text, nullable=False, server_default=text("'open'")),
    Column("decided", Double),
    Column("game_id", Text),
    Column("challenger_token", Text),
    Column("challenged_token", Text),
)
Index("game_challenges_by_challenged", game_challenges.c.challenged, game_challenges.c.status)
Index("game_challenges_by_challenger", game_challenges.c.challenger, game_challenges.c.status)

# -- quick pairing (issue 37): docs/web.md, "Quick pairing"; marrakech.web.pools --------
# A row a player waiting in a pool (``relaxed:casual``: its clock, rated or not), on the
# instance of their socket; the pools' lease holder writes each table's game, seat and
# token (or refusal) into its players' rows, which their instance hands them and deletes.
pool_entries = Table(
    "pool_entries",
    metadata,
    Column("id", Text, primary_key=True),
    Column("pool", Text, nullable=False),
    Column("sizes", Text, nullable=False),  # "2", "2 3 4" (any)
    Column("player", Text, nullable=False, unique=True),  # account:<id>, guest:<ticket>
    Column("account_id", Text),
    Column("address", Text, nullable=False),
    Column("name", Text, nullable=False, server_default=text("''")),
    Column("rating", Double, nullable=False),
    Column("level", Text, nullable=False),  # the bots' level that fills the table
    Column("bots", Boolean, nullable=False, server_default=true()),
    Column("lang", Text, nullable=False, server_default=text("'en'")),
    Column("instance", Text, nullable=False),
    Column("joined", Double, nullable=False),
    Column("seen", Double, nullable=False),
    Column("misses", Integer, nullable=False, server_default=text("0")),
    Column("game_id", Text),  # '' while the table's game is being made
    Column("seat", Integer),
    Column("token", Text),
    Column("refusal", Text),
)
Index("pool_entries_by_instance", pool_entries.c.instance)
# The instance that runs the waves until ``until``, and when its last wave ran.
pool_lease = Table(
    "pool_lease",
    metadata,
    Column("name", Text, primary_key=True),
    Column("owner", Text, nullable=False),
    Column("until", Double, nullable=False),
    Column("last_wave", Double, nullable=False, server_default=text("0")),
)

__all__ = [
    "accounts",
    "blocks",
    "challenges",
    "credentials",
    "follows",
    "game_challenges",
    "mail_addresses",
    "mail_keys",
    "mail_mutes",
    "mail_outbox",
    "mail_visits",
    "pool_entries",
    "pool_lease",
    "push_subscriptions",
    "sessions",
]
