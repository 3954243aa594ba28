from django.urls import path

from . import serving, views

app_name = "dashboard"

urlpatterns = [
    path("", views.overview, name="overview"),
    path("hardware/<int:accelerator_id>/", views.hardware, name="hardware"),
    path("runs/<uuid:run_id>/", views.run_detail, name="run"),
    path("runs/<uuid:run_id>/points/<int:index>/loadgen-<str:kind>.txt", views.loadgen_log, name="loadgen-log"),
    path("trends/", views.trends, name="trends"),
    path("compare/", views.compare, name="compare"),
    path("serving/", serving.serving, name="serving"),
    path("jobs/", views.jobs, name="jobs"),
    path("jobs/progress.json", views.jobs_progress, name="jobs-progress"),
]
