"""The harness is importable on an agent host without Django."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_it_imports_nothing_from_django():
    code = "import harness, harness.suite, harness.result, sys;assert 'django' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_it_lists_workloads_and_backends_from_the_command_line():
    out = subprocess.run(
        [sys.executable, "-m", "harness", "list"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    assert "llm-decoder" in out and "cudagraphs" in out and "CUDA not available" in out


def test_it_names_the_choices_for_an_unknown_workload():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness",
            "run",
            "--workload",
            "nope",
            "--scenario",
            "offline",
            "--out",
            "x.json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "invalid choice: 'nope'" in proc.stderr
