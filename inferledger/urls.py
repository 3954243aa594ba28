from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView

api_v1 = [
    path("", include("hardware_catalog.api.urls")),
    path("", include("results.api.urls")),
    path("", include("agents.api.urls")),
    path("", include("accounting.api.urls")),
    path("", include("metering.api.urls")),
    path("", include("inferledger.accounts.urls")),
]

# django.contrib.auth.urls, less the e-mail password reset unless e-mail is configured (settings).
accounts = [
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password_change/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("password_change/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
]
if settings.PASSWORD_RESET_BY_EMAIL:
    accounts += [
        path("password_reset/", auth_views.PasswordResetView.as_view(), name="password_reset"),
        path("password_reset/done/", auth_views.PasswordResetDoneView.as_view(), name="password_reset_done"),
        path("reset/<uidb64>/<token>/", auth_views.PasswordResetConfirmView.as_view(), name="password_reset_confirm"),
        path("reset/done/", auth_views.PasswordResetCompleteView.as_view(), name="password_reset_complete"),
    ]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include(accounts)),
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves its script as a file (no inline script: the Content-Security-Policy allows none).
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
    path("", include("metering.urls")),
    path("", include("dashboard.urls")),
]

handler400 = "inferledger.errors.bad_request"
handler500 = "inferledger.errors.server_error"
