"""Who may do what through the API: any authenticated user reads, only staff write."""

from rest_framework.permissions import SAFE_METHODS, BasePermission


class ReadAuthenticatedWriteStaff(BasePermission):
    message = "Writing requires a staff account."

    def has_permission(self, request, view):
        user = request.user
        if not (user and user.is_authenticated):
            return False
        return request.method in SAFE_METHODS or user.is_staff
