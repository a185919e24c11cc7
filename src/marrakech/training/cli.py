"""``marrakech train``: self-play with the compiled Gumbel search, generation by
generation, each generation rated against the ladder's reference bots (see
:mod:`marrakech.training.trainer`)."""

from __future__ import annotations

import argparse
import json
import signal
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from marrakech.errors import MarrakechError
from marrakech.training.trainer import Run, TrainConfig

_HELP = {
    "players": "player count (2)",
    "games": "self-play games a generation (256)",
    "simulations": "search simulations a self-play decision (32)",
    "considered": "root actions sequential halving starts from (12: all)",
    "hidden": "width of the network's two hidden layers (128)",
    "steps": "Adam steps a generation (400)",
    "batch": "positions a step (256)",
    "rate": "Adam's learning rate (0.001)",
    "window": "generations of self-play data trained on (4)",
    "value_mix": "weight of the root's searched value in the value target, the rest the "
    "game's outcome (0: the outcome alone, as AlphaZero)",
    "value_weight": "weight of the value's loss against the policy's (1); 0 trains the "
    "policy alone and keeps the value head as it starts (with a value prior and a head at "
    "zero: the prior's value exactly)",
    "seed": "seed of everything (1): the same seed plays and trains the same run",
    "eval_games": "games against each reference opponent a generation (20; 0: none)",
    "eval_opponents": "reference opponents (greedy,hard; among random,greedy,hard,expert)",
    "eval_simulations": "simulations a decision of the network in those games (32)",
    "init": "network file to start from as generation 0 (e.g. marrakech pretrain's; "
    "default: a random network)",
    "value_prior": "the random network's value prior: none, packaged (the search bots' "
    "linear value, whose scores the value head then corrects) or packaged-children (the "
    "search also values each new child of a decision by it; docs/environments.md)",
    "features": "the network also reads the search bots' value features of every seat "
    "(regions, the coming tithe...) through first-layer weights of their own; an --init "
    "network without them gets them at zero (docs/environments.md)",
    "zero_value_head": "generation 0's value head at zero (an --init network's too): with a "
    "value prior, its value is the prior's exactly, as --value-weight 0 then keeps it",
}


def add_parser(subparsers: Any) -> None:
    """Add the ``train`` subcommand to the ``marrakech`` command."""
    parser = subparsers.add_parser(
        "train",
        help="train a network by self-play with search, generation by generation",
        description=(
            "Train a policy and value network by self-play with the compiled Gumbel search "
            "(chance nodes with R3's probabilities, one value per seat), generation by "
            "generation: play, train on the last generations' decisions, save "
            "OUT/gen-XXXX.npz, play it against the ladder's reference bots and append a "
            "line to OUT/log.jsonl. Stop it at any time; --resume continues exactly where it "
            "stopped (the same seed gives the same files)."
        ),
    )
    parser.add_argument("--out", required=True, help="the run's folder (created)")
    parser.add_argument(
        "--resume", action="store_true", help="continue the run in --out (its config.json)"
    )
    parser.add_argument(
        "--generations", type=int, default=10, help="train until this many generations (10)"
    )
    parser.add_argument(
        "--ladder",
        default=None,
        help="folder of reference results files for a Bradley-Terry rating of each "
        "generation (benchmarks/strength; default none: win shares only)",
    )
    defaults = TrainConfig()
    for field in fields(TrainConfig):
        kind = type(getattr(defaults, field.name))
        flag = "--" + field.name.replace("_", "-")
        if kind is bool:  # a switch: given or not (None: the saved run's setting)
            parser.add_argument(flag, action="store_true", default=None, help=_HELP[field.name])
            continue
        parser.add_argument(flag, type=kind, default=None, help=_HELP[field.name])
    parser.set_defaults(run=run)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    given = {f.name: getattr(args, f.name) for f in fields(TrainConfig)}
    given = {k: v for k, v in given.items() if v is not None}
    saved = out / "config.json"
    if args.resume and saved.exists():
        base = asdict(TrainConfig.from_dict(json.loads(saved.read_text())))
    elif args.resume:
        raise MarrakechError(f"--resume: {out} holds no run (no config.json)")
    else:
        base = asdict(TrainConfig())
    config = TrainConfig(**{**base, **given})
    ladder_folder = Path(args.ladder) if args.ladder else None
    if ladder_folder is not None and not ladder_folder.is_dir():
        raise MarrakechError(f"--ladder {ladder_folder}: no such folder")
    run_ = Run.open(out, config, args.resume, ladder_folder)

    def report(line: dict[str, Any]) -> None:
        shares = ", ".join(
            f"{label} {row['corrected']:.1%} ({row['corrected_ci'][0]:.1%}-"
            f"{row['corrected_ci'][1]:.1%})"
            for label, row in line["eval"].items()
            if isinstance(row, dict)
        )
        print(
            f"generation {line['generation']}: {line['positions']} positions "
            f"({line['positions_per_cpu_s']:.0f}/CPU-s), losses {line['policy_loss']:.3f} "
            f"{line['value_loss']:.3f}" + (f"; luck-corrected vs {shares}" if shares else ""),
            flush=True,
        )

    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        run_.run(args.generations, report)
    except KeyboardInterrupt:
        print(f"stopped at generation {run_.generation()}: add --resume to continue", flush=True)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0
