"""Filters shared by the API and the dashboard."""

import django_filters
from rest_framework.exceptions import ValidationError

from .models import Accelerator, Price, PriceKind
from .selectors import parse_as_of


class AcceleratorFilterSet(django_filters.FilterSet):
    vendor = django_filters.CharFilter(lookup_expr="iexact")
    architecture = django_filters.CharFilter(lookup_expr="iexact")

    class Meta:
        model = Accelerator
        fields = ["vendor", "architecture", "kind"]


class PriceFilterSet(django_filters.FilterSet):
    accelerator = django_filters.ModelChoiceFilter(queryset=Accelerator.objects.all(), method="filter_accelerator")
    kind = django_filters.ChoiceFilter(choices=PriceKind.choices)
    provider = django_filters.CharFilter(lookup_expr="iexact")
    region = django_filters.CharFilter(lookup_expr="iexact")
    as_of = django_filters.CharFilter(
        method="filter_as_of",
        label="Only the rows in force at this date (YYYY-MM-DD: end of that day, UTC) or date-time",
    )

    class Meta:
        model = Price
        fields = ["accelerator", "kind", "provider", "region", "as_of"]

    def filter_accelerator(self, queryset, name, value):
        return queryset.for_accelerator(value)

    def filter_as_of(self, queryset, name, value):
        try:
            at = parse_as_of(value)
        except ValueError as exc:
            raise ValidationError({"as_of": str(exc)}) from None
        return queryset.in_force(at)
