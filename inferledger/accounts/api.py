"""The API's login (a token for a username and password, throttled like every login) and logout (revoke the
token a request was made with, or every token of its user)."""

from django.contrib.auth import authenticate, logout
from django.utils import timezone
from drf_spectacular.utils import extend_schema, inline_serializer
from knox.models import AuthToken
from knox.settings import knox_settings
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from .tokens import revoke_tokens

_REVOKED = inline_serializer("TokensRevoked", {"revoked": serializers.IntegerField(help_text="Tokens revoked.")})


class CredentialsSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, style={"input_type": "password"}, trim_whitespace=False)


class IssuedTokenSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`; shown once, stored as a digest.")
    expiry = serializers.DateTimeField(allow_null=True)


class LoginView(APIView):
    """A new API token for a username and password. Wrong passwords count towards the login lockout (429)."""

    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(request=CredentialsSerializer, responses={201: IssuedTokenSerializer})
    def post(self, request):
        credentials = CredentialsSerializer(data=request.data)
        credentials.is_valid(raise_exception=True)
        # The Django request: django-axes counts the failure against it and its middleware answers a lockout.
        user = authenticate(request._request, **credentials.validated_data)
        if user is None:
            return Response({"detail": "Wrong username or password."}, status=status.HTTP_400_BAD_REQUEST)
        limit = knox_settings.TOKEN_LIMIT_PER_USER
        if limit is not None and AuthToken.objects.filter(user=user, expiry__gt=timezone.now()).count() >= limit:
            detail = f"You hold {limit} tokens, the most allowed: revoke one (auth/logout/ or auth/logout-all/)."
            return Response({"detail": detail}, status=status.HTTP_403_FORBIDDEN)
        instance, token = AuthToken.objects.create(user)
        return Response({"token": token, "expiry": instance.expiry}, status=status.HTTP_201_CREATED)


class LogoutView(APIView):
    """Revoke the API token this request was made with (and end the session, if it came with one)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=_REVOKED)
    def post(self, request):
        revoked = 0
        if isinstance(request.auth, AuthToken):
            request.auth.delete()
            revoked = 1
        logout(request._request)
        return Response({"revoked": revoked})


class LogoutAllView(APIView):
    """Revoke every API token of the signed-in user (and end this session, if the request came with one)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses=_REVOKED)
    def post(self, request):
        revoked = revoke_tokens(request.user)
        logout(request._request)
        return Response({"revoked": revoked})


class MeSerializer(serializers.Serializer):
    username = serializers.CharField()
    is_staff = serializers.BooleanField(help_text="Staff may enqueue jobs and declare endpoints, traces and models.")
    token_expiry = serializers.DateTimeField(
        allow_null=True, help_text="When the token this request was made with expires (null: a session, or none)."
    )


class MeView(APIView):
    """Who this request is authenticated as: a procurement tool's check that its token works, and when it expires.
    The least an authenticated answer costs, so `benchmarks/api_load.py` measures its floor on it."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=MeSerializer)
    def get(self, request):
        expiry = request.auth.expiry if isinstance(request.auth, AuthToken) else None
        return Response({"username": request.user.get_username(), "is_staff": request.user.is_staff,
                         "token_expiry": expiry})  # fmt: skip
