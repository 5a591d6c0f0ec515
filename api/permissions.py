"""Who may do what through the API."""

from rest_framework import permissions


class IsStaffOrReadOnly(permissions.BasePermission):
    """Anyone reads the catalogue; only staff change it."""

    def has_permission(self, request, view):
        return request.method in permissions.SAFE_METHODS or bool(request.user and request.user.is_staff)


class IsOwnerOrReadOnlyShared(permissions.BasePermission):
    """The owner changes a design; users it is shared with only read it."""

    message = "This design is shared with you read-only; only its owner can change it."

    def has_object_permission(self, request, view, obj):
        return request.method in permissions.SAFE_METHODS or obj.owner_id == request.user.id
