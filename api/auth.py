"""Token authentication for scripts: `Authorization: Token <key>` with the planner's named tokens."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from planner.services import token_authenticate
from planner.services.tokens import TokenExpired


class PlannerTokenAuthentication(authentication.BaseAuthentication):
    """A named, revocable API token (create one on the tokens page or at /api/v1/tokens/)."""

    keyword = "Token"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Invalid token header: use 'Authorization: Token <key>'.")
        try:
            key = header[1].decode()
        except UnicodeError as exc:
            raise exceptions.AuthenticationFailed("Invalid token header: the key has characters it cannot have.") from exc
        try:
            user = token_authenticate(key=key)
        except TokenExpired as exc:
            raise exceptions.AuthenticationFailed(str(exc), code="token_expired") from exc
        if user is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        return user, key

    def authenticate_header(self, request):
        return self.keyword


class PlannerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "api.auth.PlannerTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <key>`: create a key at /api/v1/tokens/ or on the API tokens page.",
        }
