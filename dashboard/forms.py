"""The pages' controls: GET forms, so a URL carries every choice and a view can be shared."""

from decimal import Decimal

from django import forms

import workloads
from accounting.comparisons import DEFAULTS as comparison_defaults
from accounting.coverage import Coverage
from accounting.policy import DEFAULT_PUBLISHED, Published
from accounting.pricing.utilization import default_utilization
from hardware_catalog.models import PriceKind
from hardware_catalog.selectors import parse_as_of


def model_class_choices():
    return [(model_class.id, model_class.title) for model_class in workloads.MODEL_CLASSES.values()]


def workload_choices():
    """Every registered workload; smoke-test stand-ins say so (they are answered only when picked here)."""
    return [("", "the model class's reference")] + [
        (w.id, f"{w.id} (smoke test)" if w.is_smoke_test else w.id) for w in workloads.all_workloads()
    ]


class ShowsAppliedValues(forms.Form):
    """A GET form whose absent fields take their initial values, so each control shows what the page applies
    and pressing the button untouched keeps the same answer."""

    def __init__(self, data, **kwargs):
        data = data.copy()
        if "model_class" in self.base_fields and "model_class" not in data and data.get("workload"):
            # A workload named alone answers for its own model class, and the box says which.
            chosen = next((w for w in workloads.all_workloads() if w.id == data["workload"]), None)
            if chosen is not None:
                data["model_class"] = chosen.model_class
        for name, bound in self.base_fields.items():
            initial = bound.initial() if callable(bound.initial) else bound.initial  # e.g. a configured default
            if name not in data and initial is not None:
                data[name] = initial
        super().__init__(data, **kwargs)


# The picker's groups, in order: which results a workload has (accounting.coverage).
RESULT_GROUPS = (
    ("measured and published", "Measured and published results"),
    ("published", "Published results only"),
    ("measured", "Measured results only"),
    ("none", "No results yet"),
)


def _result_group(coverage: Coverage | None) -> str:
    if coverage is None:
        return "none"
    if coverage.measured and coverage.published:
        return "measured and published"
    return "published" if coverage.published else ("measured" if coverage.measured else "none")


def workload_choices_with_results(coverage: dict[str, Coverage]):
    """The workload picker grouped by the results each workload has, each saying on how many accelerators:
    'resnet50: published on 12 accelerators'. Smoke-test stand-ins say so."""
    groups: dict[str, list] = {key: [] for key, _ in RESULT_GROUPS}
    for w in workloads.all_workloads():
        found = coverage.get(w.id)
        label = f"{w.id}{' (smoke test)' if w.is_smoke_test else ''}: {found.describe() if found else 'no results yet'}"
        groups[_result_group(found)].append((w.id, label))
    return [(title, groups[key]) for key, title in RESULT_GROUPS if groups[key]]


def published_choices():
    return [(choice.value, f"{choice.value}: {choice.description}") for choice in Published]


class AsOfField(forms.CharField):
    """The page's `as_of`: a date (the end of that day, UTC) or an ISO-8601 date-time, as the API reads it
    (hardware_catalog.selectors.parse_as_of); empty = now. Cleaned to an aware UTC datetime, or None."""

    def __init__(self, **kwargs):
        kwargs.setdefault("label", "As of (YYYY-MM-DD, empty = now)")
        super().__init__(required=False, max_length=40, **kwargs)

    def clean(self, value):
        text = super().clean(value)
        if not text:
            return None
        try:
            return parse_as_of(text)
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None


def _bound(label):
    return forms.DecimalField(label=label, min_value=Decimal("0.001"), max_digits=12, decimal_places=3, required=False)


def utilization_field():
    """The utilization box of a costing page: (0, 1], showing the configured default when the URL names none."""
    return forms.DecimalField(
        label="Utilization (0–1]",
        min_value=Decimal("0.01"),
        max_value=Decimal("1"),
        decimal_places=2,
        initial=default_utilization,
        required=False,
    )


class OverviewForm(ShowsAppliedValues):
    """The overview's controls. With no workload asked for (nor a `model_class`, for its reference workload),
    the page answers for accounting.coverage's default_workload and the form shows it, so every control
    shows the value applied."""

    workload = forms.ChoiceField(choices=workload_choices, required=False)
    published = forms.ChoiceField(
        label="Published (MLPerf) results", choices=published_choices, initial=DEFAULT_PUBLISHED.value
    )
    sla_p99_ms = _bound("SLA p99 (ms)")
    ttft_p99_ms = _bound("LLM TTFT p99 (ms)")
    tpot_p99_ms = _bound("LLM TPOT p99 (ms)")
    price_kind = forms.ChoiceField(choices=PriceKind.choices, initial=PriceKind.CLOUD_ON_DEMAND)
    utilization = utilization_field()
    as_of = AsOfField()

    def __init__(self, data, *, coverage: dict[str, Coverage] | None = None, **kwargs):
        super().__init__(data, **kwargs)
        if coverage is not None:
            self.fields["workload"].choices = workload_choices_with_results(coverage)


class TrendsForm(ShowsAppliedValues):
    workload = forms.ChoiceField(choices=(), required=False)
    price_kind = forms.ChoiceField(choices=PriceKind.choices, initial=PriceKind.CLOUD_ON_DEMAND, required=False)
    sla_p99_ms = forms.DecimalField(
        label="SLA p99 (ms), empty = best throughput", min_value=Decimal("0.001"), required=False
    )
    # LLM workloads are bounded by TTFT and TPOT (accounting.policy.requested_sla), as on the overview.
    ttft_p99_ms = _bound("LLM TTFT p99 (ms)")
    tpot_p99_ms = _bound("LLM TPOT p99 (ms)")
    accelerators = forms.MultipleChoiceField(choices=(), required=False, widget=forms.CheckboxSelectMultiple)
    as_of = AsOfField()

    def __init__(self, data, *, workloads, accelerators, **kwargs):
        super().__init__(data, **kwargs)
        self.fields["workload"].choices = [(name, name) for name in workloads]
        self.fields["accelerators"].choices = [(str(a.pk), str(a)) for a in accelerators]


def _precisions():
    from harness.names import PRECISIONS

    return [(name, name) for name in PRECISIONS]


def _backends():
    from harness.names import BACKENDS

    return [(name, name) for name in BACKENDS]


class CompareForm(ShowsAppliedValues):
    """Two run sets on one accelerator: the configuration before a change and after it."""

    model_class = forms.ChoiceField(choices=model_class_choices, initial="tabular")
    workload = forms.ChoiceField(choices=workload_choices, required=False)
    accelerator = forms.TypedChoiceField(choices=(), coerce=int, required=False, empty_value=None)
    before_backend = forms.ChoiceField(choices=_backends, initial="eager")
    before_precision = forms.ChoiceField(choices=_precisions, initial="fp32")
    after_backend = forms.ChoiceField(choices=_backends, initial="eager")
    after_precision = forms.ChoiceField(choices=_precisions, initial="int8")
    sla_p99_ms = _bound("SLA p99 (ms)")
    ttft_p99_ms = _bound("LLM TTFT p99 (ms)")
    tpot_p99_ms = _bound("LLM TPOT p99 (ms)")
    price_kind = forms.ChoiceField(choices=PriceKind.choices, initial=comparison_defaults.price_kind)
    annual_volume = forms.IntegerField(
        label="Annual volume (units of work)", min_value=1, initial=comparison_defaults.annual_volume
    )
    utilization = utilization_field()
    scenario = forms.ChoiceField(choices=(), required=False)
    as_of = AsOfField()

    def __init__(self, data, *, accelerators, scenarios=(), **kwargs):
        super().__init__(data, **kwargs)
        self.fields["accelerator"].choices = [("", "cheapest of each set")] + [(a.pk, str(a)) for a in accelerators]
        self.fields["scenario"].choices = [("", AUTO_SCENARIO)] + [(name, name) for name in scenarios]

    def show_applied_scenario(self, applied: str) -> None:
        """With no scenario asked for, the automatic choice names the scenario it applied."""
        if not self.cleaned_data.get("scenario"):
            choices = self.fields["scenario"].choices
            self.fields["scenario"].choices = [("", f"{applied} ({AUTO_SCENARIO})")] + list(choices)[1:]


AUTO_SCENARIO = "where the before set is cheapest"


class EnqueueForm(forms.Form):
    """Staff only: run a suite on one agent (the agents app validates the spec and dispatches it)."""

    agent = forms.ModelChoiceField(queryset=None, empty_label=None)
    suite = forms.ChoiceField(choices=(("quick", "quick"), ("standard", "standard"), ("publishable", "publishable")))
    workloads = forms.MultipleChoiceField(
        choices=(), required=False, widget=forms.CheckboxSelectMultiple, help_text="None ticked = all."
    )
    user_workload = forms.ModelChoiceField(
        queryset=None, required=False, empty_label="none: the suite's workloads", label="User workload",
        help_text="A declared model file on the agent host, instead of the suite's workloads.",
    )  # fmt: skip
    time_limit_s = forms.IntegerField(label="Time limit (s)", min_value=60, initial=1800)

    def __init__(self, *args, **kwargs):
        from agents.models import Agent, UserWorkload
        from harness.names import MODEL_CLASSES

        super().__init__(*args, **kwargs)
        self.fields["agent"].queryset = Agent.objects.order_by("name")
        self.fields["user_workload"].queryset = UserWorkload.objects.order_by("name")
        self.fields["workloads"].choices = [(name, name) for name in MODEL_CLASSES]
