"""The web process (settings, URLs, views, job-spec validation) does not load torch (issue #18)."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_url_conf_does_not_load_torch():
    code = "import sys, django; django.setup(); import inferledger.urls, agents.jobspec; print('torch' in sys.modules)"
    env = os.environ | {
        "DJANGO_SETTINGS_MODULE": "inferledger.settings",
        "DATABASE_URL": "sqlite:///:memory:",
        "DEBUG": "true",
    }
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"], out.stderr


def test_an_idle_agent_starts_and_registers_without_loading_torch():
    # What a worker loads at start (its task modules, the start-up hooks) and the report it registers with;
    # torch, ONNX Runtime and TensorRT are named by their installed versions, loaded when a job runs.
    code = (
        "import sys, django; django.setup(); import inferledger.celery as c; c.app.loader.import_default_modules(); "
        "import agents.agent_runtime; from harness.host.inventory import collect_inventory; "
        "report = collect_inventory('probe'); print('torch' in sys.modules, report['versions']['torch'] is not None)"
    )
    env = os.environ | {
        "DJANGO_SETTINGS_MODULE": "inferledger.settings",
        "DATABASE_URL": "sqlite:///:memory:",
        "DEBUG": "true",
    }
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"], out.stderr
