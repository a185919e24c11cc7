// Every string the page shows, in English and French.
//
// The game-log sentences come from the server (the core's i18n); this file holds only the
// words of the interface. `t(key, values)` formats `{name}` placeholders. The language is
// chosen from localStorage, else from navigator.language, and `setLang` switches it and
// tells listeners (the pages re-render and the game reconnects for a log in that language).

export const LANGS = ["en", "fr"];

const STRINGS = {
  en: {
    "app.title": "Marrakech",
    "app.tagline": "Carpets, dirhams and Assam, in your browser",
    "nav.lobby": "Lobby",
    "nav.help": "Help and keys",
    "nav.lang": "Language",
    "nav.home": "Back to the lobby",
    "nav.skip": "Skip to content",

    "colour.R": "Red",
    "colour.B": "Blue",
    "colour.Y": "Yellow",
    "colour.P": "Purple",
    "facing.N": "North",
    "facing.E": "East",
    "facing.S": "South",
    "facing.W": "West",
    "pattern.R": "stripes",
    "pattern.B": "dots",
    "pattern.Y": "zigzag",
    "pattern.P": "checks",

    "lobby.create": "New game",
    "lobby.players": "Players",
    "lobby.players.n": "{n} players",
    "lobby.seat": "Seat {n}",
    "lobby.kind": "Who plays",
    "lobby.kind.human": "Friend (invite link)",
    "lobby.kind.here": "Me, on this screen",
    "lobby.kind.open": "Open seat (lobby)",
    "lobby.kind.bot": "Bot",
    "lobby.level": "Bot level",
    "lobby.level.easy": "easy",
    "lobby.level.medium": "medium",
    "lobby.level.hard": "hard",
    "lobby.level.expert": "expert",
    "lobby.name": "Name",
    "lobby.name.placeholder": "optional",
    "lobby.rules": "Rule set",
    "lobby.rules.standard": "standard (rulebook)",
    "lobby.rules.bga": "bga (as on Board Game Arena)",
    "lobby.rules.help":
      "standard: 10 carpets each at 3 players, never cover your own carpet fully. bga: 15 carpets each at 3 players, you may cover your own carpet.",
    "lobby.first": "Who last holidayed in Morocco?",
    "lobby.first.help": "That merchant starts, as the rulebook says.",
    "lobby.first.random": "Nobody remembers: draw lots",
    "lobby.lang": "Language of the game log",
    "lobby.submit": "Create the game",
    "lobby.creating": "Creating…",
    "lobby.created": "Game created",
    "lobby.invite": "Invitation links",
    "lobby.invite.help":
      "Send each player their own private link. Whoever has a link plays that seat, so keep them private.",
    "lobby.link.seat": "{seat} — private link",
    "lobby.link.spectator": "Spectators (read-only)",
    "lobby.copy": "Copy",
    "lobby.copied": "Copied",
    "lobby.play.here": "Play {seat} here",
    "lobby.play.all": "Play all seats of this screen",
    "lobby.open.here": "Open the game",
    "lobby.mine": "Your games",
    "lobby.mine.empty": "No games yet in this browser.",
    "lobby.mine.forget": "Forget",
    "lobby.open": "Open games waiting for players",
    "lobby.open.empty": "No game is waiting for players right now.",
    "lobby.join": "Join as {seat}",
    "lobby.refresh": "Refresh",
    "lobby.upload": "Replay a game record",
    "lobby.upload.help": "Choose a game record (.json) saved from a replay or from the marrakech tools.",
    "lobby.upload.button": "Replay this file",
    "lobby.status.waiting": "waiting for players",
    "lobby.status.running": "in progress",
    "lobby.status.over": "finished",
    "lobby.turn": "turn {n}",
    "lobby.replay": "Replay",
    "lobby.resume": "Continue",
    "lobby.watch": "Watch",
    "lobby.created.at": "created {when}",
    "lobby.seats.you": "you: {seats}",
    "lobby.error": "Could not reach the server: {message}",

    "seat.human": "Human",
    "seat.bot": "Bot ({level})",
    "seat.open": "Open seat",
    "seat.you": "you",
    "seat.out": "out",
    "seat.winner": "winner",
    "seat.to_move": "to play",

    "panel.dirhams": "Dirhams",
    "panel.carpets": "Carpets",
    "panel.pile": "top of pile:",
    "panel.score": "Score",
    "panel.dirhams.n": "{n} dirhams",
    "panel.carpets.n": "{n} carpets",
    "panel.summary":
      "{seat}: {dirhams} dirhams, {carpets} carpets in hand, score {score}",

    "game.loading": "Connecting to the game…",
    "game.reconnecting": "Connection lost — reconnecting…",
    "game.connected": "Connected",
    "game.spectator": "You are watching this game.",
    "game.turn.you": "Your turn, {seat}",
    "game.turn.other": "{seat} to play",
    "game.turn.bot": "{seat} (bot) is thinking…",
    "game.turn.bot_busy": "{seat} (bot) is thinking… The server's bots are busy: they think faster than usual and may take a moment.",
    "game.turn.open": "Waiting for a player to take the seat of {seat}",
    "game.phase.orient": "Turn Assam a quarter left or right, or keep him straight.",
    "game.phase.roll": "Roll the die: Assam walks that many squares.",
    "game.phase.place": "Place your {colour} carpet next to Assam.",
    "game.phase.draw": "Drawing the next carpet…",
    "game.orient.L": "Turn left",
    "game.orient.S": "Keep straight",
    "game.orient.R": "Turn right",
    "game.orient.confirm": "Confirm the facing",
    "game.roll": "Roll the die",
    "game.place.confirm": "Place the carpet",
    "game.place.clear": "Clear",
    "game.place.prev": "Previous placement",
    "game.place.next": "Next placement",
    "game.place.count": "{n} legal placements",
    "game.place.choice": "Placement {i} of {n}: {a} and {b}",
    "game.place.pick": "Click a highlighted square, then a second one next to it.",
    "game.place.pick2": "Now click the second square (highlighted).",
    "game.die": "Die",
    "game.die.rolled": "Rolled {n}",
    "game.log": "Game log",
    "game.log.empty": "The game has not started yet.",
    "game.handover.title": "Hand over to {seat}",
    "game.handover.text": "It is {seat}’s turn on this screen.",
    "game.handover.ok": "I am {seat}: play",
    "game.over": "Game over",
    "game.rank": "Rank",
    "game.seat": "Merchant",
    "game.score": "Score",
    "game.squares": "Squares",
    "game.result.win": "{seat} wins!",
    "game.result.shared": "Shared win: {seats}",
    "game.tiebreak": "Tie on score broken by dirhams.",
    "game.shared": "Equal score and dirhams: the win is shared.",
    "game.eliminated.note": "Eliminated merchants rank last, in reverse order of elimination.",
    "game.close": "Look at the board",
    "game.show_result": "Show the result",
    "game.replay": "Replay the game",
    "game.download": "Download the record",
    "game.new": "New game",
    "game.rules": "Rule set: {rules}",
    "game.spectate_link": "Spectator link",
    "game.copy_link": "Copy the spectator link",
    "game.error.not_your_turn": "It is not your turn.",
    "game.error.stale_version": "The game moved on; here is the new position.",
    "game.error.illegal_action": "That move is not allowed here.",
    "game.error.game_over": "The game is over.",
    "game.error.not_your_seat": "This link does not control that seat.",
    "game.error.rate_limited": "Too many messages; slow down a little.",
    "game.error.bad_token": "This link’s seat is not part of this game: you are watching it.",
    "game.error.generic": "The server refused: {message}",
    "game.not_found": "This game does not exist on this server.",
    "game.speed": "Animations",
    "game.speed.normal": "normal",
    "game.speed.fast": "fast",
    "game.speed.off": "off",
    "game.eliminated": "{seat} is out of the game.",

    "board.label": "The board: 7 by 7 squares, Assam on {square} facing {facing}.",
    "board.square.empty": "{square}: empty",
    "board.square.carpet": "{square}: {colour} carpet",
    "board.square.assam": "Assam",
    "board.legal": "legal placement square",

    "replay.title": "Replay",
    "replay.first": "First position",
    "replay.prev": "Previous move",
    "replay.next": "Next move",
    "replay.last": "Last position",
    "replay.play": "Play",
    "replay.pause": "Pause",
    "replay.position": "Move {i} of {n}",
    "replay.start": "Start of the game",
    "replay.download": "Download the record",
    "replay.upload.none": "No record to show: choose a file in the lobby.",
    "replay.error": "This record could not be read: {message}",
    "replay.live": "Watch live",

    "help.title": "How to play",
    "help.close": "Close",
    "help.turn":
      "On your turn: turn Assam (or keep him straight), roll the die, watch him walk, pay the tithe if he stops on another merchant’s carpets, then place one of your carpets on two squares, one of them next to Assam.",
    "help.goal":
      "At the end, each merchant counts dirhams plus visible squares of their colour. Highest score wins; on a tie, more dirhams wins.",
    "help.keys": "Keys",
    "help.key.orient": "← / → / ↑ — choose turn left, right or straight (preview); Enter — confirm",
    "help.key.roll": "Enter or Space — roll the die",
    "help.key.place":
      "← / → (or ↑ / ↓) — cycle through the legal placements with a preview; Enter — place; Escape — clear",
    "help.key.replay": "Replay: ← / → step, Home / End, Space play or pause",
    "help.key.help": "? — this help; Escape closes it",
    "help.key.tab": "Tab moves between buttons; every button works with Enter or Space.",
    "help.colours":
      "Carpets show their colour, a pattern and a letter: Red has stripes (R), Blue dots (B), Yellow zigzags (Y), Purple checks (P).",
    "lobby.status.playing": "in progress",
    "help.touch":
      "On a touch screen: a first tap on a choice (a facing, a carpet on the board) shows it; a second tap, or the confirm button, plays it.",
    "lobby.refused": "The server refused: {message}",
    "lobby.open.link": "Open: {seat}",
    "lobby.clock": "Turn clock",
    "lobby.clock.none": "No clock",
    "lobby.clock.relaxed": "Relaxed (minutes per turn)",
    "lobby.clock.blitz": "Blitz (seconds per turn)",
    "lobby.clock.help": "When a player’s time runs out, a bot plays for them until they take their seat back.",
    "lobby.orient_last": "Rotate Assam at the end of the turn",
    "lobby.orient_last.help":
      "As on Board Game Arena: you roll at once, and after placing your carpet you turn Assam for the next player.",
    "lobby.your_name": "Your name",
    "lobby.your_name.help": "Shown to the other players; needed when a seat is open to the lobby.",
    "lobby.name.needed": "Please give your name: the lobby shows who hosts a game with open seats.",
    "lobby.join.name": "Your name",
    "lobby.join.go": "Join",
    "lobby.join.cancel": "Cancel",
    "lobby.join.needed": "Please give a name to take a seat.",
    "lobby.host": "hosted by {name}",
    "lobby.seats": "{taken} of {n} seats taken",
    "lobby.seats.open.one": "{n} open",
    "lobby.seats.open.other": "{n} open",
    "lobby.bots": "bots: {levels}",
    "lobby.no_bots": "no bots",
    "lobby.watch_replay": "Replay",
    "lobby.upload.too_big": "This file is {size} MB; a game record is at most 5 MB.",
    "lobby.upload.storage": "This browser could not keep the file for the replay ({message}).",
    "lobby.upload.none": "Choose a file first.",
    "rules.orient_last": "Assam turned at the end of the turn",
    "clock.mode.none": "No clock",
    "clock.mode.relaxed": "Relaxed clock: {time} per turn",
    "clock.mode.blitz": "Blitz: {time} per turn",
    "clock.you": "Your time: {time}",
    "clock.other": "{seat}: {time}",
    "presence.connected": "here",
    "presence.away": "away",
    "presence.open": "open seat",
    "seat.host": "host",
    "seat.resigned": "resigned",
    "seat.stand_in": "bot ({level}) standing in",
    "seat.stand_in.notice": "A bot ({level}) is playing for {seat}. Take your seat back whenever you are ready.",
    "seat.take_back": "Take back my seat",
    "game.waiting.one": "Waiting for players: {n} open seat.",
    "game.waiting.other": "Waiting for players: {n} open seats.",
    "game.turn.away": "{seat} to play (away)",
    "game.turn.stand_in": "{seat} to play: a bot ({level}) stands in",
    "game.phase.orient_last": "Turn Assam for the next player, or keep him straight.",
    "game.orient.confirm_as": "Confirm: {choice}",
    "game.place.again": "Tap the carpet again, or Place the carpet.",
    "game.place.pick.touch": "Tap a highlighted square, then a second one next to it.",
    "game.place.pick2.touch": "Now tap the second square (highlighted).",
    "game.squares.long": "Visible squares of the merchant’s colours",
    "game.not_found.help": "The link may be mistyped, or the game was made on another server.",
    "game.error.no_such_seat": "This game has no such seat.",
    "game.error.not_host": "Only the host can do that.",
    "game.error.not_started": "The game has not started: it waits for players.",
    "game.error.already_started": "The game has already started.",
    "game.error.already_resigned": "That seat has already left the game.",
    "game.error.not_human": "That seat is not a player’s.",
    "game.error.seat_connected": "That player is here: their seat stays theirs.",
    "game.error.no_stand_in": "No bot plays for that seat.",
    "game.error.not_over": "The game is not over yet.",
    "game.error.bad_message": "The server could not read that message.",
    "game.error.server_error": "The server could not store that; try again.",
    "reason.joined": "{seat} joined the game.",
    "reason.connected": "{seat} is here.",
    "reason.away": "{seat} went away.",
    "reason.started": "The host started the game: bots took the open seats.",
    "reason.replaced": "A bot now plays for {seat}.",
    "reason.kicked": "The host opened the seat of {seat} again.",
    "reason.timeout": "{seat}’s time ran out: a bot plays for them.",
    "reason.timeout.you": "Your time ran out: a bot plays for you until you take your seat back.",
    "reason.took_back": "{seat} is back in their seat.",
    "reason.resigned": "{seat} resigned.",
    "reason.rematch": "A rematch is ready.",
    "host.start.help": "Or start now: bots of the level chosen take the open seats.",
    "host.waiting.guest": "The host can start the game with bots at any time.",
    "host.start": "Start now with bots",
    "host.start.level": "Bots’ level",
    "host.kick": "Open the seat again",
    "host.kick.why": "{seat} took a seat and left.",
    "host.away": "{seat} is away.",
    "host.replace": "Let a bot play for them",
    "host.replace.level": "Level of the bot",
    "resign.button": "Resign",
    "resign.button.seat": "Resign {seat}",
    "resign.title": "Resign as {seat}?",
    "resign.text":
      "You leave the game: your carpets stay on the board, your dirhams leave the game, and you rank last. This cannot be undone.",
    "resign.cancel": "Keep playing",
    "resign.confirm": "Resign",
    "preview.expected": "≈ {n} dirhams",
    "preview.expected.long": "Expected tithe: {n} dirhams.",
    "preview.risk": "Chance of being out: {p}.",
    "preview.title": "{choice} (facing {facing}): where each die result leads",
    "preview.die": "Die",
    "preview.chance": "Chance",
    "preview.lands": "Assam on",
    "preview.tithe": "Tithe",
    "preview.free": "nothing to pay",
    "preview.pay": "{n} to {seat}",
    "preview.out": "{n} to {seat}: out!",
    "preview.hover": "Point at a choice to see where each die result would take Assam.",
    "preview.tap": "Tap a choice to see where each die result would take Assam; tap it again to confirm.",
    "since.title": "Since your last turn",
    "since.more.one": "…and {n} earlier turn (see the log).",
    "since.more.other": "…and {n} earlier turns (see the log).",
    "since.roll": "rolled {n} to {square}",
    "since.paid": "paid {n} to {seat}",
    "since.paid_you": "paid you {n}",
    "since.placed": "carpet on {a}–{b}",
    "since.out": "{seat} is out",
    "since.resigned": "{seat} resigned",
    "since.nothing": "passed",
    "title.your_turn": "● Your turn — {title}",
    "signal.sound.on": "Sound: on",
    "signal.sound.off": "Sound: off",
    "signal.notify.default": "Notify me on my turn",
    "signal.notify.granted": "Notifications: on",
    "signal.notify.off": "Notifications: off",
    "signal.notify.denied": "Notifications are blocked in this browser.",
    "end.luck": "Luck",
    "end.luck.help": "Luck: the dirhams the die gave (+) or took (−) beyond what was to be expected.",
    "end.method": "Winning chances estimated by {method}.",
    "end.analysing": "Looking back on the game: luck and winning chances are on their way…",
    "end.chart.scores": "Score after each turn (turns along the bottom)",
    "end.chart.chances": "Winning chances after each turn",
    "end.method.playouts": "Winning chances estimated from {n} simulated games from each position.",
    "end.method.value": "Winning chances from the bots' learned evaluation of each position.",
    "end.rematch": "Rematch",
    "end.rematch.open": "Go to the rematch",
    "replay.swings": "Turning points",
    "replay.swing": "Turn {turn}: {seat} {before} → {after}",
  },
  fr: {
    "app.title": "Marrakech",
    "app.tagline": "Tapis, dirhams et Assam, dans votre navigateur",
    "nav.lobby": "Accueil",
    "nav.help": "Aide et touches",
    "nav.lang": "Langue",
    "nav.home": "Retour à l’accueil",
    "nav.skip": "Aller au contenu",

    "colour.R": "Rouge",
    "colour.B": "Bleu",
    "colour.Y": "Jaune",
    "colour.P": "Violet",
    "facing.N": "nord",
    "facing.E": "est",
    "facing.S": "sud",
    "facing.W": "ouest",
    "pattern.R": "rayures",
    "pattern.B": "pois",
    "pattern.Y": "zigzags",
    "pattern.P": "damier",

    "lobby.create": "Nouvelle partie",
    "lobby.players": "Joueurs",
    "lobby.players.n": "{n} joueurs",
    "lobby.seat": "Siège {n}",
    "lobby.kind": "Qui joue",
    "lobby.kind.human": "Ami (lien d’invitation)",
    "lobby.kind.here": "Moi, sur cet écran",
    "lobby.kind.open": "Place libre (accueil)",
    "lobby.kind.bot": "Robot",
    "lobby.level": "Niveau du robot",
    "lobby.level.easy": "facile",
    "lobby.level.medium": "moyen",
    "lobby.level.hard": "difficile",
    "lobby.level.expert": "expert",
    "lobby.name": "Nom",
    "lobby.name.placeholder": "facultatif",
    "lobby.rules": "Règles",
    "lobby.rules.standard": "standard (livret de règles)",
    "lobby.rules.bga": "bga (comme sur Board Game Arena)",
    "lobby.rules.help":
      "standard : 10 tapis chacun à 3 joueurs, jamais recouvrir entièrement son propre tapis. bga : 15 tapis chacun à 3 joueurs, on peut recouvrir son propre tapis.",
    "lobby.first": "Qui est allé au Maroc le plus récemment ?",
    "lobby.first.help": "Ce marchand commence, comme le dit la règle.",
    "lobby.first.random": "Personne ne s’en souvient : tirer au sort",
    "lobby.lang": "Langue du journal de partie",
    "lobby.submit": "Créer la partie",
    "lobby.creating": "Création…",
    "lobby.created": "Partie créée",
    "lobby.invite": "Liens d’invitation",
    "lobby.invite.help":
      "Envoyez à chaque joueur son lien privé. Qui a le lien joue ce siège : gardez-les privés.",
    "lobby.link.seat": "{seat} — lien privé",
    "lobby.link.spectator": "Spectateurs (lecture seule)",
    "lobby.copy": "Copier",
    "lobby.copied": "Copié",
    "lobby.play.here": "Jouer {seat} ici",
    "lobby.play.all": "Jouer tous les sièges de cet écran",
    "lobby.open.here": "Ouvrir la partie",
    "lobby.mine": "Vos parties",
    "lobby.mine.empty": "Pas encore de partie dans ce navigateur.",
    "lobby.mine.forget": "Oublier",
    "lobby.open": "Parties en attente de joueurs",
    "lobby.open.empty": "Aucune partie n’attend de joueurs pour l’instant.",
    "lobby.join": "Rejoindre en {seat}",
    "lobby.refresh": "Actualiser",
    "lobby.upload": "Revoir une partie enregistrée",
    "lobby.upload.help":
      "Choisissez un enregistrement de partie (.json) téléchargé depuis un replay ou les outils marrakech.",
    "lobby.upload.button": "Revoir ce fichier",
    "lobby.status.waiting": "en attente de joueurs",
    "lobby.status.running": "en cours",
    "lobby.status.over": "terminée",
    "lobby.turn": "tour {n}",
    "lobby.replay": "Revoir",
    "lobby.resume": "Reprendre",
    "lobby.watch": "Regarder",
    "lobby.created.at": "créée {when}",
    "lobby.seats.you": "vous : {seats}",
    "lobby.error": "Le serveur ne répond pas : {message}",

    "seat.human": "Humain",
    "seat.bot": "Robot ({level})",
    "seat.open": "Place libre",
    "seat.you": "vous",
    "seat.out": "éliminé",
    "seat.winner": "gagnant",
    "seat.to_move": "à jouer",

    "panel.dirhams": "Dirhams",
    "panel.carpets": "Tapis",
    "panel.pile": "dessus de la pile :",
    "panel.score": "Score",
    "panel.dirhams.n": "{n} dirhams",
    "panel.carpets.n": "{n} tapis",
    "panel.summary": "{seat} : {dirhams} dirhams, {carpets} tapis en main, score {score}",

    "game.loading": "Connexion à la partie…",
    "game.reconnecting": "Connexion perdue — reconnexion…",
    "game.connected": "Connecté",
    "game.spectator": "Vous regardez cette partie.",
    "game.turn.you": "À vous, {seat}",
    "game.turn.other": "À {seat} de jouer",
    "game.turn.bot": "{seat} (robot) réfléchit…",
    "game.turn.bot_busy": "{seat} (robot) réfléchit… Les robots du serveur sont très sollicités : ils réfléchissent plus vite que d’habitude et peuvent mettre un moment.",
    "game.turn.open": "En attente d’un joueur pour le siège {seat}",
    "game.phase.orient": "Tournez Assam d’un quart à gauche ou à droite, ou laissez-le tout droit.",
    "game.phase.roll": "Lancez le dé : Assam avance d’autant de cases.",
    "game.phase.place": "Posez votre tapis {colour} à côté d’Assam.",
    "game.phase.draw": "Tirage du prochain tapis…",
    "game.orient.L": "Tourner à gauche",
    "game.orient.S": "Tout droit",
    "game.orient.R": "Tourner à droite",
    "game.orient.confirm": "Valider l’orientation",
    "game.roll": "Lancer le dé",
    "game.place.confirm": "Poser le tapis",
    "game.place.clear": "Effacer",
    "game.place.prev": "Placement précédent",
    "game.place.next": "Placement suivant",
    "game.place.count": "{n} placements possibles",
    "game.place.choice": "Placement {i} sur {n} : {a} et {b}",
    "game.place.pick": "Cliquez une case en surbrillance, puis une seconde à côté.",
    "game.place.pick2": "Cliquez maintenant la seconde case (en surbrillance).",
    "game.die": "Dé",
    "game.die.rolled": "Résultat : {n}",
    "game.log": "Journal de la partie",
    "game.log.empty": "La partie n’a pas encore commencé.",
    "game.handover.title": "Passez la main à {seat}",
    "game.handover.text": "C’est au tour de {seat} sur cet écran.",
    "game.handover.ok": "Je suis {seat} : jouer",
    "game.over": "Partie terminée",
    "game.rank": "Rang",
    "game.seat": "Marchand",
    "game.score": "Score",
    "game.squares": "Cases",
    "game.result.win": "{seat} gagne !",
    "game.result.shared": "Victoire partagée : {seats}",
    "game.tiebreak": "Égalité de score départagée aux dirhams.",
    "game.shared": "Même score et mêmes dirhams : la victoire est partagée.",
    "game.eliminated.note":
      "Les marchands éliminés sont classés derniers, dans l’ordre inverse de leur élimination.",
    "game.close": "Voir le plateau",
    "game.show_result": "Voir le résultat",
    "game.replay": "Revoir la partie",
    "game.download": "Télécharger l’enregistrement",
    "game.new": "Nouvelle partie",
    "game.rules": "Règles : {rules}",
    "game.spectate_link": "Lien spectateur",
    "game.copy_link": "Copier le lien spectateur",
    "game.error.not_your_turn": "Ce n’est pas votre tour.",
    "game.error.stale_version": "La partie a avancé ; voici la nouvelle position.",
    "game.error.illegal_action": "Ce coup n’est pas permis ici.",
    "game.error.game_over": "La partie est terminée.",
    "game.error.not_your_seat": "Ce lien ne contrôle pas ce siège.",
    "game.error.rate_limited": "Trop de messages ; ralentissez un peu.",
    "game.error.bad_token": "Le siège de ce lien n’appartient pas à cette partie : vous la regardez.",
    "game.error.generic": "Le serveur a refusé : {message}",
    "game.not_found": "Cette partie n’existe pas sur ce serveur.",
    "game.speed": "Animations",
    "game.speed.normal": "normales",
    "game.speed.fast": "rapides",
    "game.speed.off": "aucune",
    "game.eliminated": "{seat} quitte la partie.",

    "board.label": "Le plateau : 7 cases sur 7, Assam en {square} face {facing}.",
    "board.square.empty": "{square} : vide",
    "board.square.carpet": "{square} : tapis {colour}",
    "board.square.assam": "Assam",
    "board.legal": "case de placement possible",

    "replay.title": "Revoir",
    "replay.first": "Position de départ",
    "replay.prev": "Coup précédent",
    "replay.next": "Coup suivant",
    "replay.last": "Dernière position",
    "replay.play": "Lecture",
    "replay.pause": "Pause",
    "replay.position": "Coup {i} sur {n}",
    "replay.start": "Début de la partie",
    "replay.download": "Télécharger l’enregistrement",
    "replay.upload.none": "Aucun enregistrement à montrer : choisissez un fichier dans l’accueil.",
    "replay.error": "Cet enregistrement est illisible : {message}",
    "replay.live": "Regarder en direct",

    "help.title": "Comment jouer",
    "help.close": "Fermer",
    "help.turn":
      "À votre tour : tournez Assam (ou laissez-le tout droit), lancez le dé, regardez-le marcher, payez si il s’arrête sur les tapis d’un autre marchand, puis posez un de vos tapis sur deux cases, dont une à côté d’Assam.",
    "help.goal":
      "À la fin, chaque marchand compte ses dirhams plus les cases visibles de sa couleur. Le plus haut score gagne ; en cas d’égalité, le plus de dirhams.",
    "help.keys": "Touches",
    "help.key.orient":
      "← / → / ↑ — choisir à gauche, à droite ou tout droit (aperçu) ; Entrée — valider",
    "help.key.roll": "Entrée ou Espace — lancer le dé",
    "help.key.place":
      "← / → (ou ↑ / ↓) — parcourir les placements possibles avec un aperçu ; Entrée — poser ; Échap — effacer",
    "help.key.replay": "Revoir : ← / → coup par coup, Début / Fin, Espace lecture ou pause",
    "help.key.help": "? — cette aide ; Échap la ferme",
    "help.key.tab": "Tab passe d’un bouton à l’autre ; chaque bouton marche avec Entrée ou Espace.",
    "help.colours":
      "Les tapis montrent leur couleur, un motif et une lettre : Rouge à rayures (R), Bleu à pois (B), Jaune à zigzags (Y), Violet en damier (P).",
    "lobby.status.playing": "en cours",
    "help.touch":
      "Sur un écran tactile : un premier toucher sur un choix (une direction, un tapis sur le plateau) le montre ; un second, ou le bouton de validation, le joue.",
    "lobby.refused": "Le serveur a refusé : {message}",
    "lobby.open.link": "Ouvrir : {seat}",
    "lobby.clock": "Pendule",
    "lobby.clock.none": "Sans pendule",
    "lobby.clock.relaxed": "Tranquille (minutes par tour)",
    "lobby.clock.blitz": "Blitz (secondes par tour)",
    "lobby.clock.help": "Quand le temps d’un joueur est écoulé, un robot joue pour lui jusqu’à ce qu’il reprenne sa place.",
    "lobby.orient_last": "Tourner Assam à la fin du tour",
    "lobby.orient_last.help":
      "Comme sur Board Game Arena : vous lancez le dé tout de suite et, après avoir posé votre tapis, vous tournez Assam pour le joueur suivant.",
    "lobby.your_name": "Votre nom",
    "lobby.your_name.help": "Montré aux autres joueurs ; nécessaire quand un siège est ouvert dans l’accueil.",
    "lobby.name.needed": "Donnez votre nom : l’accueil montre qui organise une partie aux sièges ouverts.",
    "lobby.join.name": "Votre nom",
    "lobby.join.go": "Rejoindre",
    "lobby.join.cancel": "Annuler",
    "lobby.join.needed": "Donnez un nom pour prendre un siège.",
    "lobby.host": "organisée par {name}",
    "lobby.seats": "{taken} sièges occupés sur {n}",
    "lobby.seats.open.one": "{n} libre",
    "lobby.seats.open.other": "{n} libres",
    "lobby.bots": "robots : {levels}",
    "lobby.no_bots": "sans robot",
    "lobby.watch_replay": "Revoir",
    "lobby.upload.too_big": "Ce fichier fait {size} Mo ; un enregistrement de partie fait au plus 5 Mo.",
    "lobby.upload.storage": "Ce navigateur n’a pas pu garder le fichier pour le revoir ({message}).",
    "lobby.upload.none": "Choisissez d’abord un fichier.",
    "rules.orient_last": "Assam tourné en fin de tour",
    "clock.mode.none": "Sans pendule",
    "clock.mode.relaxed": "Pendule tranquille : {time} par tour",
    "clock.mode.blitz": "Blitz : {time} par tour",
    "clock.you": "Votre temps : {time}",
    "clock.other": "{seat} : {time}",
    "presence.connected": "présent",
    "presence.away": "absent",
    "presence.open": "siège libre",
    "seat.host": "hôte",
    "seat.resigned": "abandon",
    "seat.stand_in": "un robot ({level}) joue à sa place",
    "seat.stand_in.notice": "Un robot ({level}) joue pour {seat}. Reprenez votre place dès que vous êtes prêt.",
    "seat.take_back": "Reprendre ma place",
    "game.waiting.one": "En attente de joueurs : {n} siège libre.",
    "game.waiting.other": "En attente de joueurs : {n} sièges libres.",
    "game.turn.away": "À {seat} de jouer (absent)",
    "game.turn.stand_in": "À {seat} de jouer : un robot ({level}) joue à sa place",
    "game.phase.orient_last": "Tournez Assam pour le joueur suivant, ou laissez-le tout droit.",
    "game.orient.confirm_as": "Valider : {choice}",
    "game.place.again": "Touchez encore le tapis, ou Poser le tapis.",
    "game.place.pick.touch": "Touchez une case en surbrillance, puis une seconde à côté.",
    "game.place.pick2.touch": "Touchez maintenant la seconde case (en surbrillance).",
    "game.squares.long": "Cases visibles des couleurs du marchand",
    "game.not_found.help": "Le lien est peut-être mal recopié, ou la partie a été créée sur un autre serveur.",
    "game.error.no_such_seat": "Cette partie n’a pas ce siège.",
    "game.error.not_host": "Seul l’hôte peut faire cela.",
    "game.error.not_started": "La partie n’a pas commencé : elle attend des joueurs.",
    "game.error.already_started": "La partie a déjà commencé.",
    "game.error.already_resigned": "Ce siège a déjà quitté la partie.",
    "game.error.not_human": "Ce siège n’est pas celui d’un joueur.",
    "game.error.seat_connected": "Ce joueur est là : il garde son siège.",
    "game.error.no_stand_in": "Aucun robot ne joue pour ce siège.",
    "game.error.not_over": "La partie n’est pas encore finie.",
    "game.error.bad_message": "Le serveur n’a pas pu lire ce message.",
    "game.error.server_error": "Le serveur n’a pas pu l’enregistrer ; réessayez.",
    "reason.joined": "{seat} a rejoint la partie.",
    "reason.connected": "{seat} est là.",
    "reason.away": "{seat} s’est absenté.",
    "reason.started": "L’hôte a lancé la partie : des robots occupent les sièges libres.",
    "reason.replaced": "Un robot joue maintenant pour {seat}.",
    "reason.kicked": "L’hôte a rouvert le siège de {seat}.",
    "reason.timeout": "Le temps de {seat} est écoulé : un robot joue pour lui.",
    "reason.timeout.you": "Votre temps est écoulé : un robot joue pour vous jusqu’à ce que vous repreniez votre place.",
    "reason.took_back": "{seat} a repris sa place.",
    "reason.resigned": "{seat} a abandonné.",
    "reason.rematch": "Une revanche est prête.",
    "host.start.help": "Ou commencez maintenant : des robots du niveau choisi prennent les sièges libres.",
    "host.waiting.guest": "L’hôte peut commencer la partie avec des robots à tout moment.",
    "host.start": "Commencer avec des robots",
    "host.start.level": "Niveau des robots",
    "host.kick": "Rouvrir le siège",
    "host.kick.why": "{seat} a occupé un siège puis est parti.",
    "host.away": "{seat} est absent.",
    "host.replace": "Faire jouer un robot à sa place",
    "host.replace.level": "Niveau du robot",
    "resign.button": "Abandonner",
    "resign.button.seat": "Abandonner pour {seat}",
    "resign.title": "Abandonner en tant que {seat} ?",
    "resign.text":
      "Vous quittez la partie : vos tapis restent sur le plateau, vos dirhams quittent le jeu et vous êtes classé dernier. C’est définitif.",
    "resign.cancel": "Continuer à jouer",
    "resign.confirm": "Abandonner",
    "preview.expected": "≈ {n} dirhams",
    "preview.expected.long": "Taxe attendue : {n} dirhams.",
    "preview.risk": "Risque d’être éliminé : {p}.",
    "preview.title": "{choice} (vers {facing}) : où mène chaque résultat du dé",
    "preview.die": "Dé",
    "preview.chance": "Chance",
    "preview.lands": "Assam sur",
    "preview.tithe": "Taxe",
    "preview.free": "rien à payer",
    "preview.pay": "{n} à {seat}",
    "preview.out": "{n} à {seat} : éliminé !",
    "preview.hover": "Survolez un choix pour voir où chaque résultat du dé mènerait Assam.",
    "preview.tap": "Touchez un choix pour voir où chaque résultat du dé mènerait Assam ; touchez-le encore pour valider.",
    "since.title": "Depuis votre dernier tour",
    "since.more.one": "…et {n} tour plus tôt (voir le journal).",
    "since.more.other": "…et {n} tours plus tôt (voir le journal).",
    "since.roll": "a fait {n}, Assam en {square}",
    "since.paid": "a payé {n} à {seat}",
    "since.paid_you": "vous a payé {n}",
    "since.placed": "tapis en {a}–{b}",
    "since.out": "{seat} est éliminé",
    "since.resigned": "{seat} a abandonné",
    "since.nothing": "rien",
    "title.your_turn": "● À vous — {title}",
    "signal.sound.on": "Son : activé",
    "signal.sound.off": "Son : coupé",
    "signal.notify.default": "Me prévenir à mon tour",
    "signal.notify.granted": "Notifications : activées",
    "signal.notify.off": "Notifications : coupées",
    "signal.notify.denied": "Les notifications sont bloquées dans ce navigateur.",
    "end.luck": "Chance",
    "end.luck.help": "Chance : les dirhams que le dé a donnés (+) ou retirés (−) au-delà de ce qui était attendu.",
    "end.method": "Chances de victoire estimées par {method}.",
    "end.analysing": "Retour sur la partie : la chance et les chances de victoire arrivent…",
    "end.chart.scores": "Score après chaque tour (les tours en bas)",
    "end.chart.chances": "Chances de victoire après chaque tour",
    "end.method.playouts": "Chances de victoire estimées par {n} parties simulées depuis chaque position.",
    "end.method.value": "Chances de victoire selon l'évaluation apprise des bots, position par position.",
    "end.rematch": "Revanche",
    "end.rematch.open": "Aller à la revanche",
    "replay.swings": "Tournants de la partie",
    "replay.swing": "Tour {turn} : {seat} {before} → {after}",
  },
};

const KEY = "marrakech.lang";
const listeners = new Set();

function initialLang() {
  try {
    const stored = localStorage.getItem(KEY);
    if (LANGS.includes(stored)) return stored;
  } catch (_) {
    // localStorage may be unavailable (private mode); fall back to the browser.
  }
  const nav = (navigator.languages && navigator.languages[0]) || navigator.language || "en";
  return nav.toLowerCase().startsWith("fr") ? "fr" : "en";
}

let current = initialLang();

export function lang() {
  return current;
}

/** True when the player chose a language on this browser (the EN / FR buttons). */
export function langChosen() {
  try {
    return LANGS.includes(localStorage.getItem(KEY));
  } catch (_) {
    return false;
  }
}

/** Switch language; `remember: false` for a default that is not the player's choice. */
export function setLang(next, { remember = true } = {}) {
  if (!LANGS.includes(next) || next === current) return;
  current = next;
  if (remember) {
    try {
      localStorage.setItem(KEY, next);
    } catch (_) {
      // Not remembered, still switched for this page.
    }
  }
  document.documentElement.lang = next;
  for (const fn of listeners) fn(next);
}

export function onLangChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function t(key, values = {}) {
  const table = STRINGS[current] || STRINGS.en;
  let text = table[key];
  if (text === undefined) text = STRINGS.en[key];
  if (text === undefined) return key;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in values ? String(values[name]) : m));
}

/** A bot level's name: translated, or as the server sent it (a level new to this page). */
/** `t` of `key.one` or `key.other`, as the language's plural rules say for `n`. */
export function plural(key, n, values = {}) {
  const form = new Intl.PluralRules(current).select(n) === "one" ? "one" : "other";
  return t(`${key}.${form}`, { n, ...values });
}

export function levelName(level) {
  const key = `lobby.level.${level}`;
  const text = t(key);
  return text === key ? level : text;
}

export function colourName(letter) {
  return t(`colour.${letter}`);
}

/** A seat named by its colours, as the core does: "Red" or, at two players, "Red-Yellow". */
export function seatColoursName(colours) {
  return colours.map(colourName).join("-");
}

/** Every key exists in both languages (the tests check this through the page). */
export function missingKeys() {
  const missing = [];
  for (const l of LANGS) {
    for (const k of Object.keys(STRINGS.en)) if (!(k in STRINGS[l])) missing.push(`${l}:${k}`);
    for (const k of Object.keys(STRINGS[l])) if (!(k in STRINGS.en)) missing.push(`en:${k}`);
  }
  return missing;
}

document.documentElement.lang = current;

/** A rule set's token for people: "standard+orient-last" → "standard (rulebook), Assam
 * turned at the end of the turn". */
export function rulesLabel(token) {
  const [base, ...options] = String(token || "").split("+");
  const key = `lobby.rules.${base}`;
  const parts = [t(key) === key ? base : t(key)];
  if (options.includes("orient-last")) parts.push(t("rules.orient_last"));
  return parts.join(", ");
}

/** "Blitz: 0:30 per turn" for a clock mode and its seconds per turn. */
export function clockLabel(mode, seconds) {
  const whole = Math.max(0, Math.round(seconds || 0));
  const time = whole >= 60 && whole % 60 === 0 ? `${whole / 60} min` : whole >= 60 ? `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}` : `${whole} s`;
  return t(`clock.mode.${mode}`, { time });
}
