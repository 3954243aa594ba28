"""Output serializers of ``GET /api/v1/runs/{id}/latency-layers/``: each point's p99 split into layers."""

from rest_framework import serializers

from harness.latency_layers import LAYERS, UNSPLIT


class LatencyPartSerializer(serializers.Serializer):
    name = serializers.CharField()
    layer = serializers.ChoiceField(choices=[*LAYERS, UNSPLIT])
    ms = serializers.FloatField(help_text="This part's time in the point's p99 (ms).")
    share = serializers.FloatField(help_text="ms / p99_ms.")
    cumulative_share = serializers.FloatField(help_text="The Pareto line: this part and every larger one, / p99_ms.")
    source = serializers.CharField(help_text="Where the figure comes from, and how it was had.")
    measured = serializers.BooleanField(help_text="Measured for one request (true) or apportioned/modelled (false).")


class OperatorSerializer(serializers.Serializer):
    name = serializers.CharField()
    self_ms = serializers.FloatField()
    share = serializers.FloatField()
    calls = serializers.IntegerField()


class RooflineSerializer(serializers.Serializer):
    batch_size = serializers.IntegerField()
    intensity_flops_per_byte = serializers.FloatField()
    ridge_flops_per_byte = serializers.FloatField()
    bound = serializers.ChoiceField(choices=["memory", "compute"])


class PointLatencyLayersSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    label = serializers.CharField()
    p99_ms = serializers.FloatField(help_text="The point's measured p99 (LoadGen's; an endpoint's: the client's).")
    sum_ms = serializers.FloatField(help_text="The parts added up: equal to p99_ms.")
    method = serializers.CharField(help_text="How the p99 was split: measured for the p99 request, or apportioned.")
    layers_ms = serializers.DictField(child=serializers.FloatField(), help_text="The parts' ms summed by layer.")
    parts = LatencyPartSerializer(many=True, help_text="Largest first: the Pareto chart's bars.")
    notes = serializers.ListField(child=serializers.CharField(), help_text="Layers left out, and why.")
    roofline = RooflineSerializer(allow_null=True)
    operators = OperatorSerializer(many=True, help_text="torch.profiler's top operators over one batch of the run.")


class RunLatencyLayersSerializer(serializers.Serializer):
    run = serializers.UUIDField()
    workload = serializers.CharField()
    scenario = serializers.CharField()
    accelerator = serializers.CharField()
    points = PointLatencyLayersSerializer(many=True)


def latency_layers_data(run, splits, labels) -> dict:
    """The answer's data from ``results.latency_layers.run_latency_layers``."""
    return {
        "run": run.pk,
        "workload": run.workload_name,
        "scenario": run.scenario,
        "accelerator": str(run.accelerator),
        "points": [
            {"index": index, "label": label, "p99_ms": split.p99_ms, "sum_ms": split.sum_ms, "method": split.method,
             "layers_ms": split.by_layer_ms(), "parts": split.pareto(), "notes": split.notes,
             "roofline": split.roofline, "operators": split.operators}
            for index, (split, label) in enumerate(zip(splits, labels, strict=True))
        ],
    }  # fmt: skip
