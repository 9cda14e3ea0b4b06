"""Every example in the docs runs: README.md and the pages under docs/ that hold examples.

Each fenced block says how it is tested by its info string, ```` ```LANG KIND key=value ````
(renderers use only LANG), and by HTML comments on the lines just above it:

| block | tested by |
|---|---|
| ```` ```yaml task file=PATH ```` | a whole task file: written to PATH (in the tutorial's folder) and loaded |
| ```` ```yaml fragment of=PATH ```` | its top-level keys replace those of the task file PATH (repository-relative; in the tutorial, folder-relative, and the file is edited so), which then loads; ``items=KEY``: a list of mappings replaces only the items with the same KEY |
| ```` ```yaml catalog ```` | an explore catalog: loads |
| ```` ```yaml config ```` | a ``sttui.yaml``: parses as one |
| ```` ```yaml study ```` | a study file: loads, its tasks resolve under ``tasks/`` and its design can be met |
| ```` ```python file=PATH ```` | written to PATH (tutorial), then imported; without ``file``: run as a module |
| ```` ```json answer of=PATH ```` | a milestone-draft answer: a valid candidate for the task PATH |
| ```` ```console ```` | ``$ CMD`` lines run in order (``sttui …``, ``mkdir``, ``cd``, ``cp``); the lines under each are its output, where a line ``...`` stands for any lines and ``...`` inside a line for any text |
| ```` ```sh ```` | in the tutorial, every line runs with bash in its folder and exits 0; elsewhere a shell block is skipped with its reason |
| ```` ```text synopsis ```` | every ``sttui …`` line names a real command and only options it takes |
| ```` ```text layout ```` | every path it names exists in the repository |

``<!-- exit: N -->`` above a console block: its sttui commands exit N (default 0).
``<!-- expect-error: TEXT -->`` above a yaml block: loading must fail with a problem that
contains TEXT. ``<!-- skip: REASON -->``: the block is not run (network, a server that runs
until stopped, minutes of benchmarking) and the test says so with REASON. A block with no
language or no kind where one is needed fails: every example is tested or says why not.
"""

from __future__ import annotations

import copy
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import click
import pytest
import yaml

from tests.conftest import ROOT

DOCS = ("README.md", "docs/task-format.md", "docs/first-domain.md", "docs/bridges.md", "docs/architecture.md")
TUTORIAL = "docs/first-domain.md"
MARKER = re.compile(r"^<!--\s*([a-z-]+):\s*(.*?)\s*-->$")


@dataclass
class Block:
    doc: str
    line: int  # of the opening fence
    lang: str
    kind: str
    opts: dict[str, str]
    marks: dict[str, str]
    text: str
    words: list[str] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"


def blocks(doc: str) -> list[Block]:
    lines = (ROOT / doc).read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("```"):
            i += 1
            continue
        words = line[3:].split()
        lang = words[0] if words else ""
        kind = next((w for w in words[1:] if "=" not in w), "")
        opts = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        marks: dict[str, str] = {}
        j = i - 1
        while j >= 0 and MARKER.match(lines[j]):
            key, value = MARKER.match(lines[j]).groups()  # type: ignore[union-attr]
            marks[key] = value
            j -= 1
        end = next(k for k in range(i + 1, len(lines)) if lines[k].startswith("```"))
        out.append(Block(doc, i + 1, lang, kind, opts, marks, "\n".join(lines[i + 1 : end]) + "\n", words))
        i = end + 1
    return out


def _present(doc: str) -> bool:
    return (ROOT / doc).is_file()


REFERENCE = [b for d in DOCS if d != TUTORIAL and _present(d) for b in blocks(d)]


# -- the testers --------------------------------------------------------------------------


def _copy_domain(base: Path, sandbox: Path) -> Path:
    """The base task's folder and its parents' env modules, laid out as in the repository,
    so the task's ``env`` resolves the same way; the copy of the task file is returned."""
    rel = base.relative_to(ROOT)
    for up in [base.parent, *list(base.parents)[1:3]]:
        if ROOT in up.parents or up == ROOT:
            target = sandbox / up.relative_to(ROOT)
            target.mkdir(parents=True, exist_ok=True)
            for f in up.iterdir():
                if f.is_file() and f.suffix == ".py":
                    shutil.copy2(f, target / f.name)
    for f in base.parent.iterdir():
        if f.is_file():
            shutil.copy2(f, sandbox / rel.parent / f.name)
    return sandbox / rel


def _merge(base: dict, part: dict, items: str | None) -> dict:
    """``part``'s top-level keys replace ``base``'s; with ``items=KEY``, a list of mappings
    replaces (or adds) only the items with the same KEY, so a fragment can show two fields."""
    merged = copy.deepcopy(base)
    for key, value in part.items():
        old = merged.get(key)
        if items and isinstance(value, list) and isinstance(old, list) and all(isinstance(v, dict) for v in value):
            by = {v.get(items): v for v in value}
            merged[key] = [by.pop(o.get(items), o) if isinstance(o, dict) else o for o in old] + list(by.values())
        else:
            merged[key] = value
    return merged


def _load_expecting(block: Block, path: Path, load) -> None:
    from sttui.core.problems import TaskFileError

    want = block.marks.get("expect-error")
    try:
        load(path)
    except TaskFileError as exc:
        shown = [str(p) for p in exc.problems]
        if want is None:
            pytest.fail(f"{block.where}: the example does not load: {shown}")
        assert any(want in s for s in shown), f"{block.where}: expected an error with {want!r}; got {shown}"
        return
    assert want is None, f"{block.where}: expected the error {want!r}, but it loads"


def check_yaml(block: Block, folder: Path, tutorial: bool) -> None:
    from sttui.core.loader import load_catalog, load_task

    if block.kind == "task":
        path = folder / block.opts.get("file", "example.yaml")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(block.text, encoding="utf-8")
        _load_expecting(block, path, load_task)
    elif block.kind == "fragment":
        assert "of" in block.opts, f"{block.where}: a fragment names its task: ```yaml fragment of=PATH"
        path = folder / block.opts["of"] if tutorial else _copy_domain(ROOT / block.opts["of"], folder)
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        part = yaml.safe_load(block.text)
        assert isinstance(part, dict), f"{block.where}: a fragment is a mapping of top-level task fields"
        merged = _merge(data, part, block.opts.get("items"))
        # in the tutorial a fragment is an edit of that file; elsewhere an example beside it
        target = path if tutorial else path.with_name(f"doc-example-{block.line}.yaml")
        target.write_text(yaml.safe_dump(merged, sort_keys=False, allow_unicode=True, width=200), encoding="utf-8")
        _load_expecting(block, target, load_task)
    elif block.kind == "catalog":
        path = folder / "catalog.yaml"
        text = block.text
        if "of" in block.opts:  # a fragment of a catalog
            base = yaml.safe_load((ROOT / block.opts["of"]).read_text(encoding="utf-8"))
            merged = _merge(base, yaml.safe_load(text), block.opts.get("items"))
            text = yaml.safe_dump(merged, sort_keys=False, allow_unicode=True, width=200)
        path.write_text(text, encoding="utf-8")
        _load_expecting(block, path, load_catalog)
    elif block.kind == "study":
        from sttui.study.design import design, resolve
        from sttui.study.spec import load_study

        path = folder / "study.yaml"
        path.write_text(block.text, encoding="utf-8")
        loaded = load_study(path)
        plan = design(loaded.study, resolve(loaded, ROOT / "tasks").ids)
        assert plan.problems == [], f"{block.where}: the design cannot be met: {plan.problems}"
    elif block.kind == "config":
        from sttui.config import parse_config

        parse_config(yaml.safe_load(block.text), block.where)
    else:
        pytest.fail(f"{block.where}: a yaml block is task, fragment, catalog, study or config; got {block.kind!r}")


def check_python(block: Block, folder: Path) -> None:
    if "file" in block.opts:
        path = folder / block.opts["file"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(block.text, encoding="utf-8")
        code = compile(block.text, str(path), "exec")
    else:
        code = compile(block.text, block.where, "exec")
    exec(code, {"__name__": f"doc_example_{block.line}"})


def check_json(block: Block, folder: Path) -> None:
    from sttui.core.loader import load_task
    from sttui.drafting.record import judge_candidate

    assert block.kind == "answer" and "of" in block.opts, f"{block.where}: ```json answer of=TASK"
    loaded = load_task(_copy_domain(ROOT / block.opts["of"], folder))
    entry = judge_candidate(loaded, 0, None, block.text)
    assert entry["status"] == "valid", f"{block.where}: {entry['status']}: {entry['problems'] or entry['leaks']}"


def _output_matches(shown: list[str], got: list[str]) -> bool:
    pattern = ""
    for line in shown:
        if line.strip() == "...":
            pattern += r"(?:.*\n)*?"
        else:
            pattern += ".*?".join(re.escape(part) for part in line.rstrip().split("...")) + r"[ \t]*\n"
    return re.fullmatch(pattern, "".join(g.rstrip() + "\n" for g in got)) is not None


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["COLUMNS"] = "100"
    return env


def check_console(block: Block, cwd: list[Path]) -> None:
    """Runs each ``$`` line; ``cwd`` is the tutorial's current folder, kept across blocks."""
    commands: list[tuple[str, list[str]]] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            commands.append((line[2:], []))
        else:
            assert commands, f"{block.where}: output before any $ command"
            commands[-1][1].append(line)
    for command, shown in commands:
        argv = shlex.split(command)
        if argv[0] == "cd":
            cwd[0] = (cwd[0] / argv[1]).resolve()
            got = ""
        elif argv[0] in ("mkdir", "cp"):
            proc = subprocess.run(argv, cwd=cwd[0], capture_output=True, text=True, timeout=30)
            assert proc.returncode == 0, f"{block.where}: {command}: {proc.stderr}"
            got = proc.stdout
        elif argv[0] == "sttui":
            proc = subprocess.run(
                [sys.executable, "-m", "sttui", *argv[1:]],
                cwd=cwd[0],
                capture_output=True,
                text=True,
                env=_env(),
                timeout=300,
            )
            got = proc.stdout + proc.stderr
            status = block.marks.get("exit", "0")
            assert str(proc.returncode) == status, f"{block.where}: {command} exited {proc.returncode}:\n{got}"
        else:
            pytest.fail(f"{block.where}: console blocks run sttui, cd, mkdir and cp; got {argv[0]!r}")
        assert _output_matches(shown, got.splitlines()), (
            f"{block.where}: {command} printed:\n{got}\nbut the text shows:\n" + "\n".join(shown)
        )


def _synopsis_commands(text: str) -> list[str]:
    """The command parts of a synopsis: a line's text before its description (two spaces),
    continuation lines of options (``[--seed N] …``) joined to their command, and
    ``sttui a x | y`` alternatives as ``sttui a x`` and ``sttui a y``."""
    out: list[str] = []
    for raw in text.splitlines():
        parts = [p for p in re.split(r"\s{2,}", raw.strip()) if p]
        if not parts:
            continue
        if parts[0].startswith("[") and raw.startswith(" ") and out:
            out[-1] += " " + parts[0]
            continue
        for part in parts:
            if not part.startswith("sttui "):
                continue
            first, *alts = part.split(" | ")
            first += "".join(f" {a}" for a in alts if a.startswith("-"))  # `… | --from-solution`: an option
            alts = [a for a in alts if not a.startswith("-")]
            out.append(first)
            group = " ".join(first.split()[:2])
            out += [f"{group} {alt}" for alt in alts]
    return out


def check_synopsis(block: Block) -> None:
    """Each ``sttui CMD [SUB] … --opt`` names a command that exists, and options it takes
    (or the global ``--db``)."""
    from sttui.cli import main

    commands = _synopsis_commands(block.text)
    assert commands, f"{block.where}: a synopsis with no sttui command"
    for line in commands:
        cmd: click.Command = main
        path: list[str] = []
        for w in line.split()[1:]:
            # (get_command: the group loads each command's module when asked, cli/app.py COMMANDS)
            sub = cmd.get_command(click.Context(cmd), w) if isinstance(cmd, click.Group) else None
            if sub is not None:
                cmd = sub
                path.append(w)
            elif isinstance(cmd, click.Group) and re.fullmatch(r"[a-z][a-z-]+", w):
                pytest.fail(f"{block.where}: no command sttui {' '.join([*path, w])}")
        takes = {o for p in cmd.params for o in p.opts + p.secondary_opts} | {"--help", "--db"}
        for opt in re.findall(r"(?<![\w-])(--?[a-z][a-z0-9-]*)", line):
            assert opt in takes, f"{block.where}: sttui {' '.join(path)} takes no {opt}"


def check_layout(block: Block) -> None:
    root_dir: Path | None = None
    for raw in block.text.splitlines():
        body = raw.split("#")[0]
        for i, token in enumerate(re.findall(r"(?:^|\s{2,}|^\s+)([\w.-]+(?:/[\w.-]*)*)", body)):
            if not token.strip("."):  # `...`: more of the same
                continue
            if raw.startswith(" ") and i == 0 and root_dir is not None:
                path = root_dir / token
            elif "/" in token:
                path = ROOT / token
                if token.endswith("/"):
                    root_dir = path
            else:
                continue
            assert path.exists(), f"{block.where}: {path.relative_to(ROOT)} does not exist"


@pytest.mark.parametrize("block", REFERENCE, ids=lambda b: b.where)
def test_reference_examples(block: Block, tmp_path: Path) -> None:
    if "skip" in block.marks:
        pytest.skip(f"{block.where}: {block.marks['skip']}")
    assert block.lang, f"{block.where}: say the block's language and how it is tested (tests/test_docs.py)"
    if block.lang == "yaml":
        check_yaml(block, tmp_path, tutorial=False)
    elif block.lang == "python":
        check_python(block, tmp_path)
    elif block.lang == "json":
        check_json(block, tmp_path)
    elif block.lang == "console":
        check_console(block, [tmp_path])
    elif block.lang == "text" and block.kind == "synopsis":
        check_synopsis(block)
    elif block.lang == "text" and block.kind == "layout":
        check_layout(block)
    else:
        pytest.fail(f"{block.where}: no test for ```{' '.join(block.words)}: mark it (tests/test_docs.py) or skip it")


@pytest.mark.skipif(not _present(TUTORIAL), reason="no tutorial yet")
def test_the_tutorial_as_written(tmp_path: Path) -> None:
    """docs/first-domain.md, followed literally from an empty folder: every block in order."""
    cwd = [tmp_path]
    ran = 0
    for block in blocks(TUTORIAL):
        if "skip" in block.marks:
            continue
        if block.lang == "console":
            check_console(block, cwd)
        elif block.lang == "yaml":
            check_yaml(block, cwd[0], tutorial=True)
        elif block.lang == "python":
            check_python(block, cwd[0])
        elif block.lang == "sh":
            for line in block.text.splitlines():
                proc = subprocess.run(["bash", "-c", line], cwd=cwd[0], capture_output=True, text=True, timeout=60)
                assert proc.returncode == 0, f"{block.where}: {line}: {proc.stderr}"
        else:
            pytest.fail(f"{block.where}: no test for ```{' '.join(block.words)}")
        ran += 1
    assert ran >= 5
