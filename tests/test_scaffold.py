"""`sttui new domain`: the skeleton passes `sttui check` as written, and bad requests get one line."""

from __future__ import annotations

from click.testing import CliRunner

from sttui.authoring.checking import check_paths
from sttui.cli import main
from sttui.core.loader import load_task


def test_a_new_domain_passes_check_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["new", "domain", "cold-store"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        "wrote cold-store/env.py",
        "wrote cold-store/unit-off-road-st1-easy.yaml (1 milestone drafted from its solution)",
        "next: sttui check cold-store",
    ]
    loaded = load_task(tmp_path / "cold-store" / "unit-off-road-st1-easy.yaml")
    assert loaded.id == "cold-store-unit-off-road-st1-easy" and loaded.env_cls.__name__ == "ColdStoreEnv"
    assert {t.kind for t in loaded.env_cls.tool_specs.values()} == {"query", "operation"}
    assert loaded.task.milestones and loaded.task.milestones_origin.method == "solution"
    [report] = check_paths([tmp_path / "cold-store"])
    assert report.ok, report.problems
    assert all(c.ok for c in report.controls)


def test_a_folder_can_be_named_and_must_be_new(tmp_path):
    runner = CliRunner()
    target = tmp_path / "here"
    assert runner.invoke(main, ["new", "domain", "depot", str(target)]).exit_code == 0
    assert (target / "env.py").is_file()
    again = runner.invoke(main, ["new", "domain", "depot", str(target)])
    assert again.exit_code == 1 and "exists and is not an empty folder; name a new one" in again.output
    assert "Traceback" not in again.output


def test_a_bad_name_is_refused(tmp_path):
    result = CliRunner().invoke(main, ["new", "domain", "Cold Store", str(tmp_path / "x")])
    assert result.exit_code == 1
    assert (
        "expected a domain name of lowercase letters, digits and dashes (like cold-chain); got 'Cold Store'"
        in result.output
    )
    assert not (tmp_path / "x").exists()


def test_a_folder_that_cannot_be_made_gets_one_line(tmp_path):
    (tmp_path / "afile").write_text("", encoding="utf-8")
    result = CliRunner().invoke(main, ["new", "domain", "depot", str(tmp_path / "afile" / "depot")])
    assert result.exit_code == 1 and result.output.startswith("error: cannot write the domain: ")
    assert "Traceback" not in result.output
