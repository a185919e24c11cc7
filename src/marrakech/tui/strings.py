"""The terminal interface's own words, in English and French.

Game-log sentences, colour and seat names come from :mod:`marrakech.i18n`; this table
holds only what belongs to this interface (prompts, keys, dialogs, the help page)::

    >>> t("prompt.orient", "fr", seat="Rouge")
    'Rouge : tournez Assam (← ↑ → ↓ ou G T D), puis Espace pour lancer le dé.'
    >>> t("setup.start", "xx")
    'Start'
"""

from __future__ import annotations

import errno

LANGUAGE_NAMES = {"en": "English", "fr": "Français"}

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "app.title": "Marrakech",
        "setup.title": "New game",
        "setup.players": "Players",
        "setup.seat": "Seat {n}",
        "setup.human": "Human",
        "setup.bot": "Bot: {level}",
        "setup.rules": "Rule set",
        "setup.rules.custom": "custom ({token})",
        "setup.first": "Who was the last to holiday in Morocco? They start (R4).",
        "setup.random": "Nobody knows: draw at random",
        "setup.lang": "Language",
        "setup.start": "Start",
        "setup.load": "Load a game…",
        "setup.replay": "Watch a record…",
        "setup.quit": "Quit",
        "level.easy": "easy",
        # The seat panels say the level's name; the setup screen says what it is.
        "level.learned": "learned",
        "setup.level.learned": "learned (neural network)",
        "level.medium": "medium",
        "level.hard": "hard",
        "level.expert": "expert",
        "seat.human": "human",
        "seat.bot": "bot {level}",
        "panel.dirhams.one": "{count} dirham",
        "panel.dirhams.other": "{count} dirhams",
        "panel.carpets.one": "{count} carpet",
        "panel.carpets.other": "{count} carpets",
        "panel.score": "score",
        "panel.next": "next",
        "panel.unknown": "?",
        "panel.eliminated": "eliminated",
        "panel.turn": "to play",
        "panel.winner": "wins",
        "prompt.orient": "{seat}: turn Assam (← ↑ → ↓ or L S R), then Space to roll.",
        "expect.orient": "Now orient Assam: ← ↑ → ↓ or L S R, then Space to roll.",
        "expect.place": (
            "Now place your carpet: Tab or → for the next placement, Enter to place it."
        ),
        "role.turn_left": "{name} turns Assam a quarter left, while orienting.",
        "role.turn_straight": "{name} keeps Assam facing ahead, while orienting.",
        "role.turn_right": "{name} turns Assam a quarter right, while orienting.",
        "role.roll": "{name} rolls the die, while orienting.",
        "role.next": "{name} shows the next legal placement, while placing.",
        "role.prev": "{name} shows the previous legal placement, while placing.",
        "role.end": "{name} shows the end screen again, once the game is over.",
        "role.quit": "{name} quits once the game is over (Ctrl+Q quits now).",
        "key.space": "Space",
        "key.tab": "Tab",
        "key.shift+tab": "Shift+Tab",
        "notice.wrong_key": "{role} {expected}",
        "role.square": (
            "{name} is for typing a square such as b3, to place your carpet, while placing."
        ),
        "prompt.typed_letter": "{seat}: {letter}… now its number (1 to 7).",
        "prompt.typed_first": (
            "{seat}: {square}, then the other square of the carpet, or Enter to place {token}."
        ),
        "notice.not_adjacent": (
            "{first} and {second} are not side by side: a carpet covers two squares next to "
            "each other (R14)."
        ),
        "notice.not_legal": "{token} is not a legal placement now. Those on {first}: {legal}.",
        "notice.number_first": "Type a square as its letter, then its number: b3.",
        "outlook.title": "Assam facing {facing}, the die:",
        "outlook.roll": "{steps} ({chance}) → {square}: ",
        "outlook.free": "nothing to pay",
        "outlook.pay": "pay {due} to {payee}",
        "outlook.out": "you owe {due} to {payee}, pay your {paid} and are out (R13)",
        "outlook.expected": "Expected tithe: {amount}.",
        "outlook.nothing": "Nothing to pay, whatever the roll.",
        "outlook.risk": "Risk of elimination: {chance}.",
        "amount.one": "{amount} dirham",
        "amount.other": "{amount} dirhams",
        "prompt.place": (
            "{seat}: place your {colour} carpet on {token} ({index}/{count}). "
            "Tab or → for the next, Enter to confirm."
        ),
        "prompt.bot": "{seat} ({who}) is thinking…",
        "prompt.walk": "{seat} rolled {steps}. Assam walks…",
        "prompt.draw": "{seat} turns over the top carpet of the pile…",
        "prompt.over": "Game over. N for a new game, S to save, Q to quit, E for the results.",
        "prompt.wait": "…",
        "button.left": "⟲ Left",
        "button.straight": "↑ Straight",
        "button.right": "⟳ Right",
        "button.roll": "⚄ Roll",
        "button.prev": "◀ Previous",
        "button.next": "Next ▶",
        "button.place": "✔ Place",
        "keys.game": "[b]?[/] help|[b]^s[/] save|[b]^l[/] français|[b]^q[/] quit",
        "keys.undo": "[b]u[/] undo",
        "keys.setup": (
            "[b]Tab[/] next choice|[b]Enter[/] open or press|[b]↑ ↓[/] choose|"
            "[b]Space[/] tick|[b]?[/] help|[b]Esc[/] quit|[b]^l[/] français"
        ),
        "key.escape": "Esc",
        "notice.quit_keys": "Ctrl+Q quits (Ctrl+C does not).",
        "keys.replay": (
            "[b]←/→[/] step|[b]Space[/] play/pause|[b]q[/] back|[b]?[/] help|"
            "[b]p[/] play from here|[b]Home/End[/] start/end|[b]PgUp/PgDn[/] ten"
        ),
        "notice.not_your_turn": "Not your turn: please wait.",
        "notice.speed": "Animation: {speed} (F2 for another speed, Esc skips to your turn).",
        "speed.slow": "slow",
        "speed.normal": "normal",
        "speed.fast": "fast",
        "speed.instant": "instant",
        "setup.speed": "Animation",
        "setup.hints": "Hints",
        "setup.hints.on": "allowed: H advises your decision",
        "setup.hints.off": "off",
        "hint.thinking": "Hint: thinking…",
        "hint.line": "Hint: {decision} – {chance} to win",
        "hint.chance": "{percent}%",
        "hint.turn.left": "turn left",
        "hint.turn.straight": "keep straight",
        "hint.turn.right": "turn right",
        "hint.other.left": "left",
        "hint.other.straight": "straight",
        "hint.other.right": "right",
        "hint.then": "then {options}",
        "expect.hint": "H for a hint.",
        "keys.hint": "[b]h[/] hint",
        "notice.hint_off": "Hints are off in this game (the setup screen's choice).",
        "notice.hint_not_yours": "A hint is for your own decision: wait for your turn.",
        "notice.hint_over": "The game is over: no decision left to advise.",
        "notice.hint_error": "No hint: {error}",
        "end.hints": "Hints",
        "notice.too_small": (
            "The terminal is too small: need {need}, have {have}. "
            "Enlarge the window (or make the font smaller)."
        ),
        "notice.busy": "Wait until Assam has finished walking.",
        "notice.undo_humans": "Undo is only offered when you are the only human at the table.",
        "notice.undo_nothing": "Nothing to take back yet.",
        "notice.undone.one": (
            "Took back {count} action: decide again. The die and the piles keep what they gave."
        ),
        "notice.undone.other": (
            "Took back {count} actions: decide again. The die and the piles keep what they gave."
        ),
        "notice.saved": "Saved to {path}",
        "notice.loaded.one": "Loaded {path} ({count} action).",
        "notice.loaded.other": "Loaded {path} ({count} actions).",
        "notice.no_click": "No legal carpet placement covers {square}.",
        "notice.bad_facing": "Assam never makes a half turn (R9).",
        "notice.bot_error": "The bot of {seat} failed: {error}",
        "notice.unnamed.one": "The record names nobody for {seats}: a human plays that seat.",
        "notice.unnamed.other": "The record names nobody for {seats}: humans play these seats.",
        "error.seat": (
            "This record seats the bot '{bot}' at {seat}, which cannot play here: {reason}"
        ),
        "dialog.save": "Save the game record (JSON) as:",
        "dialog.load": "Open a game record (JSON):",
        "dialog.replay": "Watch a game record (JSON):",
        "dialog.ok": "OK",
        "dialog.pick": "Or pick it below (Tab, then ↑ ↓ and Enter):",
        "confirm.quit": "This game is not saved (Ctrl+S saves it). Quit anyway?",
        "confirm.new": "This game is not saved (Ctrl+S saves it). Leave it for a new game?",
        "confirm.load": "This game is not saved (Ctrl+S saves it). Leave it for another?",
        "confirm.yes": "Leave the game",
        "confirm.no": "Keep playing (Esc)",
        "dialog.cancel": "Cancel",
        "error.save": "Cannot save {path}: {reason}",
        "error.open": "Cannot open {path}: {reason}",
        "reason.missing": "no such file or folder",
        "reason.folder": "it is a folder",
        "reason.not_folder": "a part of the path is not a folder",
        "reason.denied": "permission denied",
        "reason.full": "no space left on the disk",
        "reason.read_only": "the disk is read-only",
        "reason.long": "the name is too long",
        "reason.name": "not a usable file name",
        "reason.system": "system error {code}",
        "reason.utf8": "not UTF-8 text (byte 0x{byte:02x} at position {position})",
        "reason.record": "not a game record this version can read",
        "reason.bot": "a bot this version does not have, or settings it refuses",
        "reason.no_games": "arena results with no game yet",
        "reason.several_games": "arena results of {count} games: open it to pick one",
        "dialog.pick_game": "{path} holds arena results of {count} games. Which one?",
        "picker.game": "Game {index}: {bots} · {count} actions · won by {winners}",
        "end.title": "Game over",
        "end.winner": "{seat} wins!",
        "end.shared": "Shared win: {seats}.",
        "end.none": "Nobody wins.",
        "end.rank": "Rank",
        "end.seat": "Seat",
        "end.score": "Score",
        "end.dirhams": "Dirhams",
        "end.squares": "Squares",
        "end.out": "out",
        "end.new": "New game",
        "end.save": "Save",
        "end.board": "Show the board",
        "end.quit": "Quit",
        "replay.title": "Replay: {position}/{count}",
        "replay.start": "Start of the game.",
        "status.turn": "Turn of {seat}",
        "status.rules": "rules: {rules}",
        "status.players": "{players} players",
        "help.title": "Help",
        "help.close": "Close (Esc)",
        "help.body": """\
# Marrakech

Merchants lay carpets in the market; the one with the most **dirhams plus visible carpet
squares** wins (R20).

## A turn
1. **Orient** Assam: keep his facing or turn him a quarter left or right, never a half
   turn (R9).
2. **Roll** the die (1, 2, 2, 3, 3, 4) and Assam walks that many squares straight ahead
   (R10). Off the edge, he follows the **border arc** onto the neighbouring square and
   turns back in; at the corners a1 and g7 he loops round (R2).
3. **Pay**: if he stops on an opponent's carpet, you pay one dirham per square of the
   region of that colour joined to his square (R11). Cannot pay? You pay all you have
   and are out (R13).
4. **Place** a carpet on two adjacent squares, one beside Assam, never under him (R14,
   R15), and never exactly over both halves of one carpet (R16).

At 2 players each seat plays two colours from a shuffled pile and must place its top
carpet (R7). The game ends when the carpets run out (R19); ties go to the richer
player (R21). Rule set `bga` gives 15 carpets each at 3 players and allows covering your
own carpet (R31).

## Keys
| Key | Action |
|---|---|
| ← ↑ → ↓ | face West, North, East, South (while orienting) |
| L S R (or G T D) | turn left, keep straight, turn right |
| Space or Enter | roll the die |
| Tab , → , ↓ or N | next legal placement |
| Shift+Tab , ← , ↑ or P | previous legal placement |
| a–g then 1–7 | type a square (b3), then the other (c3; b3 - c3 works too) |
| Enter | place the previewed carpet |
| click | a square beside Assam: face it; Assam: roll |
| click | a square: preview a placement there (again: the next) |
| H | a hint: the decision a short search advises, selected for you (Enter plays it) |
| U or Ctrl+Z | undo (one human at the table): back to your last decision, same rolls |
| Esc | skip the animation up to your turn (while placing: forget what is typed) |
| F2 | animation speed: slow, normal, fast, instant |
| Ctrl+S / Ctrl+O | save / load a game record |
| Ctrl+N | new game (asks first if the game is not saved) |
| Ctrl+L | switch English / French |
| ? or F1 | this help |
| E | the end screen again, once the game is over |
| N / S / Q | once the game is over: new game, save, quit |
| Ctrl+Q | quit (asks first if the game is not saved) |

The end screen: N new game, S save, U undo, Esc or B the board, Q quit. It counts the
hints each human asked for (hints are allowed unless the setup screen turned them off).

## Replays
`marrakech play --replay FILE`, or *Watch a record…* on the setup screen:

| Key | Action |
|---|---|
| ← → (or ↑ ↓ , H L) | one action back, one on |
| PgUp / PgDn | ten actions back, ten on |
| Home / End | the start, the end |
| Space | play or pause |
| P | play on from the position shown |
| Q or Esc | leave |

On the board each carpet shows its colour letter (**R**ed, **B**lue, **Y**ellow,
**P**urple); the two visible halves of one carpet share one box. Heavy lines mark the
placement you are previewing and the region a tithe was paid on.
""",
    },
    "fr": {
        "app.title": "Marrakech",
        "setup.title": "Nouvelle partie",
        "setup.players": "Joueurs",
        "setup.seat": "Siège {n}",
        "setup.human": "Humain",
        "setup.bot": "Robot : {level}",
        "setup.rules": "Règles",
        "setup.rules.custom": "personnalisées ({token})",
        "setup.first": "Qui est allé au Maroc le plus récemment ? Il commence (R4).",
        "setup.random": "Personne ne sait : tirage au sort",
        "setup.lang": "Langue",
        "setup.start": "Commencer",
        "setup.load": "Charger une partie…",
        "setup.replay": "Revoir une partie…",
        "setup.quit": "Quitter",
        "level.easy": "facile",
        "level.learned": "appris",
        "setup.level.learned": "appris (réseau de neurones)",
        "level.medium": "moyen",
        "level.hard": "difficile",
        "level.expert": "expert",
        "seat.human": "humain",
        "seat.bot": "robot {level}",
        "panel.dirhams.one": "{count} dirham",
        "panel.dirhams.other": "{count} dirhams",
        "panel.carpets.one": "{count} tapis",
        "panel.carpets.other": "{count} tapis",
        "panel.score": "score",
        "panel.next": "suivant",
        "panel.unknown": "?",
        "panel.eliminated": "éliminé",
        "panel.turn": "à jouer",
        "panel.winner": "gagne",
        "prompt.orient": (
            "{seat} : tournez Assam (← ↑ → ↓ ou G T D), puis Espace pour lancer le dé."
        ),
        "expect.orient": "Orientez Assam : ← ↑ → ↓ ou G T D, puis Espace pour lancer le dé.",
        "expect.place": (
            "Posez votre tapis : Tab ou → pour la pose suivante, Entrée pour la valider."
        ),
        "role.turn_left": "{name} tourne Assam d’un quart à gauche, pendant l’orientation.",
        "role.turn_straight": "{name} laisse Assam face à sa direction, pendant l’orientation.",
        "role.turn_right": "{name} tourne Assam d’un quart à droite, pendant l’orientation.",
        "role.roll": "{name} lance le dé, pendant l’orientation.",
        "role.next": "{name} montre la pose autorisée suivante, pendant la pose.",
        "role.prev": "{name} montre la pose autorisée précédente, pendant la pose.",
        "role.end": "{name} remontre l’écran de fin, une fois la partie terminée.",
        "role.quit": "{name} quitte une fois la partie terminée (Ctrl+Q quitte tout de suite).",
        "key.space": "Espace",
        "key.tab": "Tab",
        "key.shift+tab": "Maj+Tab",
        "notice.wrong_key": "{role} {expected}",
        "role.square": (
            "{name} sert à taper une case comme b3, pour choisir où poser, pendant la pose."
        ),
        "prompt.typed_letter": "{seat} : {letter}… puis son numéro (1 à 7).",
        "prompt.typed_first": (
            "{seat} : {square}, puis l’autre case du tapis, ou Entrée pour poser {token}."
        ),
        "notice.not_adjacent": (
            "{first} et {second} ne sont pas côte à côte : un tapis couvre deux cases voisines "
            "(R14)."
        ),
        "notice.not_legal": (
            "{token} n’est pas une pose autorisée. Les poses sur {first} : {legal}."
        ),
        "notice.number_first": "Tapez une case par sa lettre, puis son numéro : b3.",
        "outlook.title": "Assam tourné {facing}, le dé :",
        "outlook.roll": "{steps} ({chance}) → {square} : ",
        "outlook.free": "rien à payer",
        "outlook.pay": "payer {due} à {payee}",
        "outlook.out": "vous devez {due} à {payee}, payez vos {paid} et êtes éliminé (R13)",
        "outlook.expected": "Tribut attendu : {amount}.",
        "outlook.nothing": "Rien à payer, quel que soit le dé.",
        "outlook.risk": "Risque d’élimination : {chance}.",
        "amount.one": "{amount} dirham",
        "amount.other": "{amount} dirhams",
        "prompt.place": (
            "{seat} : posez votre tapis {colour} sur {token} ({index}/{count}). "
            "Tab ou → pour le suivant, Entrée pour valider."
        ),
        "prompt.bot": "{seat} ({who}) réfléchit…",
        "prompt.walk": "{seat} a fait {steps}. Assam avance…",
        "prompt.draw": "{seat} retourne le tapis du dessus de sa pile…",
        "prompt.over": (
            "Partie terminée. N pour une nouvelle partie, S pour enregistrer, Q pour quitter, "
            "E pour les résultats."
        ),
        "prompt.wait": "…",
        "button.left": "⟲ Gauche",
        "button.straight": "↑ Tout droit",
        "button.right": "⟳ Droite",
        "button.roll": "⚄ Lancer",
        "button.prev": "◀ Précédent",
        "button.next": "Suivant ▶",
        "button.place": "✔ Poser",
        "keys.game": "[b]?[/] aide|[b]^s[/] enregistrer|[b]^l[/] English|[b]^q[/] quitter",
        "keys.undo": "[b]u[/] annuler",
        "keys.setup": (
            "[b]Tab[/] choix suivant|[b]Entrée[/] ouvrir ou valider|[b]↑ ↓[/] choisir|"
            "[b]Espace[/] cocher|[b]?[/] aide|[b]Échap[/] quitter|[b]^l[/] English"
        ),
        "key.escape": "Échap",
        "notice.quit_keys": "Ctrl+Q pour quitter (Ctrl+C ne quitte pas).",
        "keys.replay": (
            "[b]←/→[/] pas à pas|[b]Espace[/] lecture/pause|[b]q[/] retour|[b]?[/] aide|"
            "[b]p[/] jouer d’ici|[b]Début/Fin[/] début/fin|[b]PgPréc/PgSuiv[/] dix"
        ),
        "notice.not_your_turn": "Ce n’est pas votre tour : patientez.",
        "notice.speed": (
            "Animation : {speed} (F2 pour une autre vitesse, Échap passe à votre tour)."
        ),
        "speed.slow": "lente",
        "speed.normal": "normale",
        "speed.fast": "rapide",
        "speed.instant": "instantanée",
        "setup.speed": "Animation",
        "setup.hints": "Conseils",
        "setup.hints.on": "permis : H conseille votre décision",
        "setup.hints.off": "non",
        "hint.thinking": "Conseil : réflexion…",
        "hint.line": "Conseil : {decision} – {chance} de chances de gagner",
        "hint.chance": "{percent}\u00a0%",  # a no-break space: never cut from its number
        "hint.turn.left": "tourner à gauche",
        "hint.turn.straight": "tout droit",
        "hint.turn.right": "tourner à droite",
        "hint.other.left": "à gauche",
        "hint.other.straight": "tout droit",
        "hint.other.right": "à droite",
        "hint.then": "puis {options}",
        "expect.hint": "H pour un conseil.",
        "keys.hint": "[b]h[/] conseil",
        "notice.hint_off": "Pas de conseils dans cette partie (le choix de l’écran de départ).",
        "notice.hint_not_yours": "Un conseil est pour votre propre décision : attendez votre tour.",
        "notice.hint_over": "La partie est terminée : plus de décision à conseiller.",
        "notice.hint_error": "Pas de conseil : {error}",
        "end.hints": "Conseils",
        "notice.too_small": (
            "Le terminal est trop petit : il faut {need}, il y a {have}. "
            "Agrandissez la fenêtre (ou réduisez la police)."
        ),
        "notice.busy": "Attendez qu’Assam ait fini de marcher.",
        "notice.undo_humans": (
            "L’annulation n’est proposée que si vous êtes le seul humain à la table."
        ),
        "notice.undo_nothing": "Rien à annuler pour l’instant.",
        "notice.undone.one": (
            "{count} action annulée : à vous de décider à nouveau. Le dé et les piles gardent "
            "ce qu’ils ont donné."
        ),
        "notice.undone.other": (
            "{count} actions annulées : à vous de décider à nouveau. Le dé et les piles gardent "
            "ce qu’ils ont donné."
        ),
        "notice.saved": "Enregistré dans {path}",
        "notice.loaded.one": "{path} chargé ({count} action).",
        "notice.loaded.other": "{path} chargé ({count} actions).",
        "notice.no_click": "Aucune pose de tapis autorisée ne couvre {square}.",
        "notice.bad_facing": "Assam ne fait jamais demi-tour (R9).",
        "notice.bot_error": "Le robot de {seat} a échoué : {error}",
        "notice.unnamed.one": (
            "La partie enregistrée ne nomme personne pour {seats} : un humain joue ce siège."
        ),
        "notice.unnamed.other": (
            "La partie enregistrée ne nomme personne pour {seats} : des humains jouent ces sièges."
        ),
        "error.seat": (
            "Cette partie place le robot « {bot} » à {seat}, qui ne peut pas jouer ici : {reason}"
        ),
        "dialog.save": "Enregistrer la partie (JSON) sous :",
        "dialog.load": "Ouvrir une partie enregistrée (JSON) :",
        "dialog.replay": "Revoir une partie enregistrée (JSON) :",
        "dialog.ok": "OK",
        "dialog.pick": "Ou choisissez-le ci-dessous (Tab, puis ↑ ↓ et Entrée) :",
        "confirm.quit": (
            "Cette partie n’est pas enregistrée (Ctrl+S l’enregistre). Quitter quand même ?"
        ),
        "confirm.new": (
            "Cette partie n’est pas enregistrée (Ctrl+S l’enregistre). "
            "L’abandonner pour une nouvelle ?"
        ),
        "confirm.load": (
            "Cette partie n’est pas enregistrée (Ctrl+S l’enregistre). "
            "L’abandonner pour une autre ?"
        ),
        "confirm.yes": "Abandonner la partie",
        "confirm.no": "Continuer à jouer (Échap)",
        "dialog.cancel": "Annuler",
        "error.save": "Impossible d’enregistrer {path} : {reason}",
        "error.open": "Impossible d’ouvrir {path} : {reason}",
        "reason.missing": "fichier ou dossier introuvable",
        "reason.folder": "c’est un dossier",
        "reason.not_folder": "une partie du chemin n’est pas un dossier",
        "reason.denied": "permission refusée",
        "reason.full": "plus de place sur le disque",
        "reason.read_only": "le disque est en lecture seule",
        "reason.long": "le nom est trop long",
        "reason.name": "ce n’est pas un nom de fichier utilisable",
        "reason.system": "erreur du système {code}",
        "reason.utf8": "ce n’est pas du texte UTF-8 (octet 0x{byte:02x} à la position {position})",
        "reason.record": "ce n’est pas une partie enregistrée que cette version sait lire",
        "reason.bot": "un robot que cette version n’a pas, ou des réglages qu’elle refuse",
        "reason.no_games": "des résultats d’arène sans aucune partie",
        "reason.several_games": (
            "des résultats d’arène de {count} parties : ouvrez-le pour en choisir une"
        ),
        "dialog.pick_game": "{path} contient des résultats d’arène de {count} parties. Laquelle ?",
        "picker.game": "Partie {index} : {bots} · {count} actions · gagnée par {winners}",
        "end.title": "Partie terminée",
        "end.winner": "{seat} gagne !",
        "end.shared": "Victoire partagée : {seats}.",
        "end.none": "Personne ne gagne.",
        "end.rank": "Rang",
        "end.seat": "Siège",
        "end.score": "Score",
        "end.dirhams": "Dirhams",
        "end.squares": "Cases",
        "end.out": "éliminé",
        "end.new": "Nouvelle partie",
        "end.save": "Enregistrer",
        "end.board": "Voir le plateau",
        "end.quit": "Quitter",
        "replay.title": "Revoir : {position}/{count}",
        "replay.start": "Début de la partie.",
        "status.turn": "Tour de {seat}",
        "status.rules": "règles : {rules}",
        "status.players": "{players} joueurs",
        "help.title": "Aide",
        "help.close": "Fermer (Échap)",
        "help.body": """\
# Marrakech

Les marchands posent des tapis au souk ; le plus riche en **dirhams plus cases de tapis
visibles** gagne (R20).

## Un tour
1. **Orienter** Assam : le laisser face à sa direction ou le tourner d’un quart à gauche
   ou à droite, jamais de demi-tour (R9).
2. **Lancer** le dé (1, 2, 2, 3, 3, 4) : Assam avance d’autant de cases tout droit (R10).
   Au bord du plateau, il suit l’**arc de bordure** vers la case voisine et repart vers
   l’intérieur ; aux coins a1 et g7 il fait une boucle (R2).
3. **Payer** : s’il s’arrête sur le tapis d’un adversaire, vous payez un dirham par case
   de la zone de cette couleur reliée à sa case (R11). Impossible de payer ? Vous donnez
   tout et quittez la partie (R13).
4. **Poser** un tapis sur deux cases voisines, l’une touchant Assam, jamais sous lui (R14,
   R15), et jamais exactement sur les deux moitiés d’un même tapis (R16).

À 2 joueurs chacun joue deux couleurs tirées d’une pile mélangée et pose le tapis du
dessus (R7). La partie s’arrête quand les tapis sont épuisés (R19) ; à égalité le plus
riche l’emporte (R21). Les règles `bga` donnent 15 tapis chacun à 3 joueurs et
permettent de recouvrir son propre tapis (R31).

## Touches
| Touche | Action |
|---|---|
| ← ↑ → ↓ | tourner Assam vers l’ouest, le nord, l’est, le sud |
| G T D (ou L S R) | tourner à gauche, tout droit, à droite |
| Espace ou Entrée | lancer le dé |
| Tab , → , ↓ ou N | pose autorisée suivante |
| Maj+Tab , ← , ↑ ou P | pose autorisée précédente |
| a–g puis 1–7 | taper une case (b3), puis l’autre (c3 ; b3 - c3 marche aussi) |
| Entrée | poser le tapis montré |
| clic | une case voisine d’Assam : l’y tourner ; Assam : lancer |
| clic | une case : y montrer une pose (encore : la suivante) |
| H | un conseil : la décision qu’une courte recherche conseille, choisie (Entrée la joue) |
| U ou Ctrl+Z | annuler (un seul humain) : retour à votre décision, mêmes tirages du dé |
| Échap | passer l’animation jusqu’à votre tour (pendant la pose : oublier ce qui est tapé) |
| F2 | vitesse d’animation : de lente à instantanée |
| Ctrl+S / Ctrl+O | enregistrer / charger une partie |
| Ctrl+N | nouvelle partie (demande d’abord si la partie n’est pas enregistrée) |
| Ctrl+L | passer en anglais / français |
| ? ou F1 | cette aide |
| E | l’écran de fin à nouveau, une fois la partie terminée |
| N / S / Q | une fois la partie terminée : nouvelle partie, enregistrer, quitter |
| Ctrl+Q | quitter (demande d’abord si la partie n’est pas enregistrée) |

L’écran de fin : N nouvelle partie, S enregistrer, U annuler, Échap ou B le plateau,
Q quitter. Il compte les conseils demandés par chaque humain (les conseils sont permis
sauf si l’écran de départ les a refusés).

## Revoir une partie
`marrakech play --replay FICHIER`, ou *Revoir une partie…* sur l’écran de départ :

| Touche | Action |
|---|---|
| ← → (ou ↑ ↓ , H L) | une action en arrière, une en avant |
| PgPréc / PgSuiv | dix actions en arrière, dix en avant |
| Début / Fin | le début, la fin |
| Espace | lire ou mettre en pause |
| P | jouer à partir de la position montrée |
| Q ou Échap | quitter la partie revue |

Sur le plateau chaque tapis porte la lettre de sa couleur (**R**ouge = R, **B**leu = B,
jaune = Y, violet = P) ; les deux moitiés visibles d’un même tapis partagent un seul
cadre. Les traits épais montrent la pose proposée et la zone sur laquelle un tribut a été
payé.
""",
    },
}


#: The file errors said in the player's language (``reason.*``); others by their code.
OS_REASONS = {
    errno.ENOENT: "missing",
    errno.EISDIR: "folder",
    errno.ENOTDIR: "not_folder",
    errno.EACCES: "denied",
    errno.EPERM: "denied",
    errno.ENOSPC: "full",
    errno.EROFS: "read_only",
    errno.ENAMETOOLONG: "long",
}


def os_reason(error: OSError, lang: str) -> str:
    """Why a file could not be read or written, in ``lang`` (never the system's English).

    >>> os_reason(FileNotFoundError(errno.ENOENT, "No such file or directory"), "fr")
    'fichier ou dossier introuvable'
    >>> os_reason(OSError(errno.EIO, "Input/output error"), "fr")
    'erreur du système EIO'
    """
    code = error.errno or 0
    if code in OS_REASONS:
        return t(f"reason.{OS_REASONS[code]}", lang)
    return t("reason.system", lang, code=errno.errorcode.get(code, str(code)))


def plural(count: int, lang: str) -> str:
    """``one`` or ``other``: the form of a word counting ``count`` things (French counts
    0 and 1 as one, English only 1)."""
    return "one" if count == 1 or (lang == "fr" and count == 0) else "other"


def t(key: str, lang: str = "en", **values: object) -> str:
    """The interface sentence ``key`` in ``lang`` (English for a language it does not
    have), filled in. Every key is in every language (``tests/tui/test_tui_strings.py``).
    A sentence with a ``count`` has two forms, ``KEY.one`` and ``KEY.other`` (:func:`plural`).

    >>> t("notice.unnamed", "en", count=1, seats="Yellow")
    'The record names nobody for Yellow: a human plays that seat.'
    >>> t("notice.unnamed", "fr", count=2, seats="Bleu, Jaune")
    'La partie enregistrée ne nomme personne pour Bleu, Jaune : des humains jouent ces sièges.'
    """
    table = STRINGS.get(lang, STRINGS["en"])
    count = values.get("count")
    if key not in table and isinstance(count, int):
        key = f"{key}.{plural(count, lang)}"
    template = table[key]
    return template.format(**values) if values else template
