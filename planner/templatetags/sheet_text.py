"""Filters for the rack sheet's print CSS."""

from django import template
from django.utils.safestring import mark_safe

register = template.Library()


@register.filter
def css_string(value) -> str:
    """Text for a CSS string literal ("..."), e.g. in @page content: quotes and backslashes escaped,
    characters that could end the style element dropped. (HTML escaping does not apply inside <style>.)"""
    text = str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
    text = text.replace("<", "").replace(">", "")
    return mark_safe(text)
