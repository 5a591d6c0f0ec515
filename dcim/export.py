"""A design's DCIM inventory as one zip for bulk import into NetBox or Nautobot.

    README.txt                               the import order in each tool, and what is assumed
    device-types/<Manufacturer>/<Model>.yaml community devicetype-library format, one per type used
    netbox/*.csv                             NetBox's bulk-import columns (its import forms' field names)
    nautobot/*.csv                           Nautobot 2.x CSV import (natural-key columns: location__name, ...)
    cabling-plan.csv                         every cable end to end, readable by people and by either tool's scripts

The CSV cells a spreadsheet would run (text starting =, +, -, @) are kept text the way the bill of
materials keeps them. No figure is computed here: everything comes from `dcim.inventory`.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from dataclasses import dataclass

import yaml
from django.utils.text import slugify

from planner.rendering.elevation import ROLES
from planner.rendering.sheet import text_cell

from .inventory import Inventory

DEFAULT_SITE = "Planned storage"
NAUTOBOT_LOCATION_TYPE = "Site"
ZIP_DATE = (2020, 1, 1, 0, 0, 0)
"""Every member's timestamp: the same design and options give the same bytes."""

ROLE_COLOURS = {
    "Storage server": ROLES["oss"][1],
    "RAID enclosure": ROLES["raid_head"][1],
    "Expansion enclosure": ROLES["expansion"][1],
    "JBOD": ROLES["jbod"][1],
    "SAN array": ROLES["san_array"][1],
    "Storage enclosure": ROLES["other"][1],
    "Metadata server": ROLES["mds"][1],
    "Management server": ROLES["mds"][1],
    "Metadata storage": ROLES["metadata"][1],
    "Switch": ROLES["switch"][1],
    "PDU": ROLES["pdu"][1],
}
"""Device-role colours: the rack elevation's, so the DCIM's racks look like the planner's."""
TAG_COLOUR = "9e9e9e"


@dataclass(frozen=True)
class ExportOptions:
    """Where the design goes in the DCIM: a site (NetBox) or location (Nautobot) name, an optional
    tenant, and the device-name prefix (empty: from the design name)."""

    site: str = DEFAULT_SITE
    tenant: str = ""
    prefix: str = ""


def _colour(role: str) -> str:
    return ROLE_COLOURS.get(role, ROLES["other"][1]).lstrip("#").lower()


def _safe_name(text: str) -> str:
    """A file or folder name from a manufacturer or model: letters, digits, dots, dashes, underscores."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.") or "unnamed"


def _number(value: float):
    return int(value) if float(value).is_integer() else value


def device_type_document(dt) -> dict:
    """One device type as a devicetype-library document (keys in the library's usual order)."""
    doc: dict = {"manufacturer": dt.manufacturer, "model": dt.model, "slug": dt.slug}
    if dt.part_number:
        doc["part_number"] = dt.part_number
    doc["u_height"] = _number(dt.u_height)
    doc["is_full_depth"] = dt.is_full_depth
    if dt.weight is not None:
        doc["weight"] = _number(round(dt.weight, 2))
        doc["weight_unit"] = dt.weight_unit
    doc["comments"] = dt.comments
    if dt.interfaces:
        doc["interfaces"] = []
        for i in dt.interfaces:
            item = {"name": i.name, "type": i.type}
            if i.mgmt_only:
                item["mgmt_only"] = True
            if i.description:
                item["description"] = i.description[:200]
            doc["interfaces"].append(item)
    if dt.power_ports:
        doc["power-ports"] = []
        for p in dt.power_ports:
            item = {"name": p.name, "type": p.type}
            if p.maximum_draw:
                item["maximum_draw"] = int(p.maximum_draw)
            if p.allocated_draw:
                item["allocated_draw"] = int(p.allocated_draw)
            doc["power-ports"].append(item)
    return doc


class _Dumper(yaml.SafeDumper):
    """Safe YAML with multi-line text (the comments) as literal blocks."""


def _str(dumper, value: str):
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def device_type_files(inv: Inventory) -> dict[str, str]:
    """{path in the zip: YAML text} for every device type the design uses."""
    out = {}
    for dt in inv.device_types:
        path = f"device-types/{_safe_name(dt.manufacturer)}/{_safe_name(dt.model)}.yaml"
        out[path] = "---\n" + yaml.dump(device_type_document(dt), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1000)
    return out


def _csv(header: list[str], rows: list[list]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow(["" if v is None else text_cell(v) for v in row])
    return buf.getvalue()


def _roles(inv: Inventory) -> list[str]:
    return list(dict.fromkeys(d.role for d in inv.devices))


def _tags(inv: Inventory) -> list[str]:
    return sorted({t for d in inv.devices for t in d.tags}, key=lambda t: (len(t), t))


def _model(inv: Inventory, slug: str) -> tuple[str, str]:
    dt = inv.device_type(slug)
    return dt.manufacturer, dt.model


def netbox_files(inv: Inventory, options: ExportOptions) -> dict[str, str]:
    """NetBox bulk-import CSVs (Import on each object list), columns as NetBox's import forms name them."""
    site, tenant = options.site, options.tenant
    files = {
        "netbox/01-manufacturers.csv": _csv(["name", "slug"], [[m, slugify(m)] for m in inv.manufacturers]),
        "netbox/03-device-roles.csv": _csv(["name", "slug", "color"], [[r, slugify(r), _colour(r)] for r in _roles(inv)]),
        "netbox/04-tags.csv": _csv(["name", "slug", "color"], [[t, slugify(t), TAG_COLOUR] for t in _tags(inv)]),
        "netbox/05-sites.csv": _csv(["name", "slug", "status", "tenant"], [[site, slugify(site) or "site", "planned", tenant]]),
        "netbox/06-racks.csv": _csv(
            ["site", "name", "status", "tenant", "width", "u_height", "comments"],
            [
                [site, r.name, "planned", tenant, 19, r.u_height, f"Planned rack {r.index} of '{inv.design_name}' ({r.catalogue_slug})"]
                for r in inv.racks
            ],
        ),
    }
    if tenant:
        files["netbox/02-tenants.csv"] = _csv(["name", "slug"], [[tenant, slugify(tenant) or "tenant"]])
    rows = []
    for d in inv.devices:
        manufacturer, model = _model(inv, d.device_type)
        placed = d.position is not None
        rows.append(
            [
                d.name,
                d.role,
                tenant,
                manufacturer,
                model,
                d.status,
                site,
                d.rack,
                d.position if placed else "",
                d.face if placed else "",
                ",".join(d.tags),
                d.comments,
            ]
        )
    files["netbox/07-devices.csv"] = _csv(
        ["name", "role", "tenant", "manufacturer", "device_type", "status", "site", "rack", "position", "face", "tags", "comments"], rows
    )
    files["netbox/08-cables.csv"] = _csv(
        [
            "side_a_device",
            "side_a_type",
            "side_a_name",
            "side_b_device",
            "side_b_type",
            "side_b_name",
            "type",
            "status",
            "tenant",
            "label",
            "length",
            "length_unit",
        ],
        [
            [
                c.a_device,
                "dcim.interface",
                c.a_interface,
                c.b_device,
                "dcim.interface",
                c.b_interface,
                c.type,
                "planned",
                tenant,
                c.label,
                _number(c.length) if c.length else "",
                c.length_unit if c.length else "",
            ]
            for c in inv.cables
        ],
    )
    return dict(sorted(files.items()))


def nautobot_files(inv: Inventory, options: ExportOptions) -> dict[str, str]:
    """Nautobot 2.x CSV import (Import on each object list, or the Import Objects job): related objects by
    their natural keys in `<field>__<key>` columns, statuses by name."""
    site, tenant = options.site, options.tenant
    files = {
        "nautobot/01-manufacturers.csv": _csv(["name"], [[m] for m in inv.manufacturers]),
        "nautobot/03-roles.csv": _csv(["name", "color", "content_types"], [[r, _colour(r), "dcim.device"] for r in _roles(inv)]),
        "nautobot/04-tags.csv": _csv(["name", "color", "content_types"], [[t, TAG_COLOUR, "dcim.device"] for t in _tags(inv)]),
        "nautobot/05-locations.csv": _csv(
            ["name", "location_type__name", "status__name", "tenant__name"], [[site, NAUTOBOT_LOCATION_TYPE, "Planned", tenant]]
        ),
        "nautobot/06-racks.csv": _csv(
            ["name", "location__name", "status__name", "tenant__name", "width", "u_height", "comments"],
            [
                [r.name, site, "Planned", tenant, 19, r.u_height, f"Planned rack {r.index} of '{inv.design_name}' ({r.catalogue_slug})"]
                for r in inv.racks
            ],
        ),
    }
    if tenant:
        files["nautobot/02-tenants.csv"] = _csv(["name"], [[tenant]])
    rows = []
    for d in inv.devices:
        manufacturer, model = _model(inv, d.device_type)
        placed = d.position is not None
        rows.append(
            [
                d.name,
                "Planned",
                d.role,
                manufacturer,
                model,
                site,
                d.rack,
                site,
                d.position if placed else "",
                d.face if placed else "",
                tenant,
                ",".join(d.tags),
                d.comments,
            ]
        )
    files["nautobot/07-devices.csv"] = _csv(
        [
            "name",
            "status__name",
            "role__name",
            "device_type__manufacturer__name",
            "device_type__model",
            "location__name",
            "rack__name",
            "rack__location__name",
            "position",
            "face",
            "tenant__name",
            "tags",
            "comments",
        ],
        rows,
    )
    if not tenant:
        # Nautobot 3.2 looks an empty `tenant__name` up as a tenant named '' and refuses the row (seen
        # against the real server in tests/dcim/test_nautobot_live.py): leave the column out instead
        files = {name: _drop_column(text, "tenant__name") if name.startswith("nautobot/") else text for name, text in files.items()}
    return dict(sorted(files.items()))


def _drop_column(text: str, column: str) -> str:
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or column not in rows[0]:
        return text
    at = rows[0].index(column)
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([row[:at] + row[at + 1 :] for row in rows])
    return out.getvalue()


def cabling_plan(inv: Inventory) -> str:
    return _csv(
        ["a_device", "a_interface", "b_device", "b_interface", "cable_type", "kind", "label", "length", "length_unit"],
        [
            [
                c.a_device,
                c.a_interface,
                c.b_device,
                c.b_interface,
                c.type,
                c.kind,
                c.label,
                _number(c.length) if c.length else "",
                c.length_unit if c.length else "",
            ]
            for c in inv.cables
        ],
    )


def readme(inv: Inventory, options: ExportOptions) -> str:
    tenant_step = "tenants (02-tenants.csv), " if options.tenant else ""
    tenant_first = " and netbox/02-tenants.csv" if options.tenant else ""
    lines = [
        f"DCIM export of the design '{inv.design_name}' (device names start with '{inv.prefix}-')",
        "",
        f"{len(inv.racks)} rack(s), {len(inv.devices)} devices of {len(inv.device_types)} device types, {len(inv.cables)} cables; "
        f"everything has status 'planned'. Site (NetBox) / location (Nautobot): '{options.site}'"
        + (f"; tenant: '{options.tenant}'." if options.tenant else "; no tenant."),
        "",
        "NetBox (4.x): import in this order, each file on the Import page of its object list (CSV):",
        f"  1. netbox/01-manufacturers.csv{tenant_first},",
        "  2. every file under device-types/ (Devices > Device Types > Import, YAML; one file at a time),",
        "  3. netbox/03-device-roles.csv, netbox/04-tags.csv, netbox/05-sites.csv (skip it if the site exists),",
        "  4. netbox/06-racks.csv, netbox/07-devices.csv (the devices get their interfaces and power ports",
        "     from their device types), and last netbox/08-cables.csv.",
        "",
        "Nautobot (2.x): the same order with the files under nautobot/ (Import on each object list, or the",
        "'Import Objects' job): manufacturers, " + tenant_step + "device types (Device Types > Import, the same YAML),",
        f"roles, tags, locations (05-locations.csv assumes a location type '{NAUTOBOT_LOCATION_TYPE}' that may hold racks and",
        "devices: create it first, or change the column), racks, devices. Nautobot's CSV import names a cable's",
        "ends by the interfaces' IDs, which exist only once the devices are created: cable with the planner's",
        "'Send to DCIM' push, or from cabling-plan.csv with a script. Statuses 'Planned' are Nautobot's defaults.",
        "",
        "cabling-plan.csv lists every cable end to end (device, interface, device, interface, type, kind, label).",
        "",
        "What is assumed (the device types' comments cite the catalogue's source for each figure):",
        "- a server with its adapters is one device type per adapter configuration; its interfaces are the adapter",
        "  ports the design uses, plus one management port;",
        "- two redundant power supplies (IEC 60320 C14) per device, each allocated half the typical draw;",
        "  enclosures' draw depends on their drives and is left empty (the rack sheet has it);",
        "- SAS ports have no interface type in NetBox or Nautobot: they are exported as 'other', and SAS",
        "  cables without a cable type;",
        "- one SAS expansion port per RAID controller, one 1 GbE management port per controller or server;",
        "- drives are not DCIM objects here (the bill of materials lists them).",
        "",
        "A device type whose model already exists in the DCIM (for example from the community library) is",
        "refused on import: keep ours under another model name, or check that the existing type has the",
        "interface names the cables use (listed in each YAML file).",
    ]
    if inv.notes:
        lines += ["", "Notes on this design:"] + [f"- {note}" for note in inv.notes]
    return "\n".join(lines) + "\n"


def export_zip(inv: Inventory, options: ExportOptions) -> bytes:
    """The zip: README.txt, device-types/, netbox/, nautobot/, cabling-plan.csv."""
    members = {"README.txt": readme(inv, options)}
    members.update(device_type_files(inv))
    members.update(netbox_files(inv, options))
    members.update(nautobot_files(inv, options))
    members["cabling-plan.csv"] = cabling_plan(inv)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, text in members.items():
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, text.encode("utf-8"))
    return buf.getvalue()


def export_filename(inv: Inventory) -> str:
    return f"{inv.prefix}-dcim.zip"


def design_export(*, design, options: ExportOptions) -> tuple[str, bytes]:
    """(file name, zip bytes) for a saved design (`planner.models.Design`)."""
    from .inventory import inventory_for_design

    inv = inventory_for_design(design, prefix=options.prefix)
    return export_filename(inv), export_zip(inv, options)


def spec_export(*, spec: dict, options: ExportOptions, user=None) -> tuple[str, bytes]:
    """(file name, zip bytes) for an unsaved DesignSpec; raises SpecError for a bad one."""
    from .inventory import inventory_for_spec

    inv = inventory_for_spec(spec, user=user, prefix=options.prefix)
    return export_filename(inv), export_zip(inv, options)
