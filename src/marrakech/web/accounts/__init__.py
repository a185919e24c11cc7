"""Optional accounts (issue #24): a name that lasts beyond one game.

Anyone still plays at once without one. An account signs in with a passkey
(:mod:`~marrakech.web.accounts.passkeys`, WebAuthn) or a password
(:mod:`~marrakech.web.accounts.passwords`, Argon2id), keeps a session cookie
(:mod:`~marrakech.web.accounts.sessions`), and gathers the seats it plays, those its
device played as a guest included (claimed). :mod:`~marrakech.web.accounts.service`
holds what an account can do, on the store; :mod:`~marrakech.web.accounts.routes` its
HTTP API; :mod:`~marrakech.web.accounts.names` the names' rules.
"""
