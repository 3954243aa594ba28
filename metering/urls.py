from django.urls import path

from .exporter import metrics

urlpatterns = [path("metrics", metrics, name="metrics")]
