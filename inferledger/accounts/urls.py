from django.urls import path

from .api import LoginView, LogoutAllView, LogoutView, MeView

urlpatterns = [
    path("auth/login/", LoginView.as_view(), name="api-login"),
    path("auth/logout/", LogoutView.as_view(), name="api-logout"),
    path("auth/logout-all/", LogoutAllView.as_view(), name="api-logout-all"),
    path("auth/me/", MeView.as_view(), name="api-me"),
]
