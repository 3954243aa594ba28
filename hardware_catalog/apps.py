from django.apps import AppConfig


class HardwareCatalogConfig(AppConfig):
    name = "hardware_catalog"
    verbose_name = "Hardware catalog"
