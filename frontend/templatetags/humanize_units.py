"""Display filters for units (formatting only: no figure is computed here)."""

from django import template

from planner import formatting
from planner.engine.inputs import STAGE_LABELS  # one list of stage names for pages and sheets

register = template.Library()


@register.filter
def stage_label(value: str) -> str:
    """A stage key as words, e.g. raid_controller -> RAID controllers."""
    return STAGE_LABELS.get(value, value)


@register.filter
def num(value, digits=0) -> str:
    """A figure with thousands separators and `digits` decimals: 1,234.5 (see planner.formatting)."""
    return formatting.number(value, digits)


@register.filter
def money(value, currency=None) -> str:
    """A price as a whole amount with thousands separators and its currency: 1,234,568 USD."""
    return formatting.money(value, currency)


@register.filter
def unit_money(value, currency=None) -> str:
    """A unit price, with cents: 1,234.50."""
    return formatting.money(value, currency, cents=True)


@register.filter
def ratio(value) -> str:
    """A relative price: 1.25×."""
    return formatting.ratio(value)


@register.filter
def kilo(value) -> str:
    """Watts as kilowatts with one decimal."""
    try:
        return f"{float(value) / 1000:.1f}"
    except (TypeError, ValueError):
        return ""


FIGURE_LABELS = {
    "capacity_tb": "Capacity (TB)",
    "read_mbps": "Sequential read (MB/s)",
    "write_mbps": "Sequential write (MB/s)",
    "random_iops": "Random IOPS",
    "power_w": "Power (W)",
    "weight_kg": "Weight (kg)",
    "afr_percent": "Annual failure rate (%)",
    "ure_per_bit": "Unrecoverable read errors per bit",
    "height_u": "Height (U)",
    "pcie_slots": "PCIe slots",
    "internal_bays": "Data bays",
    "drive_slots": "Drive slots",
    "controllers": "RAID controllers",
    "controller_read_mbps": "Controller read limit (MB/s)",
    "controller_write_mbps": "Controller write limit (MB/s)",
    "controller_requests_per_s": "Controller request rate (/s)",
    "uplink_ports": "Uplink ports",
    "uplink_lanes": "Lanes per port",
    "uplink_lane_gbps": "Lane rate (Gb/s)",
    "uplink_efficiency": "Uplink efficiency",
    "max_expansions": "Expansion enclosures supported",
    "ports": "Ports",
    "port_gbps": "Port rate (Gb/s)",
    "encoding_efficiency": "Line-code efficiency",
    "protocol_efficiency": "Protocol efficiency",
    "pcie_effective_gbps": "PCIe payload (GB/s)",
    "units": "Rack units",
    "power_budget_w": "Power budget (W)",
    "max_load_kg": "Load rating (kg)",
    "request_kib": "Request size (KiB)",
    "software_read_efficiency": "Lustre read efficiency",
    "software_write_efficiency": "Lustre write efficiency",
    "host_ports": "Host ports cabled",
    "fs_overhead_fraction": "File-system overhead",
    "software_raid_read_mbps": "Software RAID read (MB/s)",
    "software_raid_write_mbps": "Software RAID write (MB/s)",
}


@register.filter
def figure_label(key: str) -> str:
    """A figure's field name as a label with its unit, e.g. read_mbps -> Sequential read (MB/s)."""
    return FIGURE_LABELS.get(key, key.replace("_", " ").capitalize())


@register.filter
def calibrated(sources) -> bool:
    """True when any of a record's figures was calibrated on measurements."""
    return any(str(v).lower().startswith("calibrated") for v in (sources or {}).values())


@register.filter
def tb(value) -> str:
    """Decimal TB without trailing zeros: 0.3, 4, 3.84."""
    try:
        text = f"{float(value):.3f}".rstrip("0").rstrip(".")
    except (TypeError, ValueError):
        return ""
    return text
