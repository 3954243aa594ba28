from django.apps import AppConfig


class ResultsConfig(AppConfig):
    name = "results"
    verbose_name = "Measured and published results"
