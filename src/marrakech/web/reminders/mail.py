"""The reminders' messages, in the player's language (English or French): plain text
and HTML as ``multipart/alternative``, with RFC 8058's one-click unsubscribe headers
on every reminder::

    >>> message = compose(
    ...     Letter("your_turn", "fr", "ana@example.org", game_url="https://m.example/g/g1",
    ...            unsubscribe_url="https://m.example/mail/unsubscribe?t=x", opponents="Bob"),
    ...     "Marrakech <games@m.example>")
    >>> message["Subject"], message.get_content_type()
    ('Marrakech : à vous de jouer', 'multipart/alternative')
    >>> message["List-Unsubscribe-Post"]
    'List-Unsubscribe=One-Click'
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from typing import Literal

Kind = Literal["verify", "your_turn", "deadline"]

WORDS: dict[str, dict[str, str]] = {
    "en": {
        "verify.subject": "Marrakech: confirm your email address",
        "verify.body": (
            "Someone (you, we hope) asked for Marrakech reminders at this address.\n"
            "To confirm it, open this link within two days:"
        ),
        "verify.button": "Confirm my address",
        "verify.ignore": "If it was not you, ignore this message: nothing will be sent.",
        "your_turn.subject": "Marrakech: your turn",
        "your_turn.body": "It is your turn in your game of Marrakech with {opponents}.",
        "deadline.subject": "Marrakech: your time runs out soon",
        "deadline.body": (
            "Your time to play in your game of Marrakech with {opponents} runs out "
            "{when} (at {at} UTC). Past it, a bot plays for you."
        ),
        "in.hours": "in about {n} hours",
        "in.hour": "in about an hour",
        "in.minutes": "in about {n} minutes",
        "play": "Play now",
        "why": "You get this email because you asked for reminders of your Marrakech games.",
        "mute": "To stop the reminders of this game only, use the game's menu.",
        "unsubscribe": "Unsubscribe from every reminder",
        "others": "the other players",
    },
    "fr": {
        "verify.subject": "Marrakech : confirmez votre adresse",
        "verify.body": (
            "Quelqu’un (vous, espérons-le) a demandé les rappels de Marrakech à cette "
            "adresse.\nPour la confirmer, ouvrez ce lien d’ici deux jours :"
        ),
        "verify.button": "Confirmer mon adresse",
        "verify.ignore": "Si ce n’était pas vous, ignorez ce message : rien ne sera envoyé.",
        "your_turn.subject": "Marrakech : à vous de jouer",
        "your_turn.body": "C’est votre tour dans votre partie de Marrakech avec {opponents}.",
        "deadline.subject": "Marrakech : votre temps s’achève bientôt",
        "deadline.body": (
            "Votre temps pour jouer dans votre partie de Marrakech avec {opponents} "
            "s’achève {when} (à {at} UTC). Ensuite, un robot joue pour vous."
        ),
        "in.hours": "dans {n} heures environ",
        "in.hour": "dans une heure environ",
        "in.minutes": "dans {n} minutes environ",
        "play": "Jouer maintenant",
        "why": "Vous recevez ce message car vous avez demandé les rappels de vos parties de "
        "Marrakech.",
        "mute": "Pour arrêter les rappels de cette partie seulement, passez par le menu de la "
        "partie.",
        "unsubscribe": "Se désabonner de tous les rappels",
        "others": "les autres joueurs",
    },
}


def words(lang: str) -> dict[str, str]:
    """The messages' words in ``lang`` (English for any other)."""
    return WORDS.get(lang, WORDS["en"])


def time_left(seconds: float, lang: str) -> str:
    """How long until the deadline, roughly.

    >>> time_left(6 * 3600 + 100, "en"), time_left(50 * 60, "fr")
    ('in about 6 hours', 'dans 50 minutes environ')
    """
    w = words(lang)
    minutes = max(1, round(seconds / 60))
    if minutes < 55:
        return w["in.minutes"].format(n=minutes)
    hours = round(minutes / 60)
    return w["in.hour"] if hours <= 1 else w["in.hours"].format(n=hours)


@dataclass(frozen=True)
class Letter:
    """What one message says: its kind, language and recipient, the links, and for a
    reminder the other players' names and the deadline."""

    kind: Kind
    lang: str
    to: str
    game_url: str = ""
    verify_url: str = ""
    unsubscribe_url: str = ""
    opponents: str = ""
    deadline: float = 0.0
    now: float = 0.0


def _paragraphs(letter: Letter) -> tuple[str, list[str], str, str]:
    """Subject, paragraphs, the button's words and its link."""
    w = words(letter.lang)
    if letter.kind == "verify":
        return (
            w["verify.subject"],
            [w["verify.body"], w["verify.ignore"]],
            w["verify.button"],
            letter.verify_url,
        )
    opponents = letter.opponents or w["others"]
    if letter.kind == "your_turn":
        body = w["your_turn.body"].format(opponents=opponents)
    else:
        at = datetime.fromtimestamp(letter.deadline, UTC).strftime("%Y-%m-%d %H:%M")
        when = time_left(letter.deadline - letter.now, letter.lang)
        body = w["deadline.body"].format(opponents=opponents, when=when, at=at)
    return w[f"{letter.kind}.subject"], [body], w["play"], letter.game_url


def compose(letter: Letter, mail_from: str) -> EmailMessage:
    """The message: plain text first, then its HTML twin."""
    w = words(letter.lang)
    subject, paragraphs, button, link = _paragraphs(letter)
    message = EmailMessage()
    message["From"] = mail_from
    message["To"] = letter.to
    message["Subject"] = subject
    message["Date"] = format_datetime(datetime.now(UTC))
    message["Message-ID"] = make_msgid(domain=mail_from.rsplit("@", 1)[-1].rstrip(">"))
    message["Auto-Submitted"] = "auto-generated"
    footer: list[str] = []
    if letter.kind != "verify":
        # RFC 8058: the mail client may POST "List-Unsubscribe=One-Click" to the link.
        message["List-Unsubscribe"] = f"<{letter.unsubscribe_url}>"
        message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
        footer = [w["why"], w["mute"]]
    text = "\n\n".join([*paragraphs[:1], f"{button}: {link}", *paragraphs[1:], *footer])
    if letter.kind != "verify":
        text += f"\n{w['unsubscribe']}: {letter.unsubscribe_url}"
    message.set_content(text + "\n")
    e = html.escape
    parts = [f"<p>{e(p).replace(chr(10), '<br>')}</p>" for p in paragraphs[:1]]
    parts.append(
        f'<p><a href="{e(link)}" style="display:inline-block;padding:10px 16px;'
        f'background:#8a2b0e;color:#fff;text-decoration:none;border-radius:6px">{e(button)}</a></p>'
    )
    parts += [f"<p>{e(p)}</p>" for p in paragraphs[1:]]
    if footer:
        parts.append(
            f'<p style="color:#666;font-size:90%">{e(footer[0])} {e(footer[1])}<br>'
            f'<a href="{e(letter.unsubscribe_url)}">{e(w["unsubscribe"])}</a></p>'
        )
    body = "\n".join(parts)
    message.add_alternative(
        f'<!doctype html>\n<html lang="{e(letter.lang)}"><head><meta charset="utf-8">'
        f"<title>{e(subject)}</title></head>\n<body>\n{body}\n</body></html>\n",
        subtype="html",
    )
    # After the parts: making them moves every Content-* header into the first part.
    message["Content-Language"] = letter.lang
    return message
