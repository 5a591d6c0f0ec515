"""Admin for DCIM connections and pushes. Tokens are never shown: only their last four characters;
a new token can be entered (it is encrypted on save)."""

from django import forms
from django.contrib import admin

from .models import DcimConnection, DcimPush


class ConnectionForm(forms.ModelForm):
    base_url = forms.URLField(max_length=300, assume_scheme="https", help_text="The DCIM's address, e.g. https://nautobot.example.org")
    new_token = forms.CharField(
        required=False, widget=forms.PasswordInput(render_value=False), help_text="Leave empty to keep the stored token."
    )

    class Meta:
        model = DcimConnection
        fields = ("owner", "name", "kind", "base_url", "token_version", "site", "tenant", "verify_tls")

    def save(self, commit=True):
        conn = super().save(commit=False)
        if self.cleaned_data.get("new_token"):
            conn.set_token(self.cleaned_data["new_token"])
        if commit:
            conn.save()
        return conn


@admin.register(DcimConnection)
class DcimConnectionAdmin(admin.ModelAdmin):
    form = ConnectionForm
    list_display = ("name", "owner", "kind", "base_url", "site", "token_hint", "updated_at")
    list_filter = ("kind",)
    search_fields = ("name", "base_url", "owner__username")
    readonly_fields = ("token_hint", "created_at", "updated_at")

    @admin.display(description="Token")
    def token_hint(self, obj):
        return f"…{obj.token_last4}" if obj.token_last4 else "(none)"


@admin.register(DcimPush)
class DcimPushAdmin(admin.ModelAdmin):
    list_display = ("id", "design", "design_version", "connection", "dry_run", "status", "progress_done", "progress_total", "created_at")
    list_filter = ("status", "dry_run")
    readonly_fields = [f.name for f in DcimPush._meta.fields]
