"""The quarantine keeps every refused message (NULs escaped, nothing dropped), bounded for unverified senders,
and its list never returns raw bodies (issue #26, items 3 and 4)."""

import hashlib
import json

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from results.ingest import QUARANTINED, ingest_result, quarantine_payload
from results.models import BenchmarkRun, QuarantinedPayload
from results.quarantine import UNVERIFIED_PREFIX_CHARS

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def test_an_ingest_of_a_string_holding_a_nul_is_quarantined_with_the_nul_escaped(catalog):
    # Before: PostgreSQL refused the quarantine insert itself (DataError) and the message vanished.
    outcome = ingest_result('{"run_id": "a\x00b"}', source="agent gpu01")
    entry = QuarantinedPayload.objects.get()
    assert outcome.status == QUARANTINED and outcome.quarantine == entry
    assert entry.raw == '{"run_id": "a\\u0000b"}'  # the NUL as the six characters \u0000
    # {"run_id": "a NUL b"}: 1 + 8 ("run_id" quoted) + 2 (": ") + 6 ("a NUL b" quoted) = 17 characters,
    # one byte each in UTF-8; the digest is of the text as received.
    assert entry.raw_size_bytes == 17 and not entry.raw_truncated
    assert entry.raw_sha256 == hashlib.sha256(b'{"run_id": "a\x00b"}').hexdigest()
    assert "\x00" not in entry.reason


def test_a_valid_result_with_a_nul_in_a_string_is_quarantined_not_lost(catalog, result_payload):
    payload = {**result_payload, "device": {**result_payload["device"], "name": "CPU\x00"}}
    outcome = ingest_result(payload, source="agent gpu01")
    assert outcome.status == QUARANTINED and "NUL character" in outcome.reason
    assert not BenchmarkRun.objects.exists()
    entry = QuarantinedPayload.objects.get()
    assert json.loads(entry.raw)["device"]["name"] == "CPU\x00"  # canonical JSON spells it \u0000: replayable


def test_a_refused_agent_task_payload_holding_a_nul_is_quarantined(catalog):
    from agents.tasks import ingest_job_result

    with override_settings(CELERY_BROKER_URL="redis://127.0.0.1:1/0"):  # a broker: senders must sign
        status = ingest_job_result.apply(args=["00000000-0000-0000-0000-000000000001", "junk\x00" * 3]).get()
    assert status == QUARANTINED
    entry = QuarantinedPayload.objects.get()
    assert entry.raw == "junk\\u0000" * 3 and entry.reason.startswith("refused: unsigned report")


def test_an_unverified_senders_payload_is_kept_as_a_prefix_with_its_size_and_digest(catalog):
    forged = "x" * 5_000_000
    quarantine_payload(forged, reason="refused: bad signature", source="agent ?", sender_verified=False)
    entry = QuarantinedPayload.objects.get()
    assert len(entry.raw) == UNVERIFIED_PREFIX_CHARS == 4096 and entry.raw_truncated
    assert entry.raw_size_bytes == 5_000_000
    assert entry.raw_sha256 == hashlib.sha256(b"x" * 5_000_000).hexdigest()


def test_a_verified_senders_payload_is_kept_whole(catalog):
    quarantine_payload("y" * 10_000, reason="ingest failed", source="agent gpu01")
    entry = QuarantinedPayload.objects.get()
    assert entry.raw == "y" * 10_000 and entry.raw_size_bytes == 10_000 and not entry.raw_truncated


def test_the_quarantine_list_never_returns_raw_bodies_and_staff_read_one_entry(api, staff):
    quarantine_payload("z" * 100_000, reason="refused: bad signature", source="agent ?", sender_verified=False)
    entry = QuarantinedPayload.objects.get()
    row = api.get("/api/v1/quarantine/").json()["results"][0]
    assert "raw" not in row and row["raw_size_bytes"] == 100_000 and row["raw_truncated"] is True
    assert "raw" not in api.get(f"/api/v1/quarantine/{entry.pk}/").json()  # a plain user: no body at all

    staff_api = APIClient()
    staff_api.force_authenticate(staff)
    assert "raw" not in staff_api.get("/api/v1/quarantine/").json()["results"][0]
    detail = staff_api.get(f"/api/v1/quarantine/{entry.pk}/").json()
    assert detail["raw"] == "z" * 4096 and detail["raw_shown_whole"] is False
