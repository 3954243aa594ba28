"""The import contracts in .importlinter (run by `make check`) hold, and a violation breaks them (issue #18)."""

import configparser
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def root_packages() -> list[str]:
    """The packages the contracts cover, as .importlinter names them (one list, not a copy of it)."""
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    return config["importlinter"]["root_packages"].split()


PACKAGES = root_packages()
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def lint_imports(tree: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(tree / ".importlinter"), "--no-cache"],
        cwd=tree,
        capture_output=True,
        text=True,
    )


@pytest.fixture
def tree_copy(tmp_path):
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / ".importlinter", tmp_path / ".importlinter")
    return tmp_path


def test_the_tree_keeps_every_import_contract():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("module", "line", "broken_contract"),
    [
        ("workloads/uses_django.py", "import django.conf\n", "The workload registry imports neither Django nor torch"),
        ("harness/uses_models.py", "from agents import models\n", "harness imports neither Django nor the apps"),
        ("dashboard/uses_torch.py", "import torch\n", "imports neither torch nor MLPerf"),
        ("harness/host/uses_orm.py", "from django.db import models\n", "harness.host) imports no Django"),
        ("hardware_catalog/uses_accounting.py", "import accounting.policy\n", "Apps depend one way"),
        ("results/uses_fleet.py", "import agents.jobs\n", "Apps depend one way"),
        ("accounting/uses_fleet.py", "import agents.models\n", "Apps depend one way"),
        ("accounting/uses_selectors.py", "from accounting import policy\n", None),
    ],
)
def test_it_fails_on_a_deliberate_violation(tree_copy, module, line, broken_contract):
    (tree_copy / module).write_text(line)
    if broken_contract is None:  # a cycle: policy imports the new module back
        policy = tree_copy / "accounting" / "policy.py"
        policy.write_text("from . import uses_selectors  # noqa\n" + policy.read_text())
        broken_contract = "No import cycles between the modules of one package BROKEN"
    result = lint_imports(tree_copy)
    assert result.returncode != 0
    assert broken_contract in result.stdout
