from django.contrib import admin

from .models import Accelerator, OnPremAssumptions, Price


class PriceHistoryInline(admin.TabularInline):
    """Every price ever recorded for the accelerator, newest first; read-only because prices are history."""

    model = Price
    fields = [
        "kind",
        "provider",
        "region",
        "instance_type",
        "accelerators_per_instance",
        "price_usd",
        "unit",
        "effective_from",
        "as_of",
    ]
    readonly_fields = fields
    ordering = ["kind", "provider", "-effective_from"]
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Accelerator)
class AcceleratorAdmin(admin.ModelAdmin):
    list_display = [
        "vendor",
        "model",
        "kind",
        "architecture",
        "memory_gib",
        "bf16_tflops_dense",
        "tdp_w",
        "launch_year",
    ]
    list_filter = ["vendor", "kind", "architecture"]
    search_fields = ["vendor", "model"]
    inlines = [PriceHistoryInline]

    def get_readonly_fields(self, request, obj=None):
        # Identity is fixed once created (Accelerator.IDENTITY_FIELDS): shown, not editable, on the change form.
        fixed = Accelerator.IDENTITY_FIELDS if obj is not None else ()
        return [*super().get_readonly_fields(request, obj), *fixed]


@admin.register(Price)
class PriceAdmin(admin.ModelAdmin):
    """Add-only: a price change is a new row with a later effective_from, never an edit; a wrong row is fixed by
    adding a correction of it (corrects, with a reason). Price.clean applies the rule on the add form."""

    list_display = ["accelerator", "kind", "provider", "region", "instance_type", "price_usd", "unit", "effective_from",
                    "corrects", "recorded_by"]  # fmt: skip
    raw_id_fields = ["corrects"]
    readonly_fields = ["recorded_by"]

    def save_model(self, request, obj, form, change):
        obj.recorded_by = request.user.get_username()
        super().save_model(request, obj, form, change)

    list_filter = ["kind", "provider", "unit"]
    search_fields = ["accelerator__model", "provider", "instance_type", "region"]
    date_hierarchy = "effective_from"
    autocomplete_fields = ["accelerator"]

    def has_change_permission(self, request, obj=None):
        return obj is None and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(OnPremAssumptions)
class OnPremAssumptionsAdmin(admin.ModelAdmin):
    """Add-only: a new version replaces the old one for new costs; old snapshots keep citing the old one."""

    list_display = [
        "name",
        "version",
        "amortization_years",
        "usd_per_kwh",
        "pue",
        "opex_fraction_per_year",
        "host_capex_share_usd",
        "created_at",
    ]

    def has_change_permission(self, request, obj=None):
        return obj is None and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return False
