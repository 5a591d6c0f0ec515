"""Display filters for units (formatting only: no figure is computed here)."""
from django import template

register = template.Library()

STAGE_LABELS = {
    "disks": "Disks",
    "expansion_link": "Expansion link",
    "raid_controller": "RAID controllers",
    "host_links": "Host links",
    "server": "Server (HBAs)",
    "network": "Network adapter",
    "clients": "Clients",
}


@register.filter
def stage_label(value: str) -> str:
    """A stage key as words, e.g. raid_controller -> RAID controllers."""
    return STAGE_LABELS.get(value, value)


@register.filter
def kilo(value) -> str:
    """Watts as kilowatts with one decimal."""
    try:
        return f"{float(value) / 1000:.1f}"
    except (TypeError, ValueError):
        return ""
