"""Every command and snippet the README and docs/ show still works, so none can rot.

``>>>`` examples already run as doctests (pyproject's ``--doctest-glob``). This test
reads the other code blocks: each ``marrakech ...`` command must parse with the real
command line (its options exist, their values are accepted), each ``python FILE``
script must exist and answer ``--help``, the files the commands name must exist, and
each Python block must compile and run its imports (a renamed or removed API fails
here). Commands that would start a server or a long match are parsed, not run; the
terminal page runs its own commands (tests/tui/test_tui_docs.py).
"""

from __future__ import annotations

import ast
import importlib.util
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from marrakech.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks(languages: tuple[str, ...]) -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for language, body in FENCE.findall(page.read_text(encoding="utf-8")):
            if language in languages:
                found.append((page.relative_to(ROOT).as_posix(), body))
    return found


def commands() -> list[tuple[str, list[str]]]:
    """Shell commands of sh/console blocks: prompts, comments, continuations handled."""
    found = []
    for page, body in blocks(("sh", "console", "bash", "")):
        text = body.replace("\\\n", " ")
        for line in text.splitlines():
            line = line.strip()
            if line.startswith("$ "):
                line = line[2:]
            elif body.lstrip().startswith("$"):
                continue  # a console block: lines without a prompt are output
            line = re.split(r"\s+#\s", line, maxsplit=1)[0].strip()
            if line.startswith(("marrakech ", "python ", ".venv/bin/python ")):
                # "..." stands for options the page leaves out
                found.append((page, [word for word in shlex.split(line) if word != "..."]))
    return found


COMMANDS = commands()
MARRAKECH = [(page, argv) for page, argv in COMMANDS if argv[0] == "marrakech"]
SCRIPTS = sorted(
    {
        (page, " ".join(argv[1:3]) if argv[1] == "-m" else argv[1])
        for page, argv in COMMANDS
        if argv[0] != "marrakech" and argv[1:2]
    }
)


def _id(value: object) -> str:
    return " ".join(value)[:70] if isinstance(value, list) else str(value)


def test_the_docs_show_commands() -> None:
    assert len(MARRAKECH) >= 10 and SCRIPTS  # the reader found the blocks


@pytest.mark.parametrize(("page", "argv"), MARRAKECH, ids=_id)
def test_every_marrakech_command_parses(page: str, argv: list[str]) -> None:
    parser = build_parser()
    try:
        args, unknown = parser.parse_known_args(argv[1:])
    except SystemExit as error:
        pytest.fail(f"{page}: `{' '.join(argv)}` is refused by the command line ({error})")
    assert not unknown, f"{page}: `{' '.join(argv)}`: unknown options {unknown}"
    assert args.command is not None
    # Files the command reads must be in the repository (results it writes need not).
    for name in ("resume", "file", "replay", "load"):
        path = getattr(args, name, None)
        if isinstance(path, str) and "/" in path and not path.startswith("/"):
            assert (ROOT / path).exists(), f"{page}: `{' '.join(argv)}` names {path}"


@pytest.mark.parametrize(("page", "script"), SCRIPTS, ids=_id)
def test_every_script_exists_and_answers_help(page: str, script: str) -> None:
    if script.startswith("-m "):
        module = script.split()[1]
        if importlib.util.find_spec(module.split(".")[0]) is None:
            pytest.skip(f"{module} needs an extra that is not installed")
        assert importlib.util.find_spec(module) is not None, f"{page} runs {script}"
        command = [sys.executable, "-m", module, "--help"]
    else:
        path = ROOT / script
        assert path.is_file(), f"{page} runs {script}, which does not exist"
        if path.suffix != ".py":
            return
        command = [sys.executable, str(path), "--help"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0, f"{page}: {script} --help failed:\n{result.stderr[-2000:]}"


PYTHON = blocks(("python",))


@pytest.mark.parametrize(("page", "code"), PYTHON, ids=_id)
def test_every_python_block_compiles_and_imports(page: str, code: str) -> None:
    if code.lstrip().startswith(">>>"):
        return  # a doctest: pytest runs it
    tree = ast.parse(code, filename=page)
    imports = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
    for node in imports:
        for alias in node.names:
            module = node.module if isinstance(node, ast.ImportFrom) else alias.name
            root = (module or "").split(".")[0]
            if root not in ("marrakech",):
                pytest.importorskip(root)  # an optional library the snippet uses
    exec(compile(ast.Module(body=[*imports], type_ignores=[]), page, "exec"), {})
