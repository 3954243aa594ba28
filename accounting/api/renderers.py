"""The ranking as CSV, for finance: one line per ranked or infeasible accelerator."""

import csv
import io

from rest_framework.renderers import BaseRenderer

from inferledger.csv_cells import SPREADSHEET_BOM, safe_dict, safe_row

COLUMNS = [
    "rank", "status", "accelerator", "origin", "source", "published_round", "published_division",
    "published_submitter", "published_system", "accelerator_count", "workload", "scenario", "backend",
    "precision", "batch_size", "throughput_per_s", "unit", "latency_p99_ms", "energy_j_per_inference",
    "capex_usd_per_hour", "opex_usd_per_hour", "power_usd_per_hour", "cloud_usd_per_hour", "total_usd_per_hour",
    "power_source", "cost_per_million_usd", "cost_per_million_total_tokens_usd", "utilization",
    "utilization_assumed", "price_id", "provider", "region",
    "instance_type", "price_usd", "price_effective_from", "run_id", "reason",
]  # fmt: skip


PUBLISHED_KEYS = ("round", "division", "submitter", "system")


def error_csv(data) -> str:
    """An error answer (400, 401) as CSV, keeping its JSON-like shape: one field per line."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["field", "error"])
    for field, errors in (data or {}).items():
        writer.writerow(safe_row([field, "; ".join(map(str, errors if isinstance(errors, list) else [errors]))]))
    return out.getvalue()


class RankingCSVRenderer(BaseRenderer):
    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        out = io.StringIO()
        out.write(SPREADSHEET_BOM)
        writer = csv.DictWriter(out, fieldnames=COLUMNS, extrasaction="ignore")
        if not isinstance(data, dict) or "rows" not in data:
            # Errors (400, 401) keep their JSON-like shape, one field per line.
            return error_csv(data).encode(self.charset)
        writer.writeheader()
        assumed = {key: data.get(key) for key in ("utilization", "utilization_assumed")}
        for row in data["rows"]:
            writer.writerow(safe_dict({**_ranked(row, data["unit"]), **assumed}))
        for row in data["infeasible"]:
            writer.writerow(safe_dict(
                {"status": "infeasible", "accelerator": row["accelerator"]["name"], "origin": row["origin_label"],
                 "source": row["source"], "accelerator_count": row["accelerator_count"],
                 "workload": data["workload"]["id"], "latency_p99_ms": row["best_latency_p99_ms"],
                 "reason": row["reason"]}
            ))  # fmt: skip
        if data.get("empty_reason"):  # no row: one line saying why (accounting.empty_answers)
            writer.writerow(safe_dict({"status": "empty", "workload": data["workload"]["id"], **assumed,
                                       "reason": data["empty_reason"]}))  # fmt: skip
        return out.getvalue().encode(self.charset)


def _ranked(row: dict, unit: str) -> dict:
    run, point, hourly, price = row["run"], row["point"], row["hourly"], row["price"]
    return {
        "rank": row["rank"], "status": "ranked", "accelerator": row["accelerator"]["name"],
        "origin": row["origin_label"], "source": row["source"], "accelerator_count": row["accelerator_count"],
        **{f"published_{key}": (row["published"] or {}).get(key) for key in PUBLISHED_KEYS},
        "workload": run["workload_name"], "scenario": run["scenario"], "backend": run["backend"],
        "precision": run["precision"], "batch_size": point["batch_size"], "throughput_per_s": row["throughput_per_s"],
        "unit": unit, "latency_p99_ms": row["latency_p99_ms"], "energy_j_per_inference": row["energy_j_per_inference"],
        **{key: hourly[key] for key in COLUMNS if key.endswith("_usd_per_hour")},
        "power_source": hourly["power_source"], "cost_per_million_usd": row["cost_per_million_usd"],
        "cost_per_million_total_tokens_usd": (row["tokens"] or {}).get("cost_per_million_total_tokens_usd"),
        "price_id": price["id"], "provider": price["provider"], "region": price["region"],
        "instance_type": price["instance_type"], "price_usd": price["price_usd"],
        "price_effective_from": price["effective_from"], "run_id": run["id"],
    }  # fmt: skip
