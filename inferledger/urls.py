from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

api_v1 = [
    path("", include("hardware_catalog.api.urls")),
    path("", include("results.api.urls")),
    path("", include("agents.api.urls")),
    path("", include("accounting.api.urls")),
    path("", include("metering.api.urls")),
    path("", include("inferledger.accounts.urls")),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
    path("", include("metering.urls")),
    path("", include("dashboard.urls")),
]

handler400 = "inferledger.errors.bad_request"
handler500 = "inferledger.errors.server_error"
