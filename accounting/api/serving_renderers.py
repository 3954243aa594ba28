"""The LLM ranking at a target interactivity as CSV: one line per front read or refused."""

import csv
import io

from rest_framework.renderers import BaseRenderer

from accounting.api.renderers import error_csv
from inferledger.csv_cells import SPREADSHEET_BOM, safe_dict

COLUMNS = [
    "rank", "status", "tied_with_next", "accelerator", "backend", "precision", "origin",
    "target_interactivity_tps_per_user", "output_tokens_per_s_per_accelerator", "accelerators_per_replica",
    "price_kind", "total_usd_per_hour", "cost_per_million_output_tokens_usd", "cost_per_million_input_tokens_usd",
    "cost_per_million_total_tokens_usd", "utilization", "utilization_assumed", "output_cost_low_usd",
    "output_cost_high_usd", "output_tokens_per_joule",
    "power_source", "from_label", "from_interactivity_tps_per_user", "from_run", "to_label",
    "to_interactivity_tps_per_user", "to_run", "price_id", "provider", "region", "reason",
]  # fmt: skip


class ServingRankingCSVRenderer(BaseRenderer):
    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        out = io.StringIO()
        if not isinstance(data, dict) or "refused" not in data:
            return error_csv(data).encode(self.charset)
        out.write(SPREADSHEET_BOM)
        writer = csv.DictWriter(out, fieldnames=COLUMNS, extrasaction="ignore")
        writer.writeheader()
        target = data["target_interactivity_tps_per_user"]
        assumed = {key: data.get(key) for key in ("utilization", "utilization_assumed")}
        for row in data["rows"]:
            writer.writerow(safe_dict({**_read(row, target), **assumed}))
        for row in data["refused"]:
            writer.writerow(safe_dict({**_front(row), "status": "refused", "reason": row["reason"],
                                       "target_interactivity_tps_per_user": target}))  # fmt: skip
        if data.get("empty_reason"):  # no row: one line saying why (accounting.empty_answers)
            writer.writerow(safe_dict({"status": "empty", "target_interactivity_tps_per_user": target, **assumed,
                                       "reason": data["empty_reason"]}))  # fmt: skip
        return out.getvalue().encode(self.charset)


def _front(row: dict) -> dict:
    return {
        "accelerator": row["accelerator"]["name"], "backend": row["backend"], "precision": row["precision"],
        "origin": row["origin"],
    }  # fmt: skip


def _read(row: dict, target) -> dict:
    costs, low, high, energy = row["costs"], row["interpolated_from"], row["interpolated_to"], row["energy"] or {}
    interval = costs["output_cost_interval_usd"] or [None, None]
    return {
        **_front(row), "rank": row["rank"], "status": "read", "tied_with_next": row["tied_with_next"],
        "target_interactivity_tps_per_user": target,
        "output_tokens_per_s_per_accelerator": row["output_tokens_per_s_per_accelerator"],
        "accelerators_per_replica": row["accelerators_per_replica"], "price_kind": row["price_kind"],
        "total_usd_per_hour": row["hourly"]["total_usd_per_hour"],
        "cost_per_million_output_tokens_usd": costs["cost_per_million_output_tokens_usd"],
        "cost_per_million_input_tokens_usd": costs["cost_per_million_input_tokens_usd"],
        "cost_per_million_total_tokens_usd": costs["cost_per_million_total_tokens_usd"],
        "output_cost_low_usd": interval[0], "output_cost_high_usd": interval[1],
        "output_tokens_per_joule": energy.get("output_tokens_per_joule"), "power_source": energy.get("power_source"),
        "from_label": low["label"], "from_interactivity_tps_per_user": low["interactivity_tps_per_user"],
        "from_run": low["run"], "to_label": high["label"],
        "to_interactivity_tps_per_user": high["interactivity_tps_per_user"], "to_run": high["run"],
        "price_id": row["price"]["id"], "provider": row["price"]["provider"], "region": row["price"]["region"],
        "reason": costs["input_total_refused"],
    }  # fmt: skip
