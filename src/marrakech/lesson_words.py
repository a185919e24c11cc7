"""The tutorial's words (:mod:`marrakech.lessons`), in English and French.

Per lesson: its ``title``, the ``prompt`` (what to do), and the explanation shown when the
move is ``right``, ``wrong`` or ``refused`` by the engine. Explanations may name facts the
engine gives about the move: ``{move}``, ``{chance}`` (of a roll), ``{expected}`` (tithe
expected after an orientation), ``{risk}`` (chance of elimination after it), ``{scores}``
and ``{winners}`` (at the end), ``{colour}`` (of a tithe).
"""

from __future__ import annotations

_COMMON: dict[str, dict[str, str]] = {
    "en": {
        "right": "Right!",
        "wrong": "Not quite.",
        "refused": "The engine refuses {move}: the legal moves are {legal}.",
        "score": "{seat} {score} ({dirhams} dirhams)",
    },
    "fr": {
        "right": "Bravo !",
        "wrong": "Pas tout à fait.",
        "refused": "Le jeu refuse {move} : les coups permis sont {legal}.",
        "score": "{seat} {score} ({dirhams} dirhams)",
    },
}

_LESSONS: dict[str, dict[str, dict[str, str]]] = {
    "en": {
        "orient": {
            "title": "Turn Assam",
            "prompt": "Before rolling, you may turn Assam a quarter turn left (L), right (R) "
            "or keep him straight (S). He faces North: turn him to face West.",
            "right": "L turns him a quarter turn to his left, from North to West.",
            "wrong": "{move} does not face him West; West is on his left.",
            "refused": "",
        },
        "half-turn": {
            "title": "No half turn",
            "prompt": "Blue carpets lie ahead of Assam, to the North. Turning him round to "
            "the South is a half turn, which is never allowed. Choose a facing where no roll "
            "lands on blue.",
            "right": "A quarter turn takes him away from the blue carpets: no tithe, whatever "
            "the roll.",
            "wrong": "Straight ahead, every roll lands on blue: {expected} dirhams to pay on "
            "average. Only L, S and R exist; turn him a quarter turn instead.",
            "refused": "",
        },
        "die": {
            "title": "The die",
            "prompt": "The die has six faces: 1, 2, 2, 3, 3 and 4. Pick a number that comes "
            "up one time in three.",
            "right": "{chance}: two of the six faces show it.",
            "wrong": "{move} comes up {chance} of the time: one face only. 2 and 3 have two "
            "faces each.",
            "refused": "",
        },
        "arc": {
            "title": "The walk and the border arcs",
            "prompt": "Assam walks straight ahead as many squares as the die shows. At the "
            "edge he follows the arc to the neighbouring square and turns back into the "
            "board; the arc is an ordinary step. He is on e4 facing East: which roll brings "
            "him to f3?",
            "right": "e4, f4, g4, then the arc to g3 facing West, then f3.",
            "wrong": "Count the arc g4–g3 as one step: f3 is four steps away.",
            "refused": "",
        },
        "loop-g7": {
            "title": "The corner loop at g7",
            "prompt": "At the corners g7 and a1 the arc loops back onto the same square, "
            "turned by a quarter turn. Assam is on g5 facing North: which roll leaves him on "
            "g7 facing West?",
            "right": "g6, g7, then the loop: still g7, now facing West.",
            "wrong": "The loop counts as one step and turns him West on g7.",
            "refused": "",
        },
        "loop-a1": {
            "title": "The corner loop at a1",
            "prompt": "Assam is on a1 facing West. Leaving West, the loop brings him back to "
            "a1 facing North. Which roll brings him to a3?",
            "right": "The loop (a1, now facing North), a2, a3.",
            "wrong": "The first step is the loop on a1; then he walks North.",
            "refused": "",
        },
        "tithe": {
            "title": "The tithe and connected regions",
            "prompt": "When Assam stops on another player's colour, you pay one dirham per "
            "square of that colour joined to it by shared sides. Carpets of one colour "
            "that touch make one region. Which roll costs 4 dirhams?",
            "right": "d5 belongs to a blue region of four squares: two carpets touching.",
            "wrong": "That is not the region of four: look for two blue carpets that touch "
            "(diagonals do not join).",
            "refused": "",
        },
        "place": {
            "title": "Placing a carpet",
            "prompt": "After the move you place a carpet on two adjacent squares, one of "
            "them next to Assam, neither under him. Place a carpet that reaches f4.",
            "right": "e4 is next to Assam and f4 is next to e4.",
            "wrong": "That carpet does not reach f4; e4–f4 does.",
            "refused": "A carpet must touch Assam's square and never lie under him.",
        },
        "cover": {
            "title": "What may be covered",
            "prompt": "A carpet may cover empty squares and halves of carpets, but never "
            "both visible halves of one carpet. Cover two blue halves with one carpet.",
            "right": "d5 and e5 are halves of two different carpets: allowed.",
            "wrong": "That covers fewer than two blue halves; d5–e5 covers one half of each "
            "blue carpet.",
            "refused": "d5–d6 would cover a whole carpet exactly: never allowed.",
        },
        "dirhams": {
            "title": "Running out of dirhams",
            "prompt": "You have 3 dirhams. A player who cannot pay the tithe pays all he has "
            "and is out of the game. Choose the facing where no roll can put you out.",
            "right": "To the West the worst tithe is 2 dirhams: you stay in.",
            "wrong": "Facing that way you are out {risk}% of the time: a region of four blue "
            "squares costs more than your 3 dirhams.",
            "refused": "",
        },
        "end": {
            "title": "The end and the score",
            "prompt": "This is the last carpet of the game. Score = dirhams + visible "
            "squares of your colour; on equal scores, more dirhams wins. Place it so that "
            "you, Red, win.",
            "right": "Scores: {scores}. Equal scores: your dirhams break the tie.",
            "wrong": "Scores: {scores}. {winners} wins: hide more blue squares.",
            "refused": "",
        },
        "two-players": {
            "title": "Two players: two colours and a pile",
            "prompt": "With two players each has two colours (you: Red and Yellow) and "
            "places the top carpet of his pile (now yellow). You pay nothing on either of "
            "your colours. Which roll costs nothing?",
            "right": "Assam stops on one of your own colours: no tithe.",
            "wrong": "The {colour} square belongs to your opponent: you pay.",
            "refused": "",
        },
    },
    "fr": {
        "orient": {
            "title": "Tourner Assam",
            "prompt": "Avant de lancer le dé, vous pouvez tourner Assam d’un quart de tour à "
            "gauche (L), à droite (R) ou le laisser tout droit (S). Il regarde au nord : "
            "tournez-le vers l’ouest.",
            "right": "L le tourne d’un quart de tour vers sa gauche, du nord à l’ouest.",
            "wrong": "{move} ne le tourne pas vers l’ouest ; l’ouest est à sa gauche.",
            "refused": "",
        },
        "half-turn": {
            "title": "Pas de demi-tour",
            "prompt": "Des tapis bleus sont devant Assam, au nord. Le retourner vers le sud "
            "serait un demi-tour, jamais permis. Choisissez une direction où aucun lancer "
            "ne s’arrête sur du bleu.",
            "right": "Un quart de tour l’éloigne des tapis bleus : aucune taxe, quel que "
            "soit le lancer.",
            "wrong": "Tout droit, chaque lancer s’arrête sur du bleu : {expected} dirhams à "
            "payer en moyenne. Seuls L, S et R existent ; tournez-le d’un quart de tour.",
            "refused": "",
        },
        "die": {
            "title": "Le dé",
            "prompt": "Le dé a six faces : 1, 2, 2, 3, 3 et 4. Choisissez un nombre qui sort "
            "une fois sur trois.",
            "right": "{chance} : deux des six faces le montrent.",
            "wrong": "{move} sort {chance} du temps : une seule face. 2 et 3 ont deux faces "
            "chacun.",
            "refused": "",
        },
        "arc": {
            "title": "La marche et les arcs du bord",
            "prompt": "Assam avance tout droit d’autant de cases que le dé indique. Au bord, "
            "il suit l’arc jusqu’à la case voisine et revient vers le plateau ; l’arc compte "
            "comme un pas ordinaire. Il est sur e4 face à l’est : quel lancer l’amène en f3 ?",
            "right": "e4, f4, g4, puis l’arc vers g3 face à l’ouest, puis f3.",
            "wrong": "Comptez l’arc g4–g3 comme un pas : f3 est à quatre pas.",
            "refused": "",
        },
        "loop-g7": {
            "title": "La boucle du coin g7",
            "prompt": "Aux coins g7 et a1, l’arc revient sur la même case, tourné d’un quart "
            "de tour. Assam est sur g5 face au nord : quel lancer le laisse sur g7 face à "
            "l’ouest ?",
            "right": "g6, g7, puis la boucle : toujours g7, maintenant face à l’ouest.",
            "wrong": "La boucle compte pour un pas et le tourne vers l’ouest sur g7.",
            "refused": "",
        },
        "loop-a1": {
            "title": "La boucle du coin a1",
            "prompt": "Assam est sur a1 face à l’ouest. En sortant à l’ouest, la boucle le "
            "ramène sur a1 face au nord. Quel lancer l’amène en a3 ?",
            "right": "La boucle (a1, maintenant face au nord), a2, a3.",
            "wrong": "Le premier pas est la boucle sur a1 ; ensuite il monte vers le nord.",
            "refused": "",
        },
        "tithe": {
            "title": "La taxe et les zones",
            "prompt": "Quand Assam s’arrête sur la couleur d’un autre joueur, vous payez un "
            "dirham par case de cette couleur reliée à elle par un côté. Des tapis d’une "
            "même couleur qui se touchent forment une seule zone. Quel lancer coûte "
            "4 dirhams ?",
            "right": "d5 appartient à une zone bleue de quatre cases : deux tapis qui se touchent.",
            "wrong": "Ce n’est pas la zone de quatre : cherchez deux tapis bleus qui se "
            "touchent (se toucher par un coin ne suffit pas).",
            "refused": "",
        },
        "place": {
            "title": "Poser un tapis",
            "prompt": "Après le déplacement, vous posez un tapis sur deux cases voisines, "
            "dont une à côté d’Assam, aucune sous lui. Posez un tapis qui atteint f4.",
            "right": "e4 touche Assam et f4 touche e4.",
            "wrong": "Ce tapis n’atteint pas f4 ; e4–f4 l’atteint.",
            "refused": "Un tapis doit toucher la case d’Assam et jamais passer sous lui.",
        },
        "cover": {
            "title": "Ce qu’on peut recouvrir",
            "prompt": "Un tapis peut recouvrir des cases vides et des moitiés de tapis, mais "
            "jamais les deux moitiés visibles d’un même tapis. Recouvrez deux moitiés bleues "
            "avec un seul tapis.",
            "right": "d5 et e5 sont des moitiés de deux tapis différents : permis.",
            "wrong": "Cela recouvre moins de deux moitiés bleues ; d5–e5 recouvre une moitié "
            "de chaque tapis bleu.",
            "refused": "d5–d6 recouvrirait exactement un tapis entier : jamais permis.",
        },
        "dirhams": {
            "title": "À court de dirhams",
            "prompt": "Vous avez 3 dirhams. Un joueur qui ne peut pas payer la taxe donne "
            "tout ce qu’il a et quitte la partie. Choisissez la direction où aucun lancer ne "
            "peut vous éliminer.",
            "right": "À l’ouest, la pire taxe est de 2 dirhams : vous restez en jeu.",
            "wrong": "Dans cette direction, vous êtes éliminé {risk} % du temps : une zone de "
            "quatre cases bleues coûte plus que vos 3 dirhams.",
            "refused": "",
        },
        "end": {
            "title": "La fin et le score",
            "prompt": "C’est le dernier tapis de la partie. Score = dirhams + cases visibles "
            "de votre couleur ; à score égal, le plus de dirhams gagne. Posez-le pour que "
            "vous, Rouge, gagniez.",
            "right": "Scores : {scores}. Scores égaux : vos dirhams vous départagent.",
            "wrong": "Scores : {scores}. {winners} gagne : cachez plus de cases bleues.",
            "refused": "",
        },
        "two-players": {
            "title": "À deux : deux couleurs et une pile",
            "prompt": "À deux joueurs, chacun a deux couleurs (vous : Rouge et Jaune) et pose "
            "le tapis du dessus de sa pile (ici jaune). Vous ne payez rien sur vos deux "
            "couleurs. Quel lancer ne coûte rien ?",
            "right": "Assam s’arrête sur une de vos couleurs : pas de taxe.",
            "wrong": "Le {colour} est à votre adversaire : vous payez.",
            "refused": "",
        },
    },
}


def lesson_words(lesson_id: str, lang: str = "en") -> dict[str, str]:
    """The words of one lesson in ``lang`` (English if the language is unknown)."""
    return _LESSONS.get(lang, _LESSONS["en"])[lesson_id]


def lesson_text(key: str, lang: str = "en", **values: object) -> str:
    """A sentence shared by every lesson (right, wrong, refused, a score)."""
    return _COMMON.get(lang, _COMMON["en"])[key].format(**values)


#: The words of the tutorial's frame (titles, buttons), for the interfaces.
FRAME: dict[str, dict[str, str]] = {
    "en": {
        "title": "Learn to play",
        "intro": "Short lessons on real positions: make the move asked, the engine checks it.",
        "lesson": "Lesson {n} of {total}",
        "rule": "Rule {rules}",
        "skip": "Skip",
        "next": "Next lesson",
        "again": "Try again",
        "done": "Done",
        "finished": "You have seen every lesson. Ready to play!",
        "choices": "Your move",
    },
    "fr": {
        "title": "Apprendre à jouer",
        "intro": "De courtes leçons sur de vraies positions : jouez le coup demandé, le "
        "jeu le vérifie.",
        "lesson": "Leçon {n} sur {total}",
        "rule": "Règle {rules}",
        "skip": "Passer",
        "next": "Leçon suivante",
        "again": "Réessayer",
        "done": "Faite",
        "finished": "Vous avez vu toutes les leçons. À vous de jouer !",
        "choices": "Votre coup",
    },
}
